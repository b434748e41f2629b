"""The graph's nodes (docs/workflow.md §3). Each node returns only the fields it changes, so the debugger's
state diff after a step is exactly what that step decided.

Collaborators come from LangGraph's runtime context (`Runtime[RagContext]`); the state holds only
JSON. Every model call degrades to a defined route instead of raising (workflow §4).
"""
from __future__ import annotations

import logging
from typing import Any, Literal, Optional, cast

from langgraph.runtime import Runtime
from langgraph.types import Send

from rag.context import RagContext
from rag.graph import progress_labels as P
from rag.models.base import GraderInput, PlannerInput, RewriterInput
from rag.models.calls import CallCancelled
from rag.retrieval.retriever import corpus_stats_of
from rag.rules.evidence import docs_after_grading, format_docs, trace_chunks_after_grading
from rag.rules.fast_path import fast_path_config, fast_path_reason
from rag.rules.hitl import default_hitl_prompt, is_chinese, refined_question_for_hitl
from rag.rules.routing import grade_for_no_docs, grade_unavailable, is_hitl_route, resolve_route, retrieval_status_for_route
from rag.rules.synthesis import synthesize, unique_texts
from rag.schemas import MAX_SUB_QUESTIONS, ComplexityResult, EvidenceGrade, RAGState, RewritePlan
from rag.trace import normalize_rag_sub_trace

log = logging.getLogger(__name__)

TOOL_NAME = "search_knowledge_base"


def _error_kind(exc: BaseException) -> str:
    return getattr(exc, "kind", None) or type(exc).__name__


