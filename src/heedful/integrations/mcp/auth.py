"""Bearer tokens for the HTTP transport: who may call the tools, and which session they get.

Tokens live in a file the operator owns (``<db>.mcp-tokens`` by default), one ``NAME TOKEN``
per line; the first start creates it with one token named ``default``, readable by its owner
only (mode 600), and a file others can read is refused. ``heedful mcp token --name NAME`` adds
one. A token can also be given on its own (``--token`` or ``HEEDFUL_MCP_TOKEN``), as the
session ``default``. Each name is a session: its own turn, candidates and, unless the
operator shares the store, its own memory (:class:`~.backend.SessionBackends`).

Nothing here imports ``mcp``: :class:`BearerAuth` is plain ASGI middleware.
"""

from __future__ import annotations

import hmac
import json
import os
import re
import secrets
import stat
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from pathlib import Path
from typing import Any

from heedful.errors import InvalidArgumentError

__all__ = [
    "DEFAULT_SESSION",
    "TOKEN_ENV",
    "BearerAuth",
    "add_token",
    "ensure_tokens",
    "read_tokens",
    "token_file_for",
]

#: Environment variable holding a single token (session ``default``).
TOKEN_ENV = "HEEDFUL_MCP_TOKEN"
#: Session name of the generated token and of a token given by flag or environment.
DEFAULT_SESSION = "default"

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_MIN_TOKEN_CHARS = 16

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def token_file_for(db: str | os.PathLike[str]) -> Path:
    """The default token file of the store at ``db``: ``<db>.mcp-tokens``."""
    return Path(f"{os.fspath(db)}.mcp-tokens")


def check_name(name: str) -> str:
    """A session name: 1–64 letters, digits, ``_`` or ``-`` (it also names a store file)."""
    if not _NAME.match(name):
        raise InvalidArgumentError(f"token name {name!r} must be 1-64 letters, digits, '_' or '-'")
    return name


def check_token(token: str, where: str) -> str:
    """A usable token: at least 16 printable ASCII characters without spaces."""
    if len(token) < _MIN_TOKEN_CHARS or not all(33 <= ord(c) <= 126 for c in token):
        raise InvalidArgumentError(
            f"{where}: a token must be at least {_MIN_TOKEN_CHARS} printable ASCII characters "
            "without spaces"
        )
    return token


def read_tokens(path: str | os.PathLike[str]) -> dict[str, str]:
    """Session name → token, from a token file (refused when group or others can read it)."""
    p = Path(path)
    try:
        mode = p.stat().st_mode
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidArgumentError(f"cannot read token file {p}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InvalidArgumentError(f"token file {p} is not UTF-8 text") from None
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise InvalidArgumentError(
            f"token file {p} can be read by others (mode {stat.S_IMODE(mode):o}); "
            f"run: chmod 600 {p}"
        )
    tokens: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split()
        where = f"{p}:{number}"
        if len(parts) != 2:
            raise InvalidArgumentError(f"{where}: expected 'NAME TOKEN'")
        name, token = check_name(parts[0]), check_token(parts[1], where)
        if name in tokens:
            raise InvalidArgumentError(f"{where}: token name {name!r} appears twice")
        if token in tokens.values():
            raise InvalidArgumentError(f"{where}: the same token appears twice")
        tokens[name] = token
    if not tokens:
        raise InvalidArgumentError(f"token file {p} holds no token")
    return tokens


def _write_private(path: Path, text: str) -> None:
    """Create ``path`` readable by its owner only (fails if it exists)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)


def ensure_tokens(path: str | os.PathLike[str]) -> tuple[dict[str, str], bool]:
    """The tokens of ``path``, creating it with one ``default`` token if it does not exist.

    Returns:
        The tokens and whether the file was created now.
    """
    p = Path(path)
    if p.exists():
        return read_tokens(p), False
    header = (
        "# heedful MCP tokens: NAME TOKEN per line; clients send 'Authorization: Bearer TOKEN'\n"
    )
    try:
        _write_private(p, f"{header}{DEFAULT_SESSION} {secrets.token_urlsafe(32)}\n")
    except OSError as exc:
        raise InvalidArgumentError(f"cannot create token file {p}: {exc.strerror}") from None
    return read_tokens(p), True


def add_token(path: str | os.PathLike[str], name: str) -> tuple[str, bool]:
    """The token of session ``name`` in ``path``, adding one (and the file) if needed.

    Returns:
        The token and whether it was created now.
    """
    check_name(name)
    p = Path(path)
    tokens, _ = ensure_tokens(p)
    if name in tokens:
        return tokens[name], False
    token = secrets.token_urlsafe(32)
    with p.open("a", encoding="utf-8") as fh:
        fh.write(f"{name} {token}\n")
    return token, True


class BearerAuth:
    """ASGI middleware: every HTTP request needs ``Authorization: Bearer <token>``.

    A request without a known token gets ``401`` (``WWW-Authenticate: Bearer``) and never
    reaches the MCP app. Tokens are compared in constant time, each against all.

    Args:
        app: The MCP Starlette app.
        tokens: Session name → token.
    """

    def __init__(self, app: ASGIApp, tokens: Mapping[str, str]) -> None:
        if not tokens:
            raise InvalidArgumentError("the HTTP transport needs at least one token")
        self.app = app
        self._tokens = {name: token.encode() for name, token in tokens.items()}

    def session_of(self, authorization: str | bytes | None) -> str | None:
        """The session whose token an ``Authorization`` header carries, else ``None``."""
        if authorization is None:
            return None
        raw = authorization.encode("latin-1") if isinstance(authorization, str) else authorization
        scheme, _, given = raw.strip().partition(b" ")
        if scheme.lower() != b"bearer" or not given.strip():
            return None
        given = given.strip()
        found = None
        for name, token in self._tokens.items():
            if hmac.compare_digest(given, token):
                found = name
        return found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse an HTTP request without a known token; pass everything else on."""
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        header = next((v for k, v in scope.get("headers", []) if k == b"authorization"), None)
        if self.session_of(header) is not None:
            await self.app(scope, receive, send)
            return
        body = json.dumps(
            {
                "error": "invalid_token" if header is not None else "unauthorized",
                "error_description": "send 'Authorization: Bearer <token>'; the server's "
                "operator has the token (heedful mcp token --db <store>)",
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="heedful"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
