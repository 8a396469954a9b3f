"""Where models live: the shipped default model and user model files (plain JSON)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from heedful.learn.ranker import RidgeRanker, load_model

__all__ = ["DEFAULT_MODEL_NAME", "default_model_path", "load_ranker"]

#: File name of the shipped default model inside ``heedful/learn/data/``.
DEFAULT_MODEL_NAME = "default_model.json"

_CACHE: dict[str, RidgeRanker] = {}


def default_model_path() -> Path:
    """Path of the shipped default model (trained by the command in its manifest)."""
    return Path(str(resources.files("heedful.learn") / "data" / DEFAULT_MODEL_NAME))


def load_ranker(path: str | Path | None = None) -> RidgeRanker:
    """Load a model file (None = the shipped default), cached per resolved path.

    Raises:
        heedful.errors.InvalidArgumentError: one line naming the file and what is wrong.
    """
    p = Path(path) if path is not None else default_model_path()
    key = str(p.resolve())
    if key not in _CACHE:
        _CACHE[key] = load_model(p)
    return _CACHE[key]
