"""The LLM agents under test: ``llm`` and ``llm-advised`` (SPEC §5.1).

Both play a trial as a plain tool-calling chat: the opening messages from
:mod:`~heedful.integrations.llm.prompt`, the environment's tools, then one model call per turn,
each tool call executed by the environment and its reply sent back, until ``decide`` is accepted
or the turn limit is reached. ``llm-advised`` is the same model with the controller beside it
(the extra tool ``attention_next``). Nothing a model sends can crash a trial: an endpoint that
keeps failing, a body without a message, or a call to nothing is recorded as the trial's
``protocol_error`` and the trial ends.
"""

from __future__ import annotations

from typing import Any

from heedful.bench.agents.contract import (
    DEFAULT_AGENT_CONFIG,
    Agent,
    AgentConfig,
    AgentSettings,
    CallStats,
    register_agent,
)
from heedful.bench.agents.env import TrialEnv, tool_schema_hash
from heedful.integrations.llm.client import ChatClient, EndpointError, endpoint_host
from heedful.integrations.llm.prompt import (
    PROMPT_VERSION,
    prompt_template_hash,
    render_messages,
)

__all__ = ["LLMAdvisedAgent", "LLMAgent", "parse_message"]

NUDGE = "Use the tools: call decide(action, beliefs) when you are ready."


def parse_message(response: dict[str, Any]) -> tuple[str | None, list[tuple[str, str, Any]]]:
    """The assistant's text and tool calls ``(id, name, arguments)`` of a chat response.

    Raises:
        ValueError: the response holds no assistant message.
    """
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError("the response has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ValueError("the response has no message")
    content = message.get("content")
    calls: list[tuple[str, str, Any]] = []
    for i, call in enumerate(message.get("tool_calls") or []):
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict):
            raise ValueError(f"tool call {i} has no function")
        calls.append((str(call.get("id") or f"call_{i}"), str(fn.get("name")), fn.get("arguments")))
    return (content if isinstance(content, str) else None), calls


@register_agent("llm")
class LLMAgent(Agent):
    """A model behind an OpenAI-compatible endpoint, deciding on its own.

    Args:
        settings: Model, endpoint, sampling settings and the cache file.
        config: Protocol numbers (turn limit …).
    """

    def __init__(self, settings: AgentSettings, config: AgentConfig = DEFAULT_AGENT_CONFIG) -> None:
        self.settings = settings
        self.config = config
        self.client = ChatClient(settings)

    def describe(self) -> dict[str, Any]:
        """Model, endpoint host, sampling settings, prompt and tool-schema hashes (no key)."""
        s = self.settings
        return {
            "name": self.name,
            "model": s.model,
            "endpoint_host": endpoint_host(s.base_url),
            "temperature": s.temperature,
            "seed": s.seed,
            "max_tokens": s.max_tokens,
            "timeout_s": s.timeout_s,
            "retries": s.retries,
            "max_turns": self.config.max_turns,
            "prompt_version": PROMPT_VERSION,
            "prompt_template_hash": prompt_template_hash(),
            "tool_schema_hash": tool_schema_hash(),
            "cached": s.cache is not None,
        }

    async def play(self, env: TrialEnv) -> CallStats:
        """Run the chat loop on ``env`` (see the module docstring)."""
        stats = CallStats()
        messages = render_messages(env.view, advised=self.advised)
        tools = [t.as_openai() for t in env.tools]
        for _ in range(self.config.max_turns):
            try:
                result = await self.client.chat(messages, tools, env.draw)
            except EndpointError as exc:
                stats.add(exc.stats)
                env.flag(f"endpoint_error: {exc}")
                return stats
            stats.add(result.stats)
            try:
                content, calls = parse_message(result.response)
            except ValueError as exc:
                env.flag(f"bad_response: {exc}")
                return stats
            assistant: dict[str, Any] = {"role": "assistant", "content": content or ""}
            if calls:
                assistant["tool_calls"] = [
                    {
                        "id": cid,
                        "type": "function",
                        "function": {"name": name, "arguments": _as_text(args)},
                    }
                    for cid, name, args in calls
                ]
            messages.append(assistant)
            if not calls:
                messages.append({"role": "user", "content": NUDGE})
                continue
            for i, (cid, name, args) in enumerate(calls):
                if env.done:
                    reply_text = "error: the trial is over"
                elif i >= self.config.max_tool_calls_per_turn:
                    env.flag("too_many_tool_calls")
                    reply_text = "error: too many tool calls in one turn; this one was not run"
                else:
                    reply_text = env.call(name, args).text
                messages.append({"role": "tool", "tool_call_id": cid, "content": reply_text})
            if env.done:
                return stats
        env.flag(f"turn_limit: no accepted decide within {self.config.max_turns} turns")
        return stats

    async def aclose(self) -> None:
        """Close the client."""
        await self.client.aclose()


@register_agent("llm-advised")
class LLMAdvisedAgent(LLMAgent):
    """``llm`` with the attention controller beside it (tool ``attention_next``)."""

    advised = True


def _as_text(args: Any) -> str:
    if isinstance(args, str):
        return args
    import json

    return json.dumps(args)
