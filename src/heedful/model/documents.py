"""One bounded loader for every YAML or JSON file heedful reads.

Scenario files, engine seed files, engine configs, governance files, results files, hold-out
files and model files all go through :func:`read_document`. Only a regular file is opened
(:func:`heedful.files.open_input`: a named pipe, a device such as ``/dev/zero`` or a directory is
refused by its kind, before it is opened). Before any real work it enforces four limits, so a
hostile or broken file costs bounded time and memory whatever it holds:

* **bytes** — at most ``max_bytes`` are ever read (a ``.gz`` file is limited by its decompressed
  size);
* **nodes** — scalars, lists and mappings *after alias expansion*, counted while the YAML is
  composed (a 600-byte "billion laughs" file is refused after ``max_nodes`` nodes, not expanded);
* **depth** — nesting of lists and mappings, checked while composing (no ``RecursionError``);
* **string length** — the longest scalar or key, in characters.

It also refuses what no heedful file means: invalid UTF-8 (named by its byte offset), non-finite
numbers (``.inf``, ``.nan``, ``NaN``, ``1e999``), integers too long to convert, aliases of their
own anchor (a recursive structure) and keys given twice in one mapping.

Every refusal is an :class:`~heedful.errors.InputError`: one line naming the file, the limit and
how to raise it (an environment variable, ``HEEDFUL_MAX_INPUT_<LIMIT>``; docs/limits.md).
"""

from __future__ import annotations

import gzip
import json
import math
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

from heedful.errors import InputError
from heedful.files import open_input


class _PyEvents(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    """PyYAML's pure-Python event source, for a PyYAML built without libyaml."""

    def __init__(self, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)


try:
    from yaml.cyaml import CParser as _Events  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _Events = _PyEvents  # type: ignore[misc,assignment]

__all__ = [
    "DEFAULT_LIMITS",
    "LIMIT_ENV",
    "RESULTS_LIMITS",
    "InputLimits",
    "decode_utf8",
    "parse_document",
    "read_bounded",
    "read_document",
    "read_stream",
]


@dataclass(frozen=True)
class InputLimits:
    """Bounds on one input file (defaults: :data:`DEFAULT_LIMITS`; docs/limits.md).

    Attributes:
        max_bytes: Most bytes read from the file (decompressed, for ``.gz``).
        max_nodes: Most scalars, lists and mappings after YAML alias expansion.
        max_depth: Deepest nesting of lists and mappings.
        max_string: Longest string (scalar or key), in characters.
    """

    max_bytes: int = 8 * 1024 * 1024
    max_nodes: int = 1_000_000
    max_depth: int = 100
    max_string: int = 1_000_000

    def from_env(self, environ: dict[str, str] | None = None) -> InputLimits:
        """These limits with any ``HEEDFUL_MAX_INPUT_*`` variable of ``environ`` applied.

        Raises:
            InputError: A variable is set to something other than a positive integer.
        """
        env = os.environ if environ is None else environ
        changes: dict[str, int] = {}
        for field, var in LIMIT_ENV.items():
            raw = env.get(var)
            if raw is None or not raw.strip():
                continue
            text = raw.strip().replace("_", "")
            if not text.isdigit() or int(text) < 1:
                raise InputError(f"{var} must be a positive whole number, got {raw!r}")
            changes[field] = int(text)
        return replace(self, **changes) if changes else self


#: The environment variable that raises each limit.
LIMIT_ENV = {
    "max_bytes": "HEEDFUL_MAX_INPUT_BYTES",
    "max_nodes": "HEEDFUL_MAX_INPUT_NODES",
    "max_depth": "HEEDFUL_MAX_INPUT_DEPTH",
    "max_string": "HEEDFUL_MAX_INPUT_STRING",
}

_LIMIT_WHAT = {
    "max_bytes": "bytes",
    "max_nodes": "nodes (after alias expansion)",
    "max_depth": "levels of nesting",
    "max_string": "characters in one string",
}

#: Limits of files people write: scenarios, seeds, configs, governance, hold-out files.
DEFAULT_LIMITS = InputLimits()
#: Limits of files the benchmark writes (results summaries and their trial records).
RESULTS_LIMITS = InputLimits(max_bytes=512 * 1024 * 1024, max_nodes=50_000_000)


def _over(name: str, field: str, limits: InputLimits, found: str = "") -> InputError:
    limit = getattr(limits, field)
    seen = f" ({found})" if found else ""
    return InputError(
        f"more than {limit:,} {_LIMIT_WHAT[field]}{seen}; to allow more, set {LIMIT_ENV[field]}",
        file=name,
    )


def read_bounded(path: str | Path, limits: InputLimits = DEFAULT_LIMITS) -> bytes:
    """The bytes of ``path`` (decompressed if it ends in ``.gz``), at most ``limits.max_bytes``.

    Only a regular file is opened (:func:`heedful.files.open_input`): a named pipe, a device
    (``/dev/zero``) or a directory is refused by its kind, before anything is read.

    Raises:
        InputError: The file cannot be read, is not a regular file, is not gzip when named so,
            or is larger.
    """
    p = Path(path)
    try:
        # open_input refuses a pipe, a device or a directory before opening it (no hang).
        with open_input(p) as raw:
            if p.suffix == ".gz":
                with gzip.GzipFile(fileobj=raw, mode="rb") as fh:
                    data = fh.read(limits.max_bytes + 1)
            else:
                data = raw.read(limits.max_bytes + 1)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=str(p)) from None
    except EOFError:
        raise InputError("cannot read: the gzip stream ends early", file=str(p)) from None
    if len(data) > limits.max_bytes:
        raise _over(str(p), "max_bytes", limits)
    return data


