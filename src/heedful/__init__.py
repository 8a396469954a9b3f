"""heedful: attention for persistent LLM agents, measured against an exact oracle."""

from __future__ import annotations

__version__ = "0.1.0"

__all__ = ["__version__"]
