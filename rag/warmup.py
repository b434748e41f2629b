"""Load what the first question needs before anyone asks it.

A cold process pays ~1–1.5 s on its first question: jieba's dictionary (~0.9 s), the knowledge
base's indexes, the local embedder and the compiled graphs. An app calls `start_warm_up(settings)`
right after its first paint, so that cost is spent while the user reads the page instead of on the
first click. It runs once per settings fingerprint per process, in a daemon thread, and never
raises: a failure here only means the first question loads things itself, as before. The caches it
fills are the ones a run uses (`rag.retrieval.factory`), which are lock-guarded, so a click that
arrives mid-warm-up waits for the same load instead of doing it twice.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Optional

from rag.settings import RagSettings

log = logging.getLogger(__name__)

_started: set[str] = set()
_lock = threading.Lock()


def warm_up(settings: RagSettings, checkpointer: Any = None) -> None:
    """Open the knowledge base, run one query through both retrieval legs, compile the graphs the
    caller will use (from the registry, so the first run finds them compiled)."""
    from rag.graph.build import compiled_graph
    from rag.retrieval.factory import get_default_retriever

    retriever = get_default_retriever(settings)
    retriever.search("warm up 预热")  # tokenizer dictionary (CJK and Latin) and the embedder load here
    for kind in ("main", "resume"):
        compiled_graph(kind, checkpointer)


def _run(settings: RagSettings, checkpointer: Any) -> None:
    try:
        warm_up(settings, checkpointer)
    except Exception:  # noqa: BLE001 - the first question will load what is missing and report it
        log.warning("warm-up failed; the first question loads its resources itself", exc_info=True)


def start_warm_up(settings: RagSettings, checkpointer: Any = None,
                  key: Optional[str] = None) -> Optional[threading.Thread]:
    """Warm up in the background once per `key` (default: the knowledge-base and retriever
    settings). Returns the thread, or None when that warm-up was already started."""
    key = key or repr((settings.retriever_backend, settings.kb_dir, settings.dense_enabled, id(checkpointer)))
    with _lock:
        if key in _started:
            return None
        _started.add(key)
    thread = threading.Thread(target=_run, args=(settings, checkpointer), name="rag-warm-up", daemon=True)
    thread.start()
    return thread