def _error_text(exc: BaseException) -> str:
    """Short, one-line error text for the trace and the UI (model errors never carry keys)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{_error_kind(exc)}: {text[:300]}" if text else _error_kind(exc)


def _group(state: RAGState) -> dict[str, Any]:
    return {"group": state.get("step_group"), "group_label": state.get("step_group_label")}


# --------------------------------------------------------------------------------------------
# 1. complexity
# --------------------------------------------------------------------------------------------

def classify_complexity(state: RAGState, runtime: Runtime[RagContext]) -> dict:
    """Entry node: a local fast path for obviously simple questions, else the planning model.
    A planner failure falls back to the simple chain (one retrieval still helps the user)."""
    ctx = runtime.context
    question = state["question"]
    reason = fast_path_reason(question, fast_path_config(ctx.settings.fast_path_extra))
    if reason:
        ctx.emit("🧭", P.COMPLEXITY_FAST_PATH, reason, node="classify_complexity")
        return {"complexity": "simple", "complexity_reason": reason, "sub_questions": []}
    try:
        raw = ctx.roles.planner.invoke(PlannerInput(question=question))
        plan = ComplexityResult.model_validate(raw if isinstance(raw, dict) else raw.model_dump())
        limit = ctx.settings.max_question_chars
        if any(len(q) > limit for q in plan.sub_questions):  # a sub-question is searched and graded like a question
            raise ValueError(f"a sub-question is longer than {limit:,} characters (RAG_MAX_QUESTION_CHARS)")
    except CallCancelled:  # Stop: the step did not happen (no degradation, no route)
        raise
    except Exception as exc:  # noqa: BLE001 - any planner failure degrades to simple
        log.warning("planner failed: %s", _error_kind(exc))
        reason = f"planner_unavailable:{_error_text(exc)}"
        ctx.emit("⚠️", P.PLANNER_UNAVAILABLE, reason, node="classify_complexity")
        return {"complexity": "simple", "complexity_reason": reason, "sub_questions": []}
    subs = unique_texts(plan.sub_questions)[:MAX_SUB_QUESTIONS] if plan.complexity == "complex" else []
    if plan.complexity == "complex" and not subs:
        reason = f"{plan.complexity_reason} (complex_without_sub_questions: simple chain)".strip()
        ctx.emit("🧭", P.COMPLEXITY.format(complexity="simple"), reason, node="classify_complexity")
        return {"complexity": "simple", "complexity_reason": reason, "sub_questions": []}
    label = (P.COMPLEXITY_SPLIT.format(complexity=plan.complexity, n=len(subs)) if subs
             else P.COMPLEXITY.format(complexity=plan.complexity))
    ctx.emit("🧭", label, plan.complexity_reason, node="classify_complexity")
    return {"complexity": plan.complexity, "complexity_reason": plan.complexity_reason, "sub_questions": subs}


def route_after_complexity(state: RAGState) -> Literal["retrieve_initial", "prepare_sub_questions"]:
    return "prepare_sub_questions" if state.get("complexity") == "complex" and state.get("sub_questions") else "retrieve_initial"


# --------------------------------------------------------------------------------------------
# 2. retrieval
# --------------------------------------------------------------------------------------------

def search_knowledge_base(ctx: RagContext, query: str) -> tuple[list[dict], dict, Optional[str]]:
    """Call the retrieval seam. A failing retriever is recorded, not raised: the run goes on with
    no evidence (and so ends in no_knowledge), and the error is visible in the trace."""
    try:
        result = ctx.retriever.search(query)
    except Exception as exc:  # noqa: BLE001 - a retriever failure must not crash the run
        log.warning("retriever failed: %s", _error_kind(exc))
        return [], {"retrieval_mode": "failed", "retrieval_pipeline": "recall_merge_rerank"}, _error_text(exc)
    docs = [c.model_dump() for c in result.chunks]
    return docs, dict(result.trace_fields), None


def _retrieval_update(
    state: RAGState, ctx: RagContext, *, query: str, stage: str, trace: dict, snapshot_field: Optional[str],
    node: str,
) -> dict:
    docs, fields, error = search_knowledge_base(ctx, query)
    trace = dict(trace)
    trace.update(fields)
    trace["retrieval_stage"] = stage
    trace["retrieval_backend"] = getattr(ctx.retriever, "name", type(ctx.retriever).__name__)  # raw-only key
    trace["retrieved_chunks"] = docs
    trace["retrieval_empty"] = not docs
    if snapshot_field:
        trace[snapshot_field] = docs
    if error:
        trace["retrieval_error"] = error
    elif not fields.get("retrieval_error"):
        trace.pop("retrieval_error", None)  # a stale error of an earlier retrieval
    mode = fields.get("retrieval_mode", "?")
    detail = (P.RETRIEVAL_DETAIL_ERROR.format(n=len(docs), mode=mode, error=error) if error
              else P.RETRIEVAL_DETAIL.format(n=len(docs), mode=mode))
    ctx.emit("🔎", P.RETRIEVAL.format(stage=stage), detail, node=node, **_group(state))
    return {"docs": docs, "context": format_docs(docs), "rag_trace": trace}


def _initial_trace(state: RAGState) -> dict:
    return {
        "tool_used": True,
        "tool_name": TOOL_NAME,
        "query": state["question"],
        "complexity": state.get("complexity"),
        "complexity_reason": state.get("complexity_reason"),
    }


def retrieve_initial(state: RAGState, runtime: Runtime[RagContext]) -> dict:
    """First retrieval with the question; starts the trace (no route or grade yet)."""
    update = _retrieval_update(
        state, runtime.context, query=state["question"], stage="initial", trace=_initial_trace(state),
        snapshot_field="initial_retrieved_chunks", node="retrieve_initial",
    )
    update["query"] = state["question"]
    return update


def retrieve_rewritten(state: RAGState, runtime: Runtime[RagContext]) -> dict:
    """Second retrieval with the rewritten query; the trace's `query` stays the original question."""
    return _retrieval_update(
        state, runtime.context, query=state.get("query") or state["question"], stage="rewritten",
        trace=state.get("rag_trace") or _initial_trace(state), snapshot_field="rewrite_retrieved_chunks",
        node="retrieve_rewritten",
    )


# --------------------------------------------------------------------------------------------
# 3-6. grading and route correction
# --------------------------------------------------------------------------------------------

def _call_grader(state: RAGState, ctx: RagContext) -> tuple[EvidenceGrade, Optional[str]]:
    docs = state.get("docs") or []
    if not docs:
        return grade_for_no_docs(), None
    try:
        raw = ctx.roles.grader.invoke(
            GraderInput(
                question=state["question"], context=state.get("context") or format_docs(docs), docs=docs,
                is_sub_agent=bool(state.get("is_sub_agent")), rewrite_count=int(state.get("rewrite_count") or 0),
                corpus=corpus_stats_of(ctx.retriever, state["question"], [d.get("chunk_id") for d in docs])
                if ctx.roles.grader_uses_corpus_stats else None,
            )
        )
        return EvidenceGrade.model_validate(raw if isinstance(raw, dict) else raw.model_dump()), None
    except CallCancelled:  # Stop: the step did not happen (no degradation, no route)
        raise
    except Exception as exc:  # noqa: BLE001 - the grader fails closed
        log.warning("grader failed: %s", _error_kind(exc))
        return grade_unavailable(), _error_text(exc)


