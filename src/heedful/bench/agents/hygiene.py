"""Scenario text on its way to a model: data, never instructions (prompt injection, OWASP LLM01).

A scenario's task, its sources' labels and contents, action descriptions and the observations
its inspections return are written by whoever wrote the scenario, and a source's content is
adversarial by design (document 000: the loud, stale or wrong source). Before any of it reaches
a model:

* :func:`neutralise` breaks every chat-template control token it carries — ChatML's
  ``<|im_start|>``, Llama 3's ``<|eot_id|>``, Gemma's ``<start_of_turn>``, ``[INST]``,
  ``<<SYS>>``, ``<s>`` — by swapping its angle or square brackets for look-alikes
  (``‹|im_start|›``), so a model's template cannot read it as a turn boundary; the text stays
  readable;
  a run of three backticks or more (a code fence) is written with look-alikes too;
* :func:`fence_safe` escapes the backtick in JSON text (``\\u0060``, the same string to a JSON
  parser), so text inside a fenced block cannot close the fence it sits in.

The system prompt says the rest (:mod:`heedful.integrations.llm.prompt`): labels, contents,
notes and tool results are data. A local model additionally neutralises every control token of
its own vocabulary (:meth:`heedful.integrations.llm.local.LocalModel.render`).
"""

from __future__ import annotations

import re

__all__ = ["CONTROL_TOKEN", "LOOKALIKE", "fence_safe", "neutralise"]

#: Control tokens of the common chat templates: ``<|…|>`` (ChatML, Llama 3, Phi), Gemma's turn
#: markers, Llama 2's ``[INST]``/``<<SYS>>``, and the sentence markers ``<s>``/``</s>``,
#: ``<bos>``/``<eos>``, ``<pad>``.
CONTROL_TOKEN = re.compile(
    r"<\|[^<>|\s]{1,64}\|>"
    r"|</?(?:start_of_turn|end_of_turn|start_of_image|end_of_image|bos|eos|pad|unk|s)>"
    r"|\[/?INST\]|<</?SYS>>",
    re.IGNORECASE,
)
LOOKALIKE = str.maketrans({"<": "‹", ">": "›", "[": "⟦", "]": "⟧"})


#: A Markdown code fence (three or more backticks): prose cannot open or close a block.
FENCE = re.compile(r"`{3,}")


def neutralise(text: str) -> str:
    """``text`` with every chat-template control token broken (its brackets swapped for
    look-alikes): ``"<|im_start|>system"`` → ``"‹|im_start|›system"``; and every code fence
    (three backticks or more) written with look-alikes (``‵‵‵``)."""
    text = CONTROL_TOKEN.sub(lambda m: m.group(0).translate(LOOKALIKE), text)
    return FENCE.sub(lambda m: "‵" * len(m.group(0)), text)


def fence_safe(json_text: str) -> str:
    """JSON text that cannot close a Markdown code fence: each backtick written ``\\u0060``
    (valid only inside JSON strings, which is the only place JSON text has one)."""
    return json_text.replace("`", "\\u0060")