def read_stream(
    stream: IO[bytes], name: str = "<stdin>", limits: InputLimits = DEFAULT_LIMITS
) -> str:
    """Read a binary stream (e.g. ``sys.stdin.buffer``) as UTF-8 text, bounded like a file."""
    data = stream.read(limits.max_bytes + 1)
    if len(data) > limits.max_bytes:
        raise _over(name, "max_bytes", limits)
    return decode_utf8(data, name)


def decode_utf8(data: bytes, name: str) -> str:
    """Strict UTF-8 (a leading BOM is dropped); invalid bytes are refused by their offset."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"not UTF-8 text (byte {exc.start}: {exc.reason}, 0x{data[exc.start]:02x})", file=name
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


def read_document(
    path: str | Path,
    *,
    limits: InputLimits | None = None,
    json_only: bool = False,
) -> Any:
    """Read, bound-check and parse one YAML or JSON file (JSON by a ``.json`` suffix).

    Args:
        path: The file.
        limits: The limits before environment overrides (default :data:`DEFAULT_LIMITS`).
        json_only: Parse as JSON whatever the suffix (governance, results and model files).

    Raises:
        InputError: One line naming the file and what is wrong (a limit names how to raise it).
    """
    bounds = (limits or DEFAULT_LIMITS).from_env()
    p = Path(path)
    text = decode_utf8(read_bounded(p, bounds), str(p))
    suffixes = [s.lower() for s in p.suffixes]
    as_json = json_only or ".json" in suffixes or ".jsonl" in suffixes
    return parse_document(text, str(p), json=as_json, limits=bounds)


def parse_document(
    text: str, name: str, *, json: bool, limits: InputLimits = DEFAULT_LIMITS
) -> Any:
    """Parse text already read (bytes were bounded by the caller) under the other limits."""
    if json:
        return _parse_json(text, name, limits)
    return _parse_yaml(text, name, limits)


# --- JSON -----------------------------------------------------------------------------------


class _Refused(Exception):
    """Raised from a parser hook; carries the message."""


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"{text[:40]} is not a finite number")
    return value


def _no_constant(text: str) -> float:
    raise _Refused(f"{text} is not a finite number")


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"duplicate key {key[:80]!r}")
        out[key] = value
    return out


def _parse_json(text: str, name: str, limits: InputLimits) -> Any:
    # Depth first, by counting brackets outside strings would be exact but slow in Python; the
    # C parser recurses once per level, so a RecursionError is the deep-nesting signal and the
    # walk below checks the limit itself.
    try:
        data = json.loads(
            text,
            object_pairs_hook=_unique_object,
            parse_float=_finite_float,
            parse_constant=_no_constant,
        )
    except RecursionError:
        raise _over(name, "max_depth", limits) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON at line {exc.lineno}: {exc.msg}", file=name) from None
    except _Refused as exc:
        raise InputError(f"invalid JSON: {exc}", file=name) from None
    except ValueError as exc:  # an integer with more digits than Python converts
        raise InputError(f"invalid JSON: {' '.join(str(exc).split())[:200]}", file=name) from None
    _walk_json(data, name, limits)
    return data


def _walk_json(data: Any, name: str, limits: InputLimits) -> None:
    """Count nodes, depth and string lengths of parsed JSON (iterative; JSON has no aliases)."""
    nodes = 0
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        item, depth = stack.pop()
        nodes += 1
        if nodes > limits.max_nodes:
            raise _over(name, "max_nodes", limits)
        if isinstance(item, str):
            if len(item) > limits.max_string:
                raise _over(name, "max_string", limits, f"a string of {len(item):,}")
        elif isinstance(item, dict):
            if depth + 1 > limits.max_depth:
                raise _over(name, "max_depth", limits)
            for key, value in item.items():
                if len(key) > limits.max_string:
                    raise _over(name, "max_string", limits, f"a key of {len(key):,}")
                stack.append((value, depth + 1))
        elif isinstance(item, list):
            if depth + 1 > limits.max_depth:
                raise _over(name, "max_depth", limits)
            stack.extend((value, depth + 1) for value in item)


# --- YAML -----------------------------------------------------------------------------------

_MERGE = "tag:yaml.org,2002:merge"


# libyaml's parser makes the events (C speed: a 2 MB scalar is scanned in 0.1 s, not 7 s);
# PyYAML's Python composer is kept, since its ``compose_node`` is where the limits are counted.
class _BoundedLoader(Composer, _Events, SafeConstructor, Resolver):
    """Safe YAML loading that counts, while composing, what the constructed value will hold.

    ``compose_node`` is PyYAML's one recursion point for every node: each node is counted once
    per place it appears (an alias counts the whole subtree it stands for), nesting is counted on
    the way down, and scalar lengths are checked before any value is built.
    """

    limits: InputLimits = DEFAULT_LIMITS
    file: str = "<memory>"

    def __init__(self, stream: str) -> None:
        _Events.__init__(self, stream)
        Composer.__init__(self)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)
        self._count = 0
        self._depth = 0
        self._sizes: dict[int, int] = {}

    def _add(self, n: int) -> None:
        self._count += n
        if self._count > self.limits.max_nodes:
            raise _over(self.file, "max_nodes", self.limits)

    def compose_node(self, parent: Any, index: Any) -> Any:
        event: Any = self.peek_event()
        mark: Any = event.start_mark
        line = mark.line + 1
        if isinstance(event, yaml.AliasEvent):
            node = super().compose_node(parent, index)
            size = self._sizes.get(id(node))
            if size is None:
                raise yaml.composer.ComposerError(
                    None, None, f"alias *{event.anchor} refers to itself", mark
                )
            self._add(size)
            return node
        if isinstance(event, yaml.ScalarEvent) and len(event.value) > self.limits.max_string:
            raise _over(
                self.file,
                "max_string",
                self.limits,
                f"a string of {len(event.value):,} at line {line}",
            )
        nests = isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent)
        if nests:
            self._depth += 1
            if self._depth > self.limits.max_depth:
                raise _over(
                    self.file,
                    "max_depth",
                    self.limits,
                    f"at line {line}",
                )
        start = self._count
        node = super().compose_node(parent, index)
        if nests:
            self._depth -= 1
        self._add(1)
        self._sizes[id(node)] = self._count - start
        return node

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        # PyYAML keeps the last of a key given twice; a file that does so is a mistake.
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == _MERGE:
                continue  # `<<:` merged keys may be overridden on purpose
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, str | int | float | bool):
                continue  # unhashable keys are reported by the base constructor
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {str(key)[:80]!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep)

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        value = super().construct_yaml_float(node)
        if not math.isfinite(value):
            raise yaml.constructor.ConstructorError(
                None, None, f"{node.value[:40]} is not a finite number", node.start_mark
            )
        return value

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        try:
            return super().construct_yaml_int(node)
        except ValueError:
            raise yaml.constructor.ConstructorError(
                None, None, "an integer with too many digits", node.start_mark
            ) from None


_add_constructor: Any = _BoundedLoader.add_constructor
_add_constructor("tag:yaml.org,2002:float", _BoundedLoader.construct_yaml_float)
_add_constructor("tag:yaml.org,2002:int", _BoundedLoader.construct_yaml_int)


def _parse_yaml(text: str, name: str, limits: InputLimits) -> Any:
    loader_type = type("_Loader", (_BoundedLoader,), {"limits": limits, "file": name})
    loader = loader_type(text)
    try:
        return loader.get_single_data()
    except RecursionError:  # only if max_depth was raised past what Python can recurse
        raise _over(name, "max_depth", limits) from None
    except yaml.YAMLError as exc:
        if "maximum nesting depth" in str(exc):  # libyaml's own bound (1000 levels)
            raise _over(name, "max_depth", limits) from None
        mark = getattr(exc, "problem_mark", None)
        line = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise InputError(f"invalid YAML{line}: {' '.join(problem.split())}", file=name) from None
    finally:
        loader.dispose()