def grade_update(state: RAGState, ctx: RagContext, *, node: str = "grade_documents") -> dict:
    """Grade, correct the route, and write grade / route / status / HITL fields to state and trace."""
    grade, error = _call_grader(state, ctx)
    docs = state.get("docs") or []
    route = resolve_route(
        grade, has_docs=bool(docs), is_sub_agent=bool(state.get("is_sub_agent")),
        rewrite_count=int(state.get("rewrite_count") or 0),
    )
    status = retrieval_status_for_route(route, grade.answerability)
    hitl = is_hitl_route(route)
    prompt = default_hitl_prompt(
        route, question=state["question"], model_prompt=grade.hitl_prompt, options=grade.hitl_options,
        missing_slots=grade.missing_slots,
    ) if hitl else ""
    trace = dict(state.get("rag_trace") or {})
    trace.update(
        route=route,
        retrieval_status=status,
        evidence_relevance=grade.relevance,
        evidence_answerability=grade.answerability,
        evidence_ambiguity=grade.ambiguity,
        evidence_confidence=grade.confidence,
        evidence_reason=grade.reason,
        missing_slots=list(grade.missing_slots),
        hitl_prompt=prompt,
        hitl_options=list(grade.hitl_options),  # on every route, as the reference keeps them
    )
    if "retrieved_chunks" in trace:
        trace["retrieved_chunks"] = trace_chunks_after_grading(route, trace["retrieved_chunks"])
    if error:
        trace["grading_error"] = error
    else:
        trace.pop("grading_error", None)
    kept = docs_after_grading(route, docs)
    icon = {"answer": "✅", "rewrite": "✏️", "clarify": "🙋", "scope_select": "🔀", "no_knowledge": "🚫"}[route]
    detail = f"{grade.relevance}/{grade.answerability}/{grade.ambiguity} — {grade.reason}"
    if error:
        detail += f" ({error})"
    ctx.emit(icon, P.GRADE.format(route=route), detail, node=node, **_group(state))
    update: dict[str, Any] = {
        "grade": grade.model_dump(),
        "route": route,
        "retrieval_status": status,
        "rag_trace": trace,
    }
    if kept != docs:
        update["docs"] = kept
        update["context"] = format_docs(kept)
    return update


def grade_documents(state: RAGState, runtime: Runtime[RagContext]) -> dict:
    """Grade the evidence and decide the route (the model proposes, the rules decide)."""
    return grade_update(state, runtime.context)


def route_after_grade(state: RAGState) -> Literal["rewrite_question", "__end__"]:
    return "rewrite_question" if state.get("route") == "rewrite" else "__end__"  # END, spelled as the Literal


# --------------------------------------------------------------------------------------------
# 7. rewrite
# --------------------------------------------------------------------------------------------

def combined_query(question: str, plan: RewritePlan) -> str:
    """Original question, a blank line, then the labelled step-back question or HyDE passage."""
    zh = is_chinese(question)
    if plan.method == "step_back":
        label = "退一步问题：" if zh else "Step-back question: "
        return f"{question}\n\n{label}{plan.step_back_question}"
    label = "假设性回答：" if zh else "Hypothetical answer: "
    return f"{question}\n\n{label}{plan.hyde_document}"


def _no_knowledge_update(state: RAGState, trace: dict, extra: dict) -> dict:
    """End the run in no_knowledge from the rewrite node. The grade's fields stay as graded
    (`hitl_options` too); `extra` says why, in protocol fields and raw-only keys."""
    trace = dict(trace)
    trace.update(route="no_knowledge", retrieval_status="no_knowledge", hitl_prompt="", **extra)
    return {"route": "no_knowledge", "retrieval_status": "no_knowledge", "docs": [], "context": "", "rag_trace": trace}


