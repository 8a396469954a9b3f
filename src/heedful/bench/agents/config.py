"""The numbers of the agent protocol, apart from the agent contract so the tool environment can
read them without importing the contract (which names the environment)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DEFAULT_AGENT_CONFIG", "AgentConfig"]


class AgentConfig(BaseModel):
    """Numbers of the agent protocol (SPEC §5.1; the issue's turn limit and validator).

    Attributes:
        max_turns: Model calls per trial; no ``decide`` by then flags the trial ``turn_limit``.
        max_tool_calls_per_turn: Tool calls of one model turn that are executed; the rest get a
            tool error (a model that floods calls cannot run the environment forever).
        max_text_turns: Replies in a row that call no tool before the trial ends
            (``text_only``); each gets a nudge to use the tools.
        validator_max_age_s: Evidence age a state-sensitive belief needs in production mode
            (document 000 §19, ``live_system_state``: 300 s).
        validator_min_authority: Source authority that counts as authoritative for the validator.
        endpoint_down_after: After this many trials in a row in which an agent's endpoint
            answered none of its calls, its remaining trials are recorded ``endpoint_down``
            without calling it (0: never).
    """

    model_config = ConfigDict(frozen=True)

    max_turns: int = Field(default=16, ge=1)
    max_tool_calls_per_turn: int = Field(default=8, ge=1)
    max_text_turns: int = Field(default=2, ge=1)
    validator_max_age_s: float = Field(default=300.0, ge=0.0)
    validator_min_authority: float = Field(default=0.9, ge=0.0, le=1.0)
    endpoint_down_after: int = Field(default=3, ge=0)


DEFAULT_AGENT_CONFIG = AgentConfig()
