"""What each family measures (issue 36, item 4): value of information only where ``voc-model``
beats a fitted authority/age/reports ranking by 15 points; every other family says what it
measures instead, in its registration and in ``heedful list families``."""

from __future__ import annotations

import dataclasses

import pytest
from typer.testing import CliRunner

from heedful.bench.validity.checks import CheckError
from heedful.bench.validity.ranking import (
    SEPARATION,
    VALUE_OF_INFORMATION,
    check_measures,
    metadata_ranking,
)
from heedful.bench.worlds.families import FAMILIES, family_names, get_family
from heedful.cli import app


@pytest.mark.parametrize("family", family_names())
def test_every_family_says_what_it_measures_and_its_claim_holds(family: str) -> None:
    report = check_measures(family, count=40, seed=0)
    if get_family(family).measures.startswith(VALUE_OF_INFORMATION):
        assert report.gap.mean >= SEPARATION


def test_the_fitted_ranking_learns_that_authority_helps_on_family_b() -> None:
    report = metadata_ranking("B", count=40, seed=0)
    assert report.weights[0] > 0  # authority up
    assert report.weights[1] < 0  # staler data down
    assert not report.separates  # B measures summary substitution, not value of information


def test_a_family_claiming_value_of_information_without_separating_it_fails() -> None:
    fam = get_family("B")
    FAMILIES["X"] = dataclasses.replace(
        fam, code="X", name="claims-voi", measures=f"{VALUE_OF_INFORMATION}: it says so"
    )
    try:
        with pytest.raises(CheckError, match="says it measures value of information"):
            check_measures("X", count=24, seed=0)
    finally:
        del FAMILIES["X"]


def test_a_family_that_says_nothing_of_what_it_measures_fails() -> None:
    FAMILIES["X"] = dataclasses.replace(get_family("G"), code="X", name="silent", measures="")
    try:
        with pytest.raises(CheckError, match="does not say what it measures"):
            check_measures("X", count=4)
    finally:
        del FAMILIES["X"]


def test_list_families_prints_what_each_inspection_family_measures() -> None:
    # Wide enough that each row is one line (heedful list wraps to the terminal's width).
    out = CliRunner().invoke(app, ["list", "families"], env={"COLUMNS": "2000"}).output
    for fam in FAMILIES.values():
        line = next(x for x in out.splitlines() if x.startswith(f"{fam.code} "))
        assert f"measures {fam.measures}" in line
