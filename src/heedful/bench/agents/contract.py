"""The contract of an agent under test (SPEC §5.1): an agent gets a view and tools, and decides.

A programmatic :class:`~heedful.bench.Policy` only chooses inspections; the runner then acts
Bayes-optimally for it. An **agent** also chooses the action, so every stage of the failure split
(document 000 §13) can fail. The bench defines the contract here and scores it; the code that
talks to a model lives in :mod:`heedful.integrations.llm` and registers its agents here.

An agent is handed one :class:`~heedful.bench.agents.env.TrialEnv` per trial and drives it
through its tools until ``decide`` (or it gives up); the environment records everything the
scorer needs. Nothing in ``bench`` imports an HTTP client: the built-in agents are registered
lazily, by module name, and a missing optional dependency is one clear error naming the extra
to install (as inspect_ai's provider registry does).
"""

from __future__ import annotations

import importlib
import os
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field, field_validator

from heedful.bench.agents.config import DEFAULT_AGENT_CONFIG, AgentConfig
from heedful.bench.registry import add_named
from heedful.bench.results import AgentUsage
from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.extras import extra_hint

if TYPE_CHECKING:
    from heedful.bench.agents.env import TrialEnv

__all__ = [
    "Agent",
    "AgentConfig",
    "AgentSettings",
    "CallStats",
    "agent_class",
    "agent_names",
    "get_agent",
    "is_agent",
    "register_agent",
]


class AgentSettings(BaseModel):
    """Where and how an agent reaches its model (recorded in the manifest, never the key).

    Attributes:
        model: Model name as the endpoint knows it.
        base_url: OpenAI-compatible endpoint, e.g. ``http://127.0.0.1:11434/v1``.
        api_key_env: Name of the environment variable holding the key (the key itself is read
            when the client starts and never stored); ``None``: no key (local servers).
        temperature: Sampling temperature.
        seed: Sampling seed sent to the endpoint (``None``: not sent).
        max_tokens: Completion tokens per call (sent, and enforced: a reply claiming more
            is refused as ``bad_usage``; text beyond ``max_tokens × 8`` characters is cut).
        timeout_s: Wall-clock deadline of one HTTP request, whole: connect, a slow drip and the
            full body.
        trial_timeout_s: Wall-clock deadline of one trial (``None``: ``timeout_s`` × the turn
            limit); past it the trial ends with ``trial_timeout``.
        max_reply_bytes: Largest reply body read; a larger one ends the trial
            (``reply_too_large``).
        protocol: ``tools`` (native tool calls) or ``json`` (one JSON object per turn, for
            small models; grammar-constrained where the runtime supports it).
        moves: ``legal`` (each turn's tool schemas admit only the moves legal in the trial's
            state), ``all`` (the full tools every turn), or ``auto``: ``legal`` where the
            endpoint enforces the schema — a local model (``local:…``), or ``--protocol json``
            (``response_format``) — and ``all`` for native tool calls elsewhere
            (:attr:`legal_moves`).
        retries: Retries of a call that got 429, a 5xx or a dropped connection.
        timeout_retries: Retries of a call that got no complete reply within ``timeout_s``
            (fewer than ``retries``: a server that accepts and never answers costs
            ``timeout_s`` × (1 + this) per call, and three such trials in a row take the agent's
            endpoint for down).
        backoff_s: First retry delay; doubles each retry, capped by ``backoff_max_s``.
        backoff_max_s: Longest retry delay.
        cache: SQLite response cache file (``None``: no cache).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    base_url: str
    api_key_env: str | None = None
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    seed: int | None = 0
    max_tokens: int = Field(default=1024, ge=1)
    timeout_s: float = Field(default=60.0, gt=0.0)
    trial_timeout_s: float | None = Field(default=None, gt=0.0)
    max_reply_bytes: int = Field(default=2_000_000, ge=1024)
    protocol: Literal["tools", "json"] = "tools"
    moves: Literal["auto", "legal", "all"] = "auto"
    retries: int = Field(default=4, ge=0)
    timeout_retries: int = Field(default=1, ge=0)
    backoff_s: float = Field(default=0.5, ge=0.0)
    backoff_max_s: float = Field(default=20.0, ge=0.0)
    cache: str | None = None

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        parsed = urlparse(value)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"{value!r} is not an http(s) URL such as http://127.0.0.1:11434/v1")
        return value

    @property
    def local(self) -> bool:
        """The model runs in process behind heedful's own loopback endpoint (``local:…``)."""
        return self.model.startswith("local:")

    @property
    def legal_moves(self) -> bool:
        """Whether each turn offers only the legal moves (see ``moves``)."""
        if self.moves != "auto":
            return self.moves == "legal"
        return self.local or self.protocol == "json"

    def check_key(self) -> None:
        """Fail now if a named key variable is unset (the key itself is read by the client).

        Raises:
            InvalidArgumentError: naming the variable.
        """
        if self.api_key_env is not None and not os.environ.get(self.api_key_env):
            raise InvalidArgumentError(
                f"--api-key-env: environment variable {self.api_key_env} is not set"
            )


