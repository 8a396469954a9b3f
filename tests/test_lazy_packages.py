"""heedful.model and heedful.engine load their public names on first use (PEP 562).

The bounded loader runs before any work, so reading (and refusing) a file must not pay for the
pydantic models or the engine: each name resolves to the object of the submodule _HOME names,
the names mypy sees (the TYPE_CHECKING block) are exactly those, and importing the loader does
not import pydantic.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("package", ["heedful.model", "heedful.engine", "heedful.integrations.mcp"])
def test_every_public_name_resolves_to_its_home(package: str) -> None:
    module = importlib.import_module(package)
    home: dict[str, str] = module._HOME
    assert sorted(home) == sorted(module.__all__)
    for name, sub in home.items():
        assert getattr(module, name) is getattr(importlib.import_module(f"{package}.{sub}"), name)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        module.nope  # noqa: B018


@pytest.mark.parametrize("package", ["heedful.model", "heedful.engine", "heedful.integrations.mcp"])
def test_type_checking_imports_match_the_lazy_table(package: str) -> None:
    path = ROOT / "src" / Path(*package.split(".")) / "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    seen: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module is not None
                for alias in imp.names:
                    seen[alias.name] = imp.module.removeprefix(package + ".")
    assert seen == importlib.import_module(package)._HOME


def test_the_loader_imports_no_pydantic() -> None:
    code = "import sys, heedful.model.documents; print('pydantic' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "False"


def test_a_submodule_named_like_a_function_does_not_shadow_it() -> None:
    # heedful.engine.triage is a submodule and the function it defines; importing the submodule
    # (as the engine does) must leave the package's name bound to the function, and reading a
    # seed file must not pay for numpy (the triage stack).
    code = (
        "import sys, types\n"
        "import heedful.engine.seed\n"
        "print('numpy' in sys.modules)\n"
        "import heedful.engine.triage\n"
        "import heedful.engine as e\n"
        "from heedful.engine.triage import triage\n"
        "print(e.triage is triage and not isinstance(e.triage, types.ModuleType))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.split() == ["False", "True"]
