from __future__ import annotations

import doctest
import importlib

import pytest


@pytest.mark.parametrize(
    "module",
    [
        "alerting",
        "orienting",
        "selective",
        "sustained",
        "executive",
        "system",
        "history",
        "subsystems",
    ],
)
def test_docstring_examples_hold(module: str) -> None:
    mod = importlib.import_module(f"heedful.salience.{module}")
    assert doctest.testmod(mod).failed == 0
