"""How to install an optional extra, said the way that works: from a checkout.

heedful is not on a package index, so asking pip for heedful by name finds nothing; every
"needs the X extra" message names the command that works in a checkout (README.md's wording,
run from the checkout's root, where ``make test`` made ``.venv``). One place, so the hints
cannot drift apart.
"""

from __future__ import annotations

__all__ = ["PIP", "extra_hint", "pip_hint"]

#: The checkout's own pip (``make test`` creates ``.venv``).
PIP = ".venv/bin/pip"


def pip_hint(*packages: str) -> str:
    """The command that installs ``packages`` into the checkout's environment."""
    return f"{PIP} install {' '.join(packages)}"


def extra_hint(extra: str) -> str:
    """The command that installs heedful's ``extra`` in a checkout, e.g. ``.[mcp]``."""
    return f"{PIP} install -e '.[{extra}]' (from the checkout's root)"
