"""Public entry points: `run_rag_graph` and `resume_rag_from_hitl` (docs/workflow.md §3.11, §3.13).

Both work with no argument but the question (offline rules + the bundled knowledge base); every
collaborator can be injected per call. Input is validated before anything runs, so a bad question or
a tampered snapshot is a clear `ValueError`, never a crash deep in the graph.
"""
from __future__ import annotations

from typing import Any, Mapping, NotRequired, Optional, TypedDict

from rag.context import ProgressSink, RagContext
from rag.errors import InvalidQuestionError
from rag.graph.build import GraphKind, compiled_graph
from rag.i18n import _
from rag.models.base import ModelRoles
from rag.retrieval.retriever import Retriever
from rag.rules.hitl import build_hitl_resume_state, parse_snapshot, refined_question_for_hitl
from rag.rules.user_text import clean_text, text_problem
from rag.settings import RagSettings, load_settings
from rag.trace import normalize_rag_trace


def _compiled(kind: GraphKind) -> Any:
    """The checkpointer-less graphs for plain runs, from the one registry."""
    return compiled_graph(kind)


def _invoke(kind: GraphKind, inp: dict, ctx: RagContext) -> dict:
    """Run a graph; when OpenTelemetry export is on (rag/telemetry), streamed and sent as a trace."""
    from rag.telemetry.runs import active

    tracer = active()
    if tracer is None:
        return _compiled(kind).invoke(inp, context=ctx)
    from rag.telemetry.runs import traced_invoke

    return traced_invoke(_compiled(kind), inp, context=ctx, kind=kind, tracer=tracer,
                         secrets=ctx.settings.secret_strings(), prompt_version=ctx.settings.prompt_version,
                         snapshot=inp.get("hitl_snapshot"))


def validate_text(text: Any, *, what: str, limit: int) -> str:
    """The cleaned text (`rag.rules.user_text.clean_text`), or InvalidQuestionError saying why it is unusable:
    not text, not valid Unicode, empty (only blanks, NULs or zero-width characters) or too long."""
    problem = text_problem(text, what=what, limit=limit)
    if problem:
        raise InvalidQuestionError(problem)
    return clean_text(text)


def make_context(
    *,
    settings: Optional[RagSettings] = None,
    retriever: Optional[Retriever] = None,
    roles: Optional[ModelRoles] = None,
    progress: Optional[ProgressSink] = None,
) -> RagContext:
    """A request context with defaults for whatever is not injected."""
    settings = settings or load_settings()
    if retriever is None:
        from rag.retrieval.retriever_factory import get_default_retriever

        retriever = get_default_retriever(settings)
    if roles is None:
        from rag.models.factory import get_default_roles

        roles = get_default_roles(settings)
    return RagContext(settings=settings, retriever=retriever, roles=roles, progress=progress)


def initial_state(question: str) -> dict:
    """The state a main run starts from."""
    return {
        "question": question,
        "query": question,
        "docs": [],
        "context": "",
        "grade": None,
        "route": None,
        "retrieval_status": None,
        "rewrite_count": 0,
        "complexity": None,
        "complexity_reason": None,
        "sub_questions": [],
        "sub_results": [],
        "step_group": None,
        "step_group_label": None,
        "rag_trace": None,
        "is_sub_agent": False,
    }


def resume_input(snapshot: Mapping[str, Any] | Any, answer: str, *, limit: int) -> dict:
    """Validate a snapshot and answer, and build the resume graph's input.

    The merged question (`refined_question_for_hitl`) is what retrieval and the grader read, so it
    obeys the same limit as a question typed in: a long question leaves less room for the answer."""
    snap = parse_snapshot(snapshot, limit=limit)
    text = validate_text(answer, what="HITL answer", limit=limit)
    merged = refined_question_for_hitl(snap.question, text)
    if len(merged) > limit:
        raise InvalidQuestionError(
            _("the question merged with the HITL answer has {count} characters; the limit is {limit} "
              "(RAG_MAX_QUESTION_CHARS): shorten the answer").format(count=f"{len(merged):,}", limit=f"{limit:,}")
        )
    state = initial_state(snap.question)
    state.update(hitl_snapshot=snap.model_dump(), hitl_answer=text)
    return state