def rewrite_question(state: RAGState, runtime: Runtime[RagContext]) -> dict:
    """At most one rewrite per run. Without budget, or when the rewriter fails, the run ends in
    no_knowledge (the budget rule), with the reason in the trace."""
    ctx = runtime.context
    count = int(state.get("rewrite_count") or 0)
    trace = dict(state.get("rag_trace") or {})
    if count >= 1:
        ctx.emit("🚫", P.REWRITE_BUDGET_SPENT, P.NO_SECOND_REWRITE, node="rewrite_question")
        return _no_knowledge_update(state, trace, {})
    count += 1
    grade = state.get("grade") or {}
    try:
        raw = ctx.roles.rewriter.invoke(
            RewriterInput(
                question=state["question"], context=state.get("context") or "", docs=state.get("docs") or [],
                grade_reason=grade.get("reason", ""),
            )
        )
        plan = RewritePlan.model_validate(raw if isinstance(raw, dict) else raw.model_dump())
    except CallCancelled:  # Stop: the step did not happen (no degradation, no route)
        raise
    except Exception as exc:  # noqa: BLE001 - rewriter failure ends the rewrite
        log.warning("rewriter failed: %s", _error_kind(exc))
        error = _error_text(exc)
        ctx.emit("⚠️", P.REWRITER_UNAVAILABLE.format(route="no_knowledge"), error, node="rewrite_question")
        # The reason goes to `evidence_reason` too: a client that sees only the 59 protocol fields must
        # tell "the rewriter failed" from "the evidence was graded no_knowledge".
        update = _no_knowledge_update(state, trace, {
            "evidence_reason": f"rewrite_unavailable:{error}", "rewrite_error": error, "rewrite_count": count,
        })
        update["rewrite_count"] = count
        return update
    query = combined_query(state["question"], plan)
    trace.update(rewrite_method=plan.method, rewritten_query=query, rewrite_count=count)
    if plan.method == "step_back":
        trace["step_back_question"] = plan.step_back_question
    else:
        trace["hyde_document"] = plan.hyde_document
    ctx.emit("✏️", P.REWRITE.format(method=plan.method), plan.step_back_question or (plan.hyde_document or "")[:160],
             node="rewrite_question")
    return {"rewrite_count": count, "query": query, "rag_trace": trace}


def route_after_rewrite(state: RAGState) -> Literal["retrieve_rewritten", "__end__"]:
    return "__end__" if state.get("route") == "no_knowledge" else "retrieve_rewritten"  # "__end__" is END


# --------------------------------------------------------------------------------------------
# 9-10. complex chain
# --------------------------------------------------------------------------------------------

def prepare_sub_questions(state: RAGState, runtime: Runtime[RagContext]) -> dict:
    """Show the planned sub-questions, one progress step each; the parent trace stays absent."""
    ctx = runtime.context
    subs = state.get("sub_questions") or []
    for i, sub in enumerate(subs, start=1):
        ctx.emit("🧩", P.SUB_QUESTION.format(i=i, n=len(subs)), sub, group=f"sub-{i}", group_label=sub,
                 node="prepare_sub_questions")
    return {}


def fanout_sub_questions(state: RAGState) -> list[Send]:
    """One `Send` per sub-question, each with a fresh state (no complexity, no trace)."""
    return [
        Send(
            "rag_sub_agent",
            {
                "question": sub,
                "query": sub,
                "docs": [],
                "context": "",
                "is_sub_agent": True,
                "rewrite_count": 0,
                "complexity": None,
                "complexity_reason": None,
                "rag_trace": None,
                "step_group": f"sub-{i}",
                "step_group_label": sub,
            },
        )
        for i, sub in enumerate(state.get("sub_questions") or [], start=1)
    ]


def rag_sub_agent(state: RAGState, runtime: Runtime[RagContext]) -> dict:
    """One sub-question: retrieval and grading as functions (not graph nodes), one sub-result out."""
    ctx = runtime.context
    work: dict[str, Any] = dict(state)
    work.update(_retrieval_update(
        cast(RAGState, work), ctx, query=work["question"], stage="initial", trace=_initial_trace(cast(RAGState, work)),
        snapshot_field="initial_retrieved_chunks", node="rag_sub_agent",
    ))
    work.update(grade_update(cast(RAGState, work), ctx, node="rag_sub_agent"))
    return {
        "sub_results": [
            {
                "question": work["question"],
                "docs": work.get("docs") or [],
                "route": work["route"],
                "retrieval_status": work["retrieval_status"],
                "rag_trace": work["rag_trace"],
            }
        ]
    }


