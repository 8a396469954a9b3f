"""Exception types raised by heedful.

Every error a user can cause derives from :class:`HeedfulError`. The CLI and the MCP server turn
these into one clear message (exit code 2 or an MCP tool error); nothing else is caught there.
"""

from __future__ import annotations


class HeedfulError(Exception):
    """Base class of every error heedful raises on purpose."""


class ScenarioError(HeedfulError):
    """A scenario file is malformed or inconsistent.

    Args:
        message: What is wrong.
        file: The file it came from, if any.
        path: The location inside the file, e.g. ``sources[3].accuracy``.
    """

    def __init__(self, message: str, *, file: str | None = None, path: str | None = None) -> None:
        self.file = file
        self.path = path
        self.detail = message
        where = ":".join(p for p in (file, path) if p)
        super().__init__(f"{where}: {message}" if where else message)


class ProblemTooLargeError(HeedfulError):
    """An exact computation would take too long or too much memory; the message says why."""


class UnknownNameError(HeedfulError):
    """An unknown policy, family, source, goal or other registered name was asked for."""


class InvalidArgumentError(HeedfulError):
    """An argument is out of range or inconsistent with the rest of the input."""


class InputError(InvalidArgumentError):
    """An input file or stream is unreadable, malformed or over a limit (heedful.model.documents).

    Args:
        message: What is wrong (a limit names how to raise it).
        file: The file or stream it came from, if any.
    """

    def __init__(self, message: str, *, file: str | None = None) -> None:
        self.file = file
        self.detail = message
        super().__init__(f"{file}: {message}" if file else message)


class StoreError(HeedfulError):
    """The memory store cannot be opened, migrated or written."""


class GovernanceError(HeedfulError):
    """A request exceeds what the governance policy allows (e.g. autonomy above the maximum)."""
