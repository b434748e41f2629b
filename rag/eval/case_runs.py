"""One evaluation case run through the workflow, recorded in the run history or not, with what the
results table needs to link it: the run's id, the step of its last retrieval, and where the case's
gold was lost in that retrieval (rag.eval.lost_at).

Why recorded through `run_recorded` and not re-run later: the run a person opens from a case row must
be the run that was judged, step for step; a re-run could take another route (a model, a changed
knowledge base). Each case is a new thread of the history marked with the evaluation's id
(`runs.eval_id`); a case answered through `hitl_answer` is two runs, the main run and its resume
(the resume's parent is the main run), and the case links to the resume, whose replay brings the
main run along like the debugger's own timeline.

Why the last retrieval for `lost_at`: it is the evidence the route was decided on (the rewrite's or
the HITL answer's retrieval when there was one), the same evidence `result_sources` scores. A run that
fanned out into sub-questions has no single retrieval in its trace, so it has no `lost_at`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

from rag.eval.cases import EvalCase
from rag.eval.lost_at import GoldIndex, LostAt, lost_at
from rag.retrieval.explain import EXPLAIN_KEY

#: The nodes that run a retrieval (main graph and resume graph).
RETRIEVAL_NODES = ("retrieve_initial", "retrieve_rewritten", "retrieve_targeted")

#: A retrieval's stage (`retrieval_stage`) -> the trace field that keeps the chunks it returned.
STAGE_SNAPSHOTS = {"initial": "initial_retrieved_chunks", "rewritten": "rewrite_retrieved_chunks",
                   "hitl_targeted_retrieval": "hitl_targeted_retrieved_chunks"}


@dataclass(frozen=True)
class CaseRun:
    """What running one case gave: the client's result of its last run, the raw trace of the final
    state (it keeps the retrieval's candidates that the normalized trace drops), and, when recorded,
    the run to open and the step (numbered like the debugger's `?step=`) of its last retrieval."""

    result: dict
    raw_trace: dict
    asked_route: Optional[str] = None
    run_id: Optional[str] = None
    retrieval_step: Optional[int] = None
    degraded: tuple[str, ...] = ()
    """`role: kind` of each model or retriever call the run degraded around (`degraded_calls`)."""


def degraded_calls(state: Mapping[str, Any]) -> tuple[str, ...]:
    """`role: kind` of each failed collaborator call the final state records (rag.degradation), e.g.
    `grader: truncated` or `planner: timeout`: an evaluation against a real model says which calls were
    cut at their cap or ran out of time, not only that the route was wrong."""
    from rag.degradation import run_failures

    return tuple(f"{f.role}: {f.kind}" for f in run_failures(state))


def gold_index_for(retriever: Any) -> Optional[GoldIndex]:
    """The knowledge base's chunks indexed for gold lookups, once per evaluation; None for a retriever
    that keeps no chunk list here (an external vector store): its cases get no `lost_at`."""
    kb = getattr(retriever, "kb", None)
    by_id = getattr(kb, "by_id", None)
    return GoldIndex(by_id.values()) if by_id else None


def case_lost_at(case: EvalCase, raw_trace: Mapping[str, Any], gold: Optional[GoldIndex]) -> Optional[LostAt]:
    """Where the case's gold was lost in the run's last retrieval; None when the case names no gold,
    the knowledge base cannot be read, or the run has no single retrieval (a fan-out)."""
    if gold is None or not (case.expected_passages or case.expected_sources):
        return None
    if EXPLAIN_KEY not in raw_trace:
        return None
    final_ids = [str(d.get("chunk_id")) for d in retrieval_docs(raw_trace) if d.get("chunk_id")]
    return lost_at(gold.resolve(case.expected_passages, case.expected_sources), raw_trace, final_ids)


def retrieval_docs(raw_trace: Mapping[str, Any]) -> list[dict]:
    """The chunks the trace's last retrieval returned, in order: its stage's snapshot (`retrieved_chunks`
    itself is emptied by the grader when the route asks the user instead of answering)."""
    field = STAGE_SNAPSHOTS.get(str(raw_trace.get("retrieval_stage") or ""), "retrieved_chunks")
    docs = raw_trace.get(field)
    return list(docs if docs is not None else raw_trace.get("retrieved_chunks") or [])


def run_plain(case: EvalCase, ctx: Any) -> CaseRun:
    """The case on the checkpoint-less graphs (nothing recorded), the way `rag.api` runs a question,
    keeping the final state's raw trace."""
    from rag.api import _invoke, build_result, initial_state, resume_input, validate_text

    ctx.reset_clock()
    state = _invoke("main", initial_state(validate_text(case.question, what="question",
                                                        limit=ctx.settings.max_question_chars)), ctx)
    result = build_result(state, ctx)
    asked = None
    if case.hitl_answer and result.get("hitl_resume_state"):
        asked = result.get("route")
        ctx.reset_clock()
        state = _invoke("resume", resume_input(result["hitl_resume_state"], case.hitl_answer,
                                               limit=ctx.settings.max_question_chars), ctx)
        result = build_result(state, ctx)
    return CaseRun(dict(result), dict(state.get("rag_trace") or {}), asked, degraded=degraded_calls(state))


def run_in_history(case: EvalCase, ctx: Any, history: Any, eval_id: str, *, run_by: str = "") -> CaseRun:
    """The case recorded in `history` (a RunHistory) as runs marked with `eval_id`. A failure inside
    the graph is recorded as a failed run and raised (the evaluator turns it into the case's error)."""
    from rag.runs.history_writes import run_recorded

    info = run_recorded(history, case.question, ctx=ctx, eval_id=eval_id, run_by=run_by)
    chain = [info]
    asked = None
    snapshot = (info.result or {}).get("hitl_resume_state")
    if case.hitl_answer and snapshot:
        asked = info.route
        info = run_recorded(history, kind="resume", snapshot=snapshot, answer=case.hitl_answer,
                            parent_run_id=info.run_id, ctx=ctx, eval_id=eval_id, run_by=run_by)
        chain.append(info)
    steps = [step_nodes(history, run) for run in chain]
    state = history.graph(info.kind).get_state({"configurable": {"thread_id": info.thread_id}}).values
    return CaseRun(dict(info.result or {}), dict(state.get("rag_trace") or {}), asked, info.run_id,
                   last_retrieval_step(steps), degraded_calls(state))


def step_nodes(history: Any, info: Any) -> list[tuple[str, ...]]:
    """The nodes of each step of a recorded run, as its replay numbers the steps (the replay's own rule,
    `rag_debugger.debugger.replay.steps_from_checkpoints`, over the run's thread)."""
    from rag_debugger.debugger.replay import linear_path, record_thread, steps_from_checkpoints

    recorded = record_thread(history.graph(info.kind), {"configurable": {"thread_id": info.thread_id}})
    return [tuple(s.nodes) for s in steps_from_checkpoints(linear_path(recorded, info.head_checkpoint_id))]


def last_retrieval_step(runs: Sequence[Sequence[Sequence[str]]]) -> Optional[int]:
    """The step (1-based, counted across a chain of runs as the debugger's timeline counts them) of
    the last step that ran a retrieval node; None when no step did. `runs`: each run's steps' nodes,
    oldest run first (a pure rule, tested as a table)."""
    found, before = None, 0
    for steps in runs:
        for i, nodes in enumerate(steps, 1):
            if any(n in RETRIEVAL_NODES for n in nodes):
                found = before + i
        before += len(steps)
    return found


__all__ = ["CaseRun", "RETRIEVAL_NODES", "degraded_calls", "gold_index_for", "case_lost_at", "run_plain", "run_in_history",
           "step_nodes", "last_retrieval_step"]