#: What one agent spent in one trial (calls, cached calls, tokens, latency, errors): the results
#: file's usage record itself, counted into as the trial runs (``stats.calls += 1``, ``add``).
CallStats = AgentUsage


class Agent(ABC):
    """An agent under test: plays one trial at a time through a :class:`TrialEnv`.

    Attributes:
        name: Registered name (set by :func:`register_agent`).
        advised: The environment offers the controller's advice (tool ``attention_next``).
        legal_moves: The environment offers only the moves legal in the trial's state.
    """

    name: ClassVar[str] = ""
    advised: ClassVar[bool] = False

    @property
    def legal_moves(self) -> bool:
        """Its trials offer only the legal moves each turn (``TrialEnv.offered_tools``)."""
        return False

    @abstractmethod
    async def play(self, env: TrialEnv) -> CallStats:
        """Drive ``env`` until it is done (or give up); return what the trial cost.

        Must never raise for anything a model does: a bad response is recorded on the
        environment with :meth:`TrialEnv.flag` and the trial ends.
        """

    def describe(self) -> dict[str, Any]:
        """Manifest fields of this agent (model, endpoint host, sampling, hashes; no secret)."""
        return {"name": self.name}

    async def aclose(self) -> None:
        """Release connections and files (called once after the run)."""
        return None


_AGENTS: dict[str, type[Agent]] = {}
#: Built-in agents and the module that registers them (imported on first use).
_LAZY: dict[str, tuple[str, str]] = {
    "llm": ("heedful.integrations.llm.agent", "llm"),
    "llm-advised": ("heedful.integrations.llm.agent", "llm"),
    "llm-prompted": ("heedful.integrations.llm.agent", "llm"),
}

A = TypeVar("A", bound=type[Agent])


def register_agent(name: str) -> Callable[[A], A]:
    """Class decorator: register an :class:`Agent` subclass under ``name``."""

    def decorate(cls: A) -> A:
        return add_named(_AGENTS, name, cls, "agent")

    return decorate


def is_agent(name: str) -> bool:
    """Whether ``name`` is an agent (registered or built in), not a programmatic policy."""
    return name in _AGENTS or name in _LAZY


def agent_names() -> list[str]:
    """Every agent name, sorted (the built-in ones even when their extra is not installed)."""
    return sorted(set(_AGENTS) | set(_LAZY))


def agent_class(name: str) -> type[Agent]:
    """Return the class of agent ``name``, importing its module on first use.

    Raises:
        UnknownNameError: no such agent.
        InvalidArgumentError: its optional dependency is missing (names the extra to install).
    """
    if name not in _AGENTS and name in _LAZY:
        module, extra = _LAZY[name]
        try:
            importlib.import_module(module)
        except ImportError as exc:
            raise InvalidArgumentError(
                f"agent {name!r} needs the `{extra}` extra ({exc.name or exc} is not installed): "
                f"{extra_hint(extra)}"
            ) from None
    try:
        return _AGENTS[name]
    except KeyError:
        raise UnknownNameError(
            f"unknown agent {name!r}; known agents: {', '.join(agent_names())}"
        ) from None


def get_agent(name: str, settings: AgentSettings, config: AgentConfig | None = None) -> Agent:
    """Build agent ``name`` talking to the endpoint of ``settings``."""
    cls = agent_class(name)
    try:
        return cls(settings, config or DEFAULT_AGENT_CONFIG)  # type: ignore[call-arg]
    except TypeError as exc:
        raise InvalidArgumentError(f"agent {name!r}: {exc}") from None
