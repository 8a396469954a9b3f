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
import ipaddress
import json
import logging
import os
import re
import secrets
import threading
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from pathlib import Path
from typing import Any

from heedful.errors import InputError, InvalidArgumentError
from heedful.files import append_private, check_input_file, check_private, read_input

logger = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_SESSION",
    "TOKEN_ENV",
    "BearerAuth",
    "TokenFile",
    "add_token",
    "ensure_tokens",
    "is_loopback",
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


#: Largest token file read (a token line is under 200 bytes; /dev/zero is refused anyway).
MAX_TOKEN_FILE_BYTES = 1 << 20


def read_tokens(path: str | os.PathLike[str]) -> dict[str, str]:
    """Session name → token, from a token file.

    Refused: what is not a regular file (a pipe, a device, a directory: before it is opened), a
    file group or others can read, one over :data:`MAX_TOKEN_FILE_BYTES`, text that is not
    UTF-8 or not ``NAME TOKEN`` lines.
    """
    p = Path(path)
    try:
        check_input_file(p)
        data = read_input(p, MAX_TOKEN_FILE_BYTES)
    except InputError as exc:
        raise InvalidArgumentError(f"token file {exc}") from None
    try:
        check_private(p, "the token file")
    except InputError as exc:
        raise InvalidArgumentError(str(exc)) from None
    if len(data) > MAX_TOKEN_FILE_BYTES:
        raise InvalidArgumentError(
            f"token file {p} is larger than {MAX_TOKEN_FILE_BYTES:,} bytes; it holds NAME TOKEN "
            "lines"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidArgumentError(f"token file {p} is not UTF-8 text") from None
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


def _signature(path: Path) -> tuple[int, int, int, int] | None:
    """What changes when a file is rewritten, replaced or re-moded (``None``: it is gone)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size, st.st_mode)


class TokenFile:
    """The tokens of a token file, read again whenever the file changes (no restart needed).

    Each request asks :meth:`current`; a ``stat`` tells whether the file changed since it was
    last read (inode, modification time, size or mode). A changed file that is valid replaces
    the tokens — a token added works at once, a token removed is refused at once. A changed
    file that cannot be used (removed, made readable by others, malformed) keeps the tokens
    read before, with one warning on the server's log per change.

    Args:
        path: The token file (read now: a bad file is refused before the server starts).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._seen = _signature(self.path)
        self._tokens = read_tokens(self.path)
        self._lock = threading.Lock()

    def current(self) -> dict[str, str]:
        """The tokens in force now (the file is read again if it changed)."""
        seen = _signature(self.path)
        if seen == self._seen:
            return self._tokens
        with self._lock:
            if seen != self._seen:
                self._seen = seen
                try:
                    self._tokens = read_tokens(self.path)
                    logger.warning(
                        "token file %s changed: %d token(s) now", self.path, len(self._tokens)
                    )
                except InvalidArgumentError as exc:
                    logger.warning(
                        "token file changed but was not used (%s); kept the tokens read before", exc
                    )
        return self._tokens


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or a name) is only reachable from this machine."""
    name = host.strip("[]")
    if name.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


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
    try:
        append_private(p, f"{name} {token}\n")
    except OSError as exc:
        raise InvalidArgumentError(f"cannot write token file {p}: {exc.strerror or exc}") from None
    return token, True


#: The header the MCP streamable HTTP transport names a session by.
SESSION_HEADER = b"mcp-session-id"
#: Where :class:`BearerAuth` leaves the caller's session name in the ASGI scope.
SCOPE_SESSION = "heedful.session"


class BearerAuth:
    """ASGI middleware: every HTTP request needs ``Authorization: Bearer <token>``, and an MCP
    session belongs to the token that opened it.

    A request without a known token gets ``401`` (``WWW-Authenticate: Bearer``) and never
    reaches the MCP app. Tokens are compared in constant time, each against all.

    The ``Mcp-Session-Id`` the app hands out in answer to a token's request is that token's
    session: a request of another token naming it — a ``DELETE`` that would end it, a ``GET``
    that would read its stream, a ``POST`` — gets ``404 Session not found``, the answer to an id
    that does not exist, and never reaches the app. Only its holder can end a session.

    Args:
        app: The MCP Starlette app.
        tokens: Session name → token, or a :class:`TokenFile` (read again when it changes).
    """

    def __init__(self, app: ASGIApp, tokens: Mapping[str, str] | TokenFile) -> None:
        self.app = app
        self._source = tokens if isinstance(tokens, TokenFile) else None
        fixed = {} if isinstance(tokens, TokenFile) else dict(tokens)
        if not (self._source.current() if self._source is not None else fixed):
            raise InvalidArgumentError("the HTTP transport needs at least one token")
        self._fixed = {name: token.encode() for name, token in fixed.items()}
        self._encoded: tuple[Mapping[str, str], dict[str, bytes]] | None = None
        #: MCP session id → the name of the token that opened it.
        self.owners: dict[bytes, str] = {}

    def _tokens(self) -> dict[str, bytes]:
        if self._source is None:
            return self._fixed
        current = self._source.current()
        if self._encoded is None or self._encoded[0] is not current:
            self._encoded = (current, {n: t.encode() for n, t in current.items()})
        return self._encoded[1]

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
        for name, token in self._tokens().items():
            if hmac.compare_digest(given, token):
                found = name
        return found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse a request without a known token, or naming another token's MCP session;
        pass everything else on, noting which token each new session belongs to."""
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers", [])
        header = next((v for k, v in headers if k == b"authorization"), None)
        name = self.session_of(header)
        if name is None:
            await _reply(
                send,
                401,
                {
                    "error": "invalid_token" if header is not None else "unauthorized",
                    "error_description": "send 'Authorization: Bearer <token>'; the server's "
                    "operator has the token (heedful mcp token --db <store>)",
                },
                [(b"www-authenticate", b'Bearer realm="heedful"')],
            )
            return
        asked = next((v for k, v in headers if k == SESSION_HEADER), None)
        if asked is not None and self.owners.get(asked, name) != name:
            logger.warning(
                "refused a %s of session %r's MCP session by %r",
                scope.get("method"),
                self.owners[asked],
                name,
            )
            await _reply(
                send,
                404,
                {
                    "jsonrpc": "2.0",
                    "id": None,
                    "error": {"code": -32600, "message": "Session not found"},
                },
            )
            return
        scope[SCOPE_SESSION] = name
        ending = asked is not None and scope.get("method") == "DELETE"

        async def noting(message: MutableMapping[str, Any]) -> None:
            if message.get("type") == "http.response.start":
                status = int(message.get("status", 0))
                given = next(
                    (v for k, v in message.get("headers", []) if k.lower() == SESSION_HEADER),
                    None,
                )
                if given is not None and status < 400:
                    self.owners.setdefault(bytes(given), name)
                if ending and asked is not None and (status < 300 or status == 404):
                    self.owners.pop(asked, None)
            await send(message)

        await self.app(scope, receive, noting)


async def _reply(
    send: Send,
    status: int,
    body: Mapping[str, Any],
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})
