"""Run evaluation cases through the public API (`rag.api.run_rag_graph`), one context for all.

The knowledge base is chosen by name: "bundled" (the package's demo KB), "pydoc" (the running
Python's language-reference topics, sparse-only unless ingested) or a folder. Everything else
(provider, retriever, top_k ...) comes from the environment like any run, so the same command
measures the offline rules or a configured model.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable, Optional

from rag.eval.cases import EvalCase
from rag.eval.scoring import CaseResult
from rag.settings import RagSettings, load_settings


def settings_for_kb(kb: str, **overrides) -> RagSettings:
    """Settings whose knowledge base is `kb` ("bundled", "pydoc" or a folder path)."""
    if kb == "bundled":
        return load_settings(kb_dir=None, **overrides)
    if kb == "pydoc":
        from rag.ingest.pydoc_corpus import pydoc_corpus_dir

        return load_settings(kb_dir=pydoc_corpus_dir(), **overrides)
    folder = Path(kb).expanduser()
    if not folder.is_dir():
        raise ValueError(f"--kb {kb!r} is neither 'bundled', 'pydoc' nor a folder")
    return load_settings(kb_dir=folder, **overrides)


def result_sources(result: dict) -> tuple[str, ...]:
    """The file names of the evidence the route was decided on, in order, once each: the final
    docs, or (clarify / scope_select hand none on) the chunks of the run's last retrieval."""
    trace = result.get("rag_trace") or {}
    docs = (result.get("docs") or trace.get("rewrite_retrieved_chunks") or trace.get("initial_retrieved_chunks")
            or [])
    names = [str(d.get("filename") or "") for d in docs]
    return tuple(dict.fromkeys(n for n in names if n))


def run_case(case: EvalCase, ctx) -> CaseResult:
    """One case; an exception becomes a result with route None and the error text (an evaluation
    reports failures, it does not stop at the first one)."""
    from rag.api import run_rag_graph

    base = dict(id=case.id or "", expected_route=case.expected_route, expected_sources=tuple(case.expected_sources),
                tags=tuple(case.tags))
    try:
        result = run_rag_graph(case.question, ctx)
    except Exception as exc:  # noqa: BLE001 - recorded per case
        return CaseResult(route=None, error=f"{type(exc).__name__}: {exc}", **base)
    return CaseResult(route=result.get("route"), sources=result_sources(result), **base)


def run_cases(cases: Iterable[EvalCase], settings: RagSettings,
              on_result: Optional[Callable[[CaseResult], None]] = None) -> list[CaseResult]:
    from rag.api import make_context

    ctx = make_context(settings=settings)
    out = []
    for case in cases:
        res = run_case(case, ctx)
        if on_result is not None:
            on_result(res)
        out.append(res)
    return out
