"""The LLM agents under test: ``llm``, ``llm-prompted`` and ``llm-advised`` (SPEC §5.1).

Each plays a trial as a plain tool-calling chat: the opening messages from
:mod:`~heedful.integrations.llm.prompt`, the environment's tools, then one model call per turn,
each tool call executed by the environment and its reply sent back, until ``decide`` is accepted
or the turn limit is reached. ``llm-prompted`` is the same model told to inspect authoritative
live sources before state-sensitive decisions (document 000 §21, "prompt only": no controller);
``llm-advised`` is the same model with the controller beside it (the extra tool
``attention_next``).

With legal moves (``AgentSettings.legal_moves``) each turn offers only the moves legal in the
trial's state (:attr:`TrialEnv.offered_tools`): as the request's ``tools`` to an endpoint that
enforces them, or — to heedful's local endpoint, whose prompt lists the tools — the full
``tools`` (a prompt that does not change from turn to turn, so its KV cache is reused) and the
legal ones as ``legal_tools``, which its grammar is built from.

Nothing a model sends can crash a trial: an endpoint that keeps failing, a body without a
message, or a call to nothing is recorded as the trial's ``protocol_error`` and the trial ends.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, ClassVar

from heedful.bench.agents.bounded import json_depth_ok
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
from heedful.integrations.llm.turns import parse_turn, tools_prompt, turn_schema

__all__ = ["LLMAdvisedAgent", "LLMAgent", "LLMPromptedAgent", "parse_message"]

#: A reply's text longer than ``max_tokens`` × this many characters is cut before it is sent
#: back (a token is rarely longer than 8 characters).
CHARS_PER_TOKEN = 8
#: Tool-call arguments echoed back to the model are cut at this many characters.
MAX_ARGUMENT_CHARS = 8192
JSON_NUDGE = 'Answer with one JSON object: {"tool": "<tool name>", "arguments": {...}}.'
NUDGE = "Use the tools: call decide(action, beliefs) when you are ready."


def parse_message(response: dict[str, Any]) -> tuple[str | None, list[tuple[str, str, Any]]]:
    """The assistant's text and tool calls ``(id, name, arguments)`` of a chat response.

    Whatever the types inside, this never raises anything but ValueError: ``tool_calls`` must
    be a list of objects with a ``function`` object whose ``name`` is a string; ``arguments``
    are passed on as sent (the environment refuses anything but a JSON object).

    Raises:
        ValueError: the response holds no assistant message, or its tool calls are malformed.
    """
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ValueError("the response has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ValueError("the response has no message")
    content = message.get("content")
    raw_calls = message.get("tool_calls")
    if raw_calls is None:
        raw_calls = []
    if not isinstance(raw_calls, list):
        raise ValueError(f"tool_calls is a {type(raw_calls).__name__}, not a list")
    calls: list[tuple[str, str, Any]] = []
    for i, call in enumerate(raw_calls):
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict):
            raise ValueError(f"tool call {i} has no function")
        name = fn.get("name")
        if not isinstance(name, str):
            raise ValueError(f"tool call {i} has no function name")
        cid = call.get("id")
        cid = cid[:64] if isinstance(cid, str) and cid else f"call_{i}"
        calls.append((cid, name[:64], fn.get("arguments")))
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

    #: The system prompt asks it to inspect authoritative live sources (``llm-prompted``).
    prompted: ClassVar[bool] = False

    @property
    def legal_moves(self) -> bool:
        """Its trials offer only the legal moves (``AgentSettings.legal_moves``)."""
        return self.settings.legal_moves

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
            "protocol": s.protocol,
            "moves": "legal" if s.legal_moves else "all",
            "prompt_version": PROMPT_VERSION,
            "prompt_template_hash": prompt_template_hash(),
            "tool_schema_hash": tool_schema_hash(),
            "cached": s.cache is not None,
        }

    async def play(self, env: TrialEnv) -> CallStats:
        """Run the chat loop on ``env`` (see the module docstring) within the trial deadline."""
        stats = CallStats()
        s = self.settings
        deadline = s.trial_timeout_s or s.timeout_s * self.config.max_turns
        try:
            async with asyncio.timeout(deadline):
                await self._loop(env, stats)
        except TimeoutError:
            env.flag(f"trial_timeout: the trial passed its deadline of {deadline:g} s")
        return stats

    async def _loop(self, env: TrialEnv, stats: CallStats) -> None:
        if self.settings.protocol == "json":
            await self._json_loop(env, stats)
            return
        messages = self._opening(env)
        max_chars = self.settings.max_tokens * CHARS_PER_TOKEN
        for _ in range(self.config.max_turns):
            # Read every turn: a read that reveals a hidden source adds its id to the enums, and
            # with legal moves the state decides what is offered.
            tools, extra = self._tools(env)
            try:
                result = await self.client.chat(messages, tools, env.draw, extra=extra)
            except EndpointError as exc:
                stats.add(exc.stats)
                env.flag(f"{exc.code}: {exc}")
                return
            stats.add(result.stats)
            try:
                content, calls = parse_message(result.response)
            except ValueError as exc:
                env.flag(f"bad_response: {exc}")
                return
            if content is not None and len(content) > max_chars:
                env.flag(f"reply_truncated: {len(content):,} characters cut to {max_chars:,}")
                content = content[:max_chars]
            limit = self.config.max_tool_calls_per_turn
            if len(calls) > limit:
                env.flag(f"too_many_tool_calls: {len(calls)} in one turn; the first {limit} ran")
                calls = calls[:limit]
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
                env.text_only_turn()
                if env.done:
                    return
                messages.append({"role": "user", "content": NUDGE})
                continue
            for cid, name, args in calls:
                reply_text = "error: the trial is over" if env.done else env.call(name, args).text
                messages.append({"role": "tool", "tool_call_id": cid, "content": reply_text})
            if env.done:
                return
        env.flag(f"turn_limit: no accepted decide within {self.config.max_turns} turns")

    async def _json_loop(self, env: TrialEnv, stats: CallStats) -> None:
        """``--protocol json``: one JSON object per turn, constrained by the schema of the
        trial's real tools (docs/llm.md); no native tool calls."""
        messages = self._opening(env)
        messages[0] = {
            **messages[0],
            "content": messages[0]["content"] + "\n\n" + tools_prompt(_openai(env)),
        }
        max_chars = self.settings.max_tokens * CHARS_PER_TOKEN
        for _ in range(self.config.max_turns):
            # Built every turn from the trial's tools as they are now: once a read reveals a
            # hidden source, the schema (and a grammar built from it) admits its id; with legal
            # moves it admits only the moves legal now.
            offered = [t.as_openai() for t in env.offered_tools]
            fmt = {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "turn", "schema": turn_schema(offered)},
                }
            }
            try:
                result = await self.client.chat(messages, [], env.draw, extra=fmt)
            except EndpointError as exc:
                stats.add(exc.stats)
                env.flag(f"{exc.code}: {exc}")
                return
            stats.add(result.stats)
            try:
                content, _ = parse_message(result.response)
            except ValueError as exc:
                env.flag(f"bad_response: {exc}")
                return
            text = (content or "")[:max_chars]
            messages.append({"role": "assistant", "content": text})
            turn = parse_turn(text)
            if turn is None:
                env.flag(f"malformed_output: not one JSON turn object: {text[:60]!r}")
                env.text_only_turn()
                if env.done:
                    return
                messages.append({"role": "user", "content": JSON_NUDGE})
                continue
            name, args = turn
            reply = env.call(name, args)
            messages.append({"role": "user", "content": f"Result of {name}:\n{reply.text}"})
            if env.done:
                return
        env.flag(f"turn_limit: no accepted decide within {self.config.max_turns} turns")

    def _opening(self, env: TrialEnv) -> list[dict[str, Any]]:
        """The opening messages, on the view in the trial's order."""
        return render_messages(env.prompt_view, advised=self.advised, prompted=self.prompted)

    def _tools(self, env: TrialEnv) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """This turn's ``tools`` and any extra request field (module docstring)."""
        if not self.legal_moves:
            return _openai(env), None
        offered = [t.as_openai() for t in env.offered_tools]
        if self.settings.local:
            return _openai(env), {"legal_tools": offered}
        return offered, None

    async def aclose(self) -> None:
        """Close the client."""
        await self.client.aclose()


@register_agent("llm-prompted")
class LLMPromptedAgent(LLMAgent):
    """``llm`` told to inspect authoritative live sources before a state-sensitive decision
    (document 000 §21, "prompt only"): the verbal instruction, no controller."""

    prompted = True


@register_agent("llm-advised")
class LLMAdvisedAgent(LLMAgent):
    """``llm`` with the attention controller beside it (tool ``attention_next``)."""

    advised = True


def _openai(env: TrialEnv) -> list[dict[str, Any]]:
    """The trial's tools as they are now, in the OpenAI format."""
    return [t.as_openai() for t in env.tools]


def _as_text(args: Any) -> str:
    """Tool-call arguments as the text echoed back to the model (long text is cut: it is what
    the model sent, and it is resent on every later turn)."""
    if isinstance(args, str):
        return args[:MAX_ARGUMENT_CHARS]
    if not json_depth_ok(args):
        return "{}"
    return json.dumps(args)[:MAX_ARGUMENT_CHARS]