def synthesis(state: RAGState, runtime: Runtime[RagContext]) -> dict:
    """Merge usable sub-evidence (no grading model call) and write the parent trace."""
    ctx = runtime.context
    results = state.get("sub_results") or []
    outcome = synthesize(results)
    if is_hitl_route(outcome["route"]) and not outcome["hitl_prompt"]:
        outcome["hitl_prompt"] = default_hitl_prompt(
            outcome["route"], question=state["question"], options=outcome["hitl_options"],
        )
    docs = outcome["docs"]
    trace = {
        "tool_used": True,
        "tool_name": TOOL_NAME,
        "query": state["question"],
        "complexity": "complex",
        "complexity_reason": state.get("complexity_reason"),
        "sub_questions": list(state.get("sub_questions") or []),
        "retrieval_stage": "synthesis",
        "retrieved_chunks": docs,
        "sub_agent_count": len(results),
        "synthesis_merged_count": outcome["merged_count"],
        "sub_traces": [t for t in (normalize_rag_sub_trace(r.get("rag_trace")) for r in results) if t is not None],
        "evidence_confidence": None,
        "route": outcome["route"],
        "retrieval_status": outcome["retrieval_status"],
        "evidence_relevance": outcome["relevance"],
        "evidence_answerability": outcome["answerability"],
        "hitl_prompt": outcome["hitl_prompt"],
        "hitl_options": outcome["hitl_options"],
    }
    ctx.emit("🔀", P.SYNTHESIS.format(route=outcome["route"]),
             P.SYNTHESIS_DETAIL.format(docs=len(docs), results=len(results), merged=outcome["merged_count"]),
             node="synthesis")
    return {
        "docs": docs,
        "context": format_docs(docs),
        "route": outcome["route"],
        "retrieval_status": outcome["retrieval_status"],
        "rag_trace": trace,
    }


# --------------------------------------------------------------------------------------------
# 13. HITL resume (a graph of its own, so the debugger can step it)
# --------------------------------------------------------------------------------------------

def restore_from_snapshot(state: RAGState, runtime: Runtime[RagContext]) -> dict:
    """Rebuild the retrieval state from the validated snapshot and the user's answer."""
    ctx = runtime.context
    snap = state["hitl_snapshot"]
    assert snap is not None, "the resume graph starts from a snapshot that rag.api validated"
    answer = state.get("hitl_answer") or ""
    question = refined_question_for_hitl(snap["question"], answer)
    trace: dict[str, Any] = {
        "tool_used": True,
        "tool_name": TOOL_NAME,
        "query": question,
        "hitl_resumed": True,
        "hitl_answer": answer,
        "hitl_resume_from_route": snap["route"],
        "hitl_resume_from_status": snap["retrieval_status"],
    }
    for key in ("complexity", "complexity_reason", "sub_questions"):
        if snap.get(key):
            trace[key] = snap[key]
    ctx.emit("🙋", P.RESUME, P.RESUME_DETAIL.format(route=snap["route"], answer=answer), node="restore_from_snapshot")
    return {
        "question": question,
        "query": question,
        "docs": [],
        "context": "",
        "rewrite_count": int(snap.get("rewrite_count") or 0),
        "complexity": snap.get("complexity"),
        "complexity_reason": snap.get("complexity_reason"),
        "sub_questions": list(snap.get("sub_questions") or []),
        "is_sub_agent": False,
        "rag_trace": trace,
    }


def retrieve_targeted(state: RAGState, runtime: Runtime[RagContext]) -> dict:
    """Targeted retrieval with the merged question; never re-classify, fan out or synthesize."""
    trace = dict(state.get("rag_trace") or {})
    trace["hitl_resume_strategy"] = "targeted_retrieval"
    return _retrieval_update(
        state, runtime.context, query=state["question"], stage="hitl_targeted_retrieval", trace=trace,
        snapshot_field="hitl_targeted_retrieved_chunks", node="retrieve_targeted",
    )
