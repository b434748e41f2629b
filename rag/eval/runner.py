"""Run evaluation cases through the public API (`rag.api.run_rag_graph`), one context for all.

The knowledge base is chosen by name: "bundled" (the package's demo KB), "pydoc" (the running
Python's language-reference topics, sparse-only unless ingested) or a folder. Everything else
(provider, retriever, top_k ...) comes from the environment like any run, so the same command
measures the offline rules or a configured model.

Each case runs on a context of its own (shared retriever and roles, its own clock and progress
sink), so cases can run in parallel and each keeps its per-node times. Model roles answer from the
disk cache of calls (`rag.models.call_cache`): an unchanged re-run makes no model call.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Callable, Optional, Sequence

from rag.context import RagContext
from rag.eval.cases import EvalCase, EvalSetError
from rag.eval.scoring import CaseResult
from rag.models.call_cache import CallCache, with_call_cache
from rag.schemas import ProgressStep
from rag.settings import RagSettings, load_settings


def kb_dir_for(kb: str) -> Optional[Path]:
    """The folder of knowledge base `kb` ("bundled" -> None, the package's own; "pydoc"; a folder)."""
    if kb == "bundled":
        return None
    if kb == "pydoc":
        from rag.ingest.pydoc_corpus import pydoc_corpus_dir

        return pydoc_corpus_dir()
    folder = Path(kb).expanduser()
    if not folder.is_dir():
        raise EvalSetError(f"--kb {kb!r} is neither 'bundled', 'pydoc' nor a folder")
    return folder


def settings_for_kb(kb: str, **overrides) -> RagSettings:
    """Settings from the environment whose knowledge base is `kb` ("bundled", "pydoc" or a folder)."""
    return load_settings(kb_dir=kb_dir_for(kb), **overrides)


def result_sources(result: dict) -> tuple[str, ...]:
    """The file names of the evidence the route was decided on, in order, once each: the final
    docs, or (clarify / scope_select hand none on) the chunks of the run's last retrieval."""
    trace = result.get("rag_trace") or {}
    docs = (result.get("docs") or trace.get("rewrite_retrieved_chunks") or trace.get("initial_retrieved_chunks")
            or [])
    names = [str(d.get("filename") or "") for d in docs]
    return tuple(dict.fromkeys(n for n in names if n))


def _base(case: EvalCase) -> dict:
    return dict(id=case.id or "", expected_route=case.expected_route, expected_sources=tuple(case.expected_sources),
                tags=tuple(case.tags), question=case.question, from_run=case.from_run, verdict=case.verdict)


def run_case(case: EvalCase, ctx: RagContext) -> CaseResult:
    """One case on its own context (its progress steps give the per-node times). When the run asks
    and the case carries `hitl_answer`, the answer is given through `resume_rag_from_hitl` and the
    resumed run is judged. An exception becomes a result with route None and the error text (an
    evaluation reports failures, it does not stop at the first one)."""
    from rag.api import resume_rag_from_hitl, run_rag_graph

    steps: list[ProgressStep] = []
    ctx = RagContext(settings=ctx.settings, retriever=ctx.retriever, roles=ctx.roles, progress=steps.append)
    started = time.perf_counter()
    asked = None
    try:
        result = run_rag_graph(case.question, ctx)
        if case.hitl_answer and result.get("hitl_resume_state"):
            asked = result.get("route")
            result = resume_rag_from_hitl(result["hitl_resume_state"], case.hitl_answer, ctx)
    except Exception as exc:  # noqa: BLE001 - recorded per case
        return CaseResult(route=None, error=f"{type(exc).__name__}: {exc}", asked_route=asked,
                          latency_ms=(time.perf_counter() - started) * 1000, node_ms=_node_ms(steps), **_base(case))
    return CaseResult(route=result.get("route"), sources=result_sources(result), asked_route=asked,
                      latency_ms=(time.perf_counter() - started) * 1000, node_ms=_node_ms(steps), **_base(case))


def _node_ms(steps: list[ProgressStep]) -> tuple[tuple[str, int], ...]:
    return tuple((s.node, int(s.stage_elapsed_ms)) for s in steps if s.node)


def evaluation_context(settings: RagSettings, *, cache: Optional[CallCache] | bool = True) -> RagContext:
    """The context every case's own context copies: the settings' retriever and roles, the model
    roles answering from the disk cache of calls unless `cache` is False."""
    from rag.api import make_context
    from rag.models.factory import get_default_roles

    roles = get_default_roles(settings)
    if cache is not False:
        roles = with_call_cache(roles, cache if isinstance(cache, CallCache) else None)
    return make_context(settings=settings, roles=roles)


def run_cases(cases: Sequence[EvalCase], settings: RagSettings,
              on_result: Optional[Callable[[CaseResult], None]] = None, *, concurrency: int = 1,
              ctx: Optional[RagContext] = None, cache: Optional[CallCache] | bool = True) -> list[CaseResult]:
    """Every case, up to `concurrency` at a time; results in the set's order. `on_result` is called
    in the caller's thread as each case finishes (a progress bar, a live table)."""
    ctx = ctx or evaluation_context(settings, cache=cache)
    cases = list(cases)
    if concurrency <= 1:
        out = []
        for case in cases:
            res = run_case(case, ctx)
            if on_result is not None:
                on_result(res)
            out.append(res)
        return out
    results: dict[int, CaseResult] = {}
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="rag-eval") as pool:
        futures = {pool.submit(run_case, case, ctx): i for i, case in enumerate(cases)}
        for future in as_completed(futures):
            res = future.result()
            results[futures[future]] = res
            if on_result is not None:
                on_result(res)
    return [results[i] for i in range(len(cases))]
