"""Built-in benchmark policies. Every module in this folder is imported, which registers it.

To add a policy, drop a module here that defines a :class:`~heedful.bench.Policy` subclass
decorated with :func:`~heedful.bench.register_policy`; nothing else needs editing.
"""

from __future__ import annotations

import importlib
import pkgutil

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")
