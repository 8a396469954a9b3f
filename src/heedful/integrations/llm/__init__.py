"""heedful's LLM integration: any OpenAI-compatible endpoint as an agent under test (SPEC §5.1).

Needs the ``llm`` extra (``.venv/bin/pip install -e '.[llm]'`` in a checkout).
Only this package imports an HTTP client (``httpx2``); the bench reaches it through its agent
registry (``llm``, ``llm-advised``).
"""

from __future__ import annotations

from heedful.integrations.llm.agent import LLMAdvisedAgent, LLMAgent, parse_message
from heedful.integrations.llm.cache import ResponseCache, request_key
from heedful.integrations.llm.client import ChatClient, ChatResult, EndpointError, endpoint_host
from heedful.integrations.llm.prompt import prompt_template_hash, render_messages
from heedful.integrations.llm.scripted_play import BEHAVIOURS
from heedful.integrations.llm.scripted_server import ScriptedServer, serve_in_thread

__all__ = [
    "BEHAVIOURS",
    "ChatClient",
    "ChatResult",
    "EndpointError",
    "LLMAdvisedAgent",
    "LLMAgent",
    "ResponseCache",
    "ScriptedServer",
    "endpoint_host",
    "parse_message",
    "prompt_template_hash",
    "render_messages",
    "request_key",
    "serve_in_thread",
]
