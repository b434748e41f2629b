"""Load what the first question needs before anyone asks it.

A cold process pays ~1–1.5 s on its first question: jieba's dictionary (~0.9 s), the knowledge
base's indexes, the local embedder and the compiled graphs; and its first run to the end another
~0.2 s: the model roles and their prompts, the language's number and duration formats (babel reads
a locale's CLDR data on first use, ~0.1 s each), and the modules that settle a finished run (its
answer, its record in the history, its trace). An app calls `start_warm_up(settings)` right after
its first paint, so that cost is spent while the user reads the page instead of on the first click.
It runs once per settings fingerprint per process, in a daemon thread, and never raises: a failure
here only means the first question loads things itself, as before. The caches it fills are the ones
a run uses (`rag.retrieval.retriever_factory`), which are lock-guarded, so a click that arrives mid-warm-up
waits for the same load instead of doing it twice.
"""
from __future__ import annotations

import importlib
import logging
import threading
from typing import Any, Callable, Optional, Sequence

from rag.settings import RagSettings

log = logging.getLogger(__name__)

_started: set[str] = set()
_lock = threading.Lock()


#: What a run's first move to its end imports that nothing before it did: the answer, the run's record in
#: the history, the OpenTelemetry export (even when off, to find out that it is). tests/house/
#: test_lean_start.py checks that a first demo click and Continue import nothing this list misses.
RUN_MODULES = ("rag.answering", "rag.extractive", "rag.runs.run_document", "rag.telemetry.runs",
               "langchain_core.tracers.context", "langchain_core.tracers.run_collector",
               "langchain_core.tracers.stdout")


def _retrieval(settings: RagSettings, checkpointer: Any) -> None:
    """Open the knowledge base, run one query through both retrieval legs, compile the graphs the
    caller will use (from the registry, so the first run finds them compiled)."""
    from rag.graph.build import compiled_graph
    from rag.retrieval.retriever_factory import get_default_retriever

    retriever = get_default_retriever(settings)
    retriever.search("warm up 预热")  # tokenizer dictionary (CJK and Latin) and the embedder load here
    for kind in ("main", "resume"):
        compiled_graph(kind, checkpointer)


def _roles(settings: RagSettings, checkpointer: Any) -> None:
    """The model roles of the prompts a live run uses (cached by configuration: building them creates
    clients, it calls no model)."""
    from rag.models.factory import get_default_roles
    from rag.prompts import load_prompts

    get_default_roles(settings, load_prompts(settings.prompt_version or "active"))


def _formats(settings: RagSettings, checkpointer: Any) -> None:
    """Every language's number, duration and date formats (the progress lines and the tables use them)."""
    from rag.i18n import use_language
    from rag.i18n.formatting import date_time, duration_ms, number
    from rag.i18n.languages import LANGUAGES

    for lang in LANGUAGES:
        with use_language(lang):
            duration_ms(1)
            duration_ms(1500)
            number(1234.5, 1)
            date_time(0)


WarmStep = Callable[[RagSettings, Any], None]
STEPS: tuple[WarmStep, ...] = (_retrieval, _roles, _formats)


def warm_up(settings: RagSettings, checkpointer: Any = None, modules: Sequence[str] = ()) -> None:
    """Each warm step, then the modules a first run imports (RUN_MODULES and the caller's `modules`).
    A step that fails is logged and skipped: the first question loads what is missing itself."""
    for step in STEPS:
        try:
            step(settings, checkpointer)
        except Exception:  # noqa: BLE001 - the first question will load what is missing and report it
            log.warning("warm-up step %s failed; the first question loads it itself", step.__name__, exc_info=True)
    for name in (*RUN_MODULES, *modules):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - an optional dependency missing: its first use says so
            log.warning("warm-up could not import %s", name, exc_info=True)


def _run(settings: RagSettings, checkpointer: Any, modules: Sequence[str]) -> None:
    try:
        warm_up(settings, checkpointer, modules)
    except Exception:  # noqa: BLE001 - the first question will load what is missing and report it
        log.warning("warm-up failed; the first question loads its resources itself", exc_info=True)


def start_warm_up(settings: RagSettings, checkpointer: Any = None, key: Optional[str] = None,
                  modules: Sequence[str] = ()) -> Optional[threading.Thread]:
    """Warm up in the background once per `key` (default: the knowledge-base and retriever
    settings); `modules`: the caller's own modules its first click imports (names, so that a
    layer below the UI never imports the UI). Returns the thread, or None when that warm-up was
    already started."""
    key = key or repr((settings.retriever_backend, settings.kb_dir, settings.dense_enabled, id(checkpointer)))
    with _lock:
        if key in _started:
            return None
        _started.add(key)
    thread = threading.Thread(target=_run, args=(settings, checkpointer, tuple(modules)), name="rag-warm-up", daemon=True)
    thread.start()
    return thread
