"""The facade's public calls have typed keyword signatures (issue 35 item 6): what ``help()``,
an IDE and mypy see is the world's signature they forward to, parameter for parameter."""

from __future__ import annotations

import inspect
from typing import get_type_hints

import pytest

from heedful.attention import Controller
from heedful.attention.world import World

#: Facade call → the world's call it forwards to, and the world's parameters the facade fills
#: itself (the controller's clock).
FORWARDED = {
    "register_source": ("register_source", set()),
    "record_belief": ("record_belief", {"now"}),
    "record_evidence": ("record_evidence", {"now"}),
}


@pytest.mark.parametrize("name", sorted(FORWARDED))
def test_a_facade_call_has_the_signature_of_the_world_call_it_forwards_to(name: str) -> None:
    world_name, own = FORWARDED[name]
    facade = inspect.signature(getattr(Controller, name))
    world = inspect.signature(getattr(World, world_name))
    expected = [p for n, p in world.parameters.items() if n not in own]
    got = list(facade.parameters.values())
    assert [(p.name, p.kind, p.default) for p in got] == [
        (p.name, p.kind, p.default) for p in expected
    ]
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in got)
    facade_hints = get_type_hints(getattr(Controller, name))
    world_hints = get_type_hints(getattr(World, world_name))
    for p in got[1:]:
        assert facade_hints[p.name] == world_hints[p.name], p.name


@pytest.mark.parametrize("name", sorted(FORWARDED))
def test_help_documents_every_keyword(name: str) -> None:
    doc = inspect.getdoc(getattr(Controller, name)) or ""
    params = [p for p in inspect.signature(getattr(Controller, name)).parameters if p != "self"]
    assert params and all(f"{p}:" in doc for p in params)


def test_an_unknown_keyword_is_a_type_error_naming_it() -> None:
    ctl = Controller()
    with pytest.raises(TypeError, match="authorty"):
        ctl.register_source("s", authorty=0.9)  # type: ignore[call-arg]