class RagResult(TypedDict):
    """What `run_rag_graph` and `resume_rag_from_hitl` return: a plain dict at run time (existing callers index
    it as before), typed so a service's checker knows each key. The chunks and the trace stay dicts because
    they are the protocol's JSON (docs/workflow.md)."""

    question: Optional[str]
    route: Optional[str]
    """answer / clarify / scope_select / no_knowledge."""
    retrieval_status: Optional[str]
    docs: list[Any]
    """The evidence chunks the route rests on."""
    context: str
    """Numbered context blocks built from `docs`, ready for an answering prompt."""
    complexity: Optional[str]
    sub_questions: list[Any]
    rag_trace: Optional[dict[str, Any]]
    """The 59 protocol fields, normalized (`normalize_rag_trace`)."""
    provider: NotRequired[str]
    retriever: NotRequired[str]
    hitl_resume_state: NotRequired[dict[str, Any]]
    """Only when the route asks the user (clarify / scope_select): pass it to `resume_rag_from_hitl`."""


def build_result(state: Mapping[str, Any], ctx: Optional[RagContext] = None) -> RagResult:
    """The client's view of a finished run: route, status, docs, context, normalized trace, and the
    resume snapshot at the TOP level when the user must answer (never inside the trace)."""
    result: RagResult = {
        "question": state.get("question"),
        "route": state.get("route"),
        "retrieval_status": state.get("retrieval_status"),
        "docs": list(state.get("docs") or []),
        "context": state.get("context") or "",
        "complexity": state.get("complexity"),
        "sub_questions": list(state.get("sub_questions") or []),
        "rag_trace": normalize_rag_trace(state.get("rag_trace")),
    }
    if ctx is not None:
        result["provider"] = ctx.roles.provider
        result["retriever"] = getattr(ctx.retriever, "name", type(ctx.retriever).__name__)
    snapshot = build_hitl_resume_state(state)
    if snapshot is not None:
        result["hitl_resume_state"] = snapshot.model_dump()
    return result


def run_rag_graph(
    question: str,
    ctx: Optional[RagContext] = None,
    *,
    settings: Optional[RagSettings] = None,
    retriever: Optional[Retriever] = None,
    roles: Optional[ModelRoles] = None,
    progress: Optional[ProgressSink] = None,
) -> RagResult:
    """Run the workflow on one question and return its `RagResult`."""
    settings = ctx.settings if ctx else (settings or load_settings())
    text = validate_text(question, what="question", limit=settings.max_question_chars)  # before loading anything
    ctx = ctx or make_context(settings=settings, retriever=retriever, roles=roles, progress=progress)
    ctx.reset_clock()
    final = _invoke("main", initial_state(text), ctx)
    return build_result(final, ctx)


def resume_rag_from_hitl(
    snapshot: Mapping[str, Any] | Any,
    answer: str,
    ctx: Optional[RagContext] = None,
    *,
    settings: Optional[RagSettings] = None,
    retriever: Optional[Retriever] = None,
    roles: Optional[ModelRoles] = None,
    progress: Optional[ProgressSink] = None,
) -> RagResult:
    """Resume after the user answered a clarify / scope_select question: targeted retrieval and
    grading only; may ask again (a new snapshot)."""
    settings = ctx.settings if ctx else (settings or load_settings())
    inp = resume_input(snapshot, answer, limit=settings.max_question_chars)  # before loading anything
    ctx = ctx or make_context(settings=settings, retriever=retriever, roles=roles, progress=progress)
    ctx.reset_clock()
    final = _invoke("resume", inp, ctx)
    return build_result(final, ctx)


__all__ = [
    "RagResult", "make_context", "initial_state", "resume_input", "build_result",
    "run_rag_graph", "resume_rag_from_hitl", "validate_text",
]
