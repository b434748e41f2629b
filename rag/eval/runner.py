"""Run evaluation cases through the workflow, one context for all.

Cases run through the public API's graphs (rag.eval.case_runs): plainly, or recorded in a run history
as runs of the evaluation when one is given (the Evaluate page, `--record`).

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
from rag.eval.lost_at import GoldIndex
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
                expected_answer_contains=tuple(case.expected_answer_contains),
                tags=tuple(case.tags), question=case.question, from_run=case.from_run, verdict=case.verdict)


def run_case(case: EvalCase, ctx: RagContext, *, history=None, eval_id: str = "",
             gold: Optional[GoldIndex] = None, run_by: str = "") -> CaseResult:
    """One case on its own context (its progress steps give the per-node times). When the run asks
    and the case carries `hitl_answer`, the answer is given (a resume) and the resumed run is judged.
    With `history` (a RunHistory) the case's runs are recorded there, marked with `eval_id`
    (rag.eval.case_runs). An exception becomes a result with route None and the error text (an
    evaluation reports failures, it does not stop at the first one)."""
    from rag.eval.case_runs import case_lost_at, run_in_history, run_plain

    steps: list[ProgressStep] = []
    ctx = RagContext(settings=ctx.settings, retriever=ctx.retriever, roles=ctx.roles, progress=steps.append)
    started = time.perf_counter()
    try:
        done = (run_in_history(case, ctx, history, eval_id, run_by=run_by) if history is not None
                else run_plain(case, ctx))
    except Exception as exc:  # noqa: BLE001 - recorded per case
        return CaseResult(route=None, error=f"{type(exc).__name__}: {exc}",
                          latency_ms=(time.perf_counter() - started) * 1000, node_ms=_node_ms(steps), **_base(case))
    latency = (time.perf_counter() - started) * 1000
    where = case_lost_at(case, done.raw_trace, gold)
    return CaseResult(route=done.result.get("route"), sources=result_sources(done.result), asked_route=done.asked_route,
                      latency_ms=latency, node_ms=_node_ms(steps), run_id=done.run_id,
                      lost_at=where.stage if where else None, retrieval_step=done.retrieval_step,
                      answer=_answer_text(case, done.result, ctx), degraded=done.degraded, **_base(case))


def _answer_text(case: EvalCase, result: dict, ctx: RagContext) -> Optional[str]:
    """The answer the debugger shows for this run (rag.answering), only for a case that judges it: the
    extractive one offline, the answerer model's when models are connected. None: the run gave none."""
    if not case.expected_answer_contains:
        return None
    from rag.answering import answer_for, model_completer

    complete, model = model_completer(ctx.settings)
    answer = answer_for(result, complete, model)
    return answer.text if answer is not None and answer.text else None


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
              ctx: Optional[RagContext] = None, cache: Optional[CallCache] | bool = True,
              history=None, eval_id: str = "", run_by: str = "") -> list[CaseResult]:
    """Every case, up to `concurrency` at a time; results in the set's order. `on_result` is called
    in the caller's thread as each case finishes (a progress bar, a live table). With `history`, every
    case's run is recorded there as a run of evaluation `eval_id`."""
    from rag.eval.case_runs import gold_index_for

    ctx = ctx or evaluation_context(settings, cache=cache)
    gold = gold_index_for(ctx.retriever) if any(c.expected_sources or c.expected_passages for c in cases) else None
    options = {"history": history, "eval_id": eval_id, "gold": gold, "run_by": run_by}
    cases = list(cases)
    if concurrency <= 1:
        out = []
        for case in cases:
            res = run_case(case, ctx, **options)
            if on_result is not None:
                on_result(res)
            out.append(res)
        return out
    results: dict[int, CaseResult] = {}
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="rag-eval") as pool:
        futures = {pool.submit(run_case, case, ctx, **options): i for i, case in enumerate(cases)}
        for future in as_completed(futures):
            res = future.result()
            results[futures[future]] = res
            if on_result is not None:
                on_result(res)
    return [results[i] for i in range(len(cases))]
