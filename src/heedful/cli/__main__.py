"""``python -m heedful.cli`` runs the ``heedful`` command."""

from __future__ import annotations

from heedful.cli import main

if __name__ == "__main__":
    main()
