"""Public names of a package loaded on first use (PEP 562), for ``heedful.model`` and
``heedful.engine``: importing one submodule (the bounded file loader, say) does not import the
whole package.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str, home: dict[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module-level ``__getattr__`` and ``__dir__`` of ``package``.

    Args:
        package: The package's ``__name__``.
        home: Each public name and the submodule (relative to ``package``) that defines it.
        namespace: The package's ``globals()``; a name is bound there once loaded.
    """

    def getattr_(name: str) -> Any:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted(set(namespace) | set(home))

    return getattr_, dir_
