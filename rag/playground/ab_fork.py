"""A/B prompt fork: run two prompts of one role from the SAME checkpoint and compare the outcomes.

Why a fork and not two runs: two separate runs would re-run everything upstream (retrieval, other
model calls), so a difference between them could come from anywhere. Here the main graph runs once
with a checkpointer and a per-call `interrupt_before=[node]` that pauses before the node that uses
the role's prompt; then both variants continue from that one checkpoint with
`invoke(None, fork_config, context=...)`, each on its own branch of the thread. Upstream state is
identical by construction and upstream retrieval runs exactly once. Only the request context
differs: its roles are built from prompt set A or B (the prompts live in the roles, not the state).

The `answerer` role is the answering agent after the graph (`rag/answering.py`): its "fork point"
is the finished state of an `answer` route. The graph runs once to the end; A and B then answer
from that one state's evidence with their two answerer prompts, so only the prompt differs.
Offline there is no model to read a prompt: both answers are the same extractive one, and a note
says so.

Notes for the page (`ABResult.hints`) are in the user's language (the page shows them as they are).
"""
from __future__ import annotations

import dataclasses
import uuid
from typing import Any, Callable, Literal, Mapping, Optional

from langchain_core.runnables import RunnableLambda
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import BaseModel, ConfigDict, Field

from rag.api import build_result, initial_state, make_context, validate_text
from rag.errors import ForkNotReachedError, PromptTemplateError
from rag.graph.build import compiled_graph
from rag.i18n import _
from rag.models.base import ModelRoles
from rag.prompts import load_prompts
from rag.prompts.templates import ROLES, PromptSet, validate_template
from rag.retrieval.retriever import Retriever
from rag.schemas import ProgressStep
from rag.settings import RagSettings, load_settings
from rag_debugger.debugger.state_diff import DiffRow, changed_rows, diff_states, reducer_fields

Role = Literal["planner", "grader", "rewriter", "answerer"]
RolesFactory = Callable[[PromptSet], ModelRoles]
#: The answering agent's step: after the graph's end, not a node of the graph.
ANSWER_STEP = "answer_step"

#: The node that uses each role's prompt (for the grader: its FIRST run).
FORK_NODES: dict[str, str] = {
    "planner": "classify_complexity",
    "grader": "grade_documents",
    "rewriter": "rewrite_question",
    "answerer": ANSWER_STEP,
}
REWRITE_TRACE_FIELDS = ("rewrite_method", "rewritten_query", "step_back_question", "hyde_document", "rewrite_error")


class VariantResult(BaseModel):
    """One side of the A/B comparison."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    label: Literal["A", "B"]
    template: str
    role_output: Optional[dict[str, Any]] = None
    """The role's structured output as the state recorded it right after the fork node."""
    role_calls: int = 0
    """How often the role's model was called downstream (0: the node did not need it)."""
    decided_route: Optional[str] = None
    """Route in the state right after the fork node."""
    route: Optional[str] = None
    retrieval_status: Optional[str] = None
    after_fork_checkpoint_id: Optional[str] = None
    final_checkpoint_id: Optional[str] = None
    final_state: dict[str, Any] = Field(default_factory=dict)
    result: Optional[dict[str, Any]] = None
    progress: list[ProgressStep] = Field(default_factory=list)
    error: Optional[str] = None


class Hint(BaseModel):
    """A plain-language note for the page; `kind` says how to show it."""

    kind: Literal["offline", "failed", "not_called", "same", "empty", "answer_error"]
    text: str


class ABResult(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    question: str
    role: Role
    fork_node: str
    thread_id: str
    fork_checkpoint_id: str
    upstream_state: dict[str, Any]
    """State at the fork checkpoint: the same input for both variants."""
    upstream_progress: list[ProgressStep] = Field(default_factory=list)
    a: VariantResult
    b: VariantResult
    diff: list[DiffRow] = Field(default_factory=list)
    """Changed rows between A's and B's final states (`debugger.diff_table(result.diff)` shows them);
    for the answerer, between the two answers."""
    hints: list[Hint] = Field(default_factory=list)

    @property
    def notes(self) -> list[str]:
        return [h.text for h in self.hints]

    @property
    def same_outcome(self) -> bool:
        return not self.diff


# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------

def _counted(runnable: Any, calls: list) -> RunnableLambda:
    def call(inp: Any) -> Any:
        calls.append(inp)
        return runnable.invoke(inp)

    return RunnableLambda(call)


def _with_counter(roles: ModelRoles, role: str, calls: list) -> ModelRoles:
    changes: dict[str, Any] = {role: _counted(getattr(roles, role), calls)}
    return dataclasses.replace(roles, **changes)


def _checkpoint_id(config: Optional[dict]) -> Optional[str]:
    return ((config or {}).get("configurable") or {}).get("checkpoint_id")


def _role_output(role: str, state: dict) -> Optional[dict]:
    if role == "planner":
        return {k: state.get(k) for k in ("complexity", "complexity_reason", "sub_questions")}
    if role == "grader":
        return dict(state["grade"]) if state.get("grade") else None
    if role == "answerer":
        return None
    trace = state.get("rag_trace") or {}
    out = {k: trace[k] for k in REWRITE_TRACE_FIELDS if k in trace}
    out["query"] = state.get("query")
    return out


def _resolve_checkpointer(history_or_checkpointer: Any) -> tuple[Any, Any]:
    """(checkpointer, compiled main graph) for a RunHistory, a saver, or nothing (in memory)."""
    if history_or_checkpointer is None:
        saver = InMemorySaver()
        return saver, compiled_graph("main", saver)
    if isinstance(history_or_checkpointer, BaseCheckpointSaver):
        return history_or_checkpointer, compiled_graph("main", history_or_checkpointer)
    if hasattr(history_or_checkpointer, "checkpointer") and hasattr(history_or_checkpointer, "graph"):
        return history_or_checkpointer.checkpointer, history_or_checkpointer.graph("main")
    raise TypeError("history_or_checkpointer must be a RunHistory, a LangGraph checkpointer or None")


def _after_fork(graph: Any, thread_cfg: dict, head_cfg: dict, fork_id: str) -> Optional[Any]:
    """The snapshot right after the fork node on the branch that ends at `head_cfg`.

    Invoking from a past checkpoint makes LangGraph first write a copy of it (metadata source
    `fork`) and then run; so the state after the node is the first non-copy on the chain."""
    by_id = {_checkpoint_id(s.config): s for s in graph.get_state_history(thread_cfg)}
    chain = []
    snap = by_id.get(_checkpoint_id(head_cfg))
    while snap is not None and _checkpoint_id(snap.config) != fork_id:
        chain.append(snap)
        snap = by_id.get(_checkpoint_id(snap.parent_config))
    if snap is None:  # the head is not on a branch of the fork checkpoint
        return None
    for item in reversed(chain):
        if (item.metadata or {}).get("source") != "fork":
            return item
    return None


def prompt_sets_for(role: str, template_b: str, *, template_a: Optional[str] = None,
                    base: Optional[PromptSet] = None) -> tuple[PromptSet, PromptSet]:
    """Prompt set A (the current prompts, or `template_a` for the role) and B (A with the role's
    template replaced). Raises PromptTemplateError before anything runs."""
    if role not in FORK_NODES:
        raise PromptTemplateError(_("unknown role {role}; expected one of {roles}").format(role=repr(role),
                                                                                     roles=", ".join(ROLES)))
    if not isinstance(template_b, str):
        raise PromptTemplateError(_("template B must be text"))
    validate_template(role, template_b)
    if template_a is not None:
        validate_template(role, template_a)
    base = base or load_prompts()
    a = base if template_a is None else base.model_copy(update={role: template_a, "version": f"{base.version}+A"})
    b = a.model_copy(update={role: template_b, "version": f"{a.version}+B"})
    return a, b


# ----------------------------------------------------------------------------------------------
# the fork
# ----------------------------------------------------------------------------------------------

def run_ab(
    question: str,
    role: Role,
    template_b: str,
    *,
    template_a: Optional[str] = None,
    settings: Optional[RagSettings] = None,
    retriever: Optional[Retriever] = None,
    history_or_checkpointer: Any = None,
    roles_factory: Optional[RolesFactory] = None,
    base_prompts: Optional[PromptSet] = None,
    complete: Optional[Callable[[str], str]] = None,
    model: Optional[str] = None,
) -> ABResult:
    """Run `question` to the node that uses `role`'s prompt, then variants A and B from there.

    `roles_factory(prompt_set) -> ModelRoles` builds the roles of each side (default:
    `get_default_roles(settings, prompt_set)`); tests inject scripted roles. `base_prompts`
    defaults to the prompts of `settings.prompt_version`. `complete(prompt) -> text` (and its
    `model` name) answers for the `answerer` role; default: the connected model when the roles are
    an OpenAI-compatible provider's, else none (extractive answers).
    Raises PromptTemplateError (bad template), InvalidQuestionError (bad question),
    ForkNotReachedError (the run never gets to the node) — all before any variant runs.
    """
    settings = settings or load_settings()
    text = validate_text(question, what="question", limit=settings.max_question_chars)
    base = base_prompts or load_prompts(settings.prompt_version)
    prompts_a, prompts_b = prompt_sets_for(role, template_b, template_a=template_a, base=base)
    if roles_factory is None:
        from rag.models.factory import get_default_roles

        def roles_factory(prompts: PromptSet) -> ModelRoles:
            return get_default_roles(settings, prompts)

    if retriever is None:
        from rag.retrieval.retriever_factory import get_default_retriever

        retriever = get_default_retriever(settings)
    _checkpointer, graph = _resolve_checkpointer(history_or_checkpointer)
    fork_node = FORK_NODES[role]
    thread_cfg = {"configurable": {"thread_id": f"ab-{uuid.uuid4().hex[:16]}"}}
    if role == "answerer":
        return _run_answerer_ab(text, graph, thread_cfg, settings, retriever, roles_factory, prompts_a, prompts_b,
                                complete, model)

    # 1. upstream, once, with prompt set A, pausing before the fork node
    upstream_steps: list[ProgressStep] = []
    up_ctx = make_context(settings=settings, retriever=retriever, roles=roles_factory(prompts_a),
                          progress=upstream_steps.append)
    up_ctx.reset_clock()
    graph.invoke(initial_state(text), thread_cfg, context=up_ctx, interrupt_before=[fork_node])
    fork = graph.get_state(thread_cfg)
    if fork_node not in fork.next:
        values = fork.values
        raise ForkNotReachedError(
            _("this question never reaches {node}, so the {role} prompt is not used: the run ended with route "
              "{route} ({status}).").format(node=fork_node, role=role, route=repr(values.get("route")),
                                            status=repr(values.get("retrieval_status")))
            + " " + _not_reached_hint(role, values)
        )
    fork_id = _checkpoint_id(fork.config) or ""
    upstream_state = dict(fork.values)

    # 2. both variants from that same checkpoint
    def variant(label: Literal["A", "B"], prompts: PromptSet) -> VariantResult:
        calls: list = []
        steps: list[ProgressStep] = []
        out = VariantResult(label=label, template=prompts.get(role))
        try:
            roles = _with_counter(roles_factory(prompts), role, calls)
            ctx = make_context(settings=settings, retriever=retriever, roles=roles, progress=steps.append)
            ctx.reset_clock()
            final = graph.invoke(None, fork.config, context=ctx)
            head = graph.get_state(thread_cfg)
            after = _after_fork(graph, thread_cfg, head.config, fork_id)
            after_values = dict(after.values) if after is not None else {}
            out = out.model_copy(update=dict(
                role_output=_role_output(role, after_values) if after is not None else None,
                decided_route=after_values.get("route"),
                route=final.get("route"),
                retrieval_status=final.get("retrieval_status"),
                after_fork_checkpoint_id=_checkpoint_id(after.config) if after is not None else None,
                final_checkpoint_id=_checkpoint_id(head.config),
                final_state=dict(final),
                result=build_result(final, ctx),
            ))
        except Exception as exc:  # noqa: BLE001 - one failing side must still show the other
            out = out.model_copy(update={"error": f"{type(exc).__name__}: {exc}"[:2000]})
        return out.model_copy(update={"role_calls": len(calls), "progress": steps})

    a = variant("A", prompts_a)
    b = variant("B", prompts_b)
    rows = changed_rows(diff_states(a.final_state, b.final_state, append_fields=reducer_fields(graph),
                                    nested_fields=("rag_trace",)))
    return ABResult(
        question=text, role=role, fork_node=fork_node, thread_id=thread_cfg["configurable"]["thread_id"],
        fork_checkpoint_id=fork_id, upstream_state=upstream_state, upstream_progress=upstream_steps, a=a, b=b,
        diff=rows, hints=_notes(role, a, b, upstream_state, up_ctx.roles, rows),
    )


def _run_answerer_ab(text: str, graph: Any, thread_cfg: dict, settings: RagSettings, retriever: Retriever,
                     roles_factory: RolesFactory, prompts_a: PromptSet, prompts_b: PromptSet,
                     complete: Optional[Callable[[str], str]], model: Optional[str]) -> ABResult:
    """The graph once to its end, then the answers of A and B from that one finished state."""
    from rag.answering import answer_for, model_completer

    steps: list[ProgressStep] = []
    ctx = make_context(settings=settings, retriever=retriever, roles=roles_factory(prompts_a), progress=steps.append)
    ctx.reset_clock()
    final = graph.invoke(initial_state(text), thread_cfg, context=ctx)
    head = graph.get_state(thread_cfg)
    if final.get("route") != "answer" or not final.get("docs"):
        raise ForkNotReachedError(
            _("this question never reaches the answer step, so the answerer prompt is not used: the run ended "
              "with route {route} ({status}). Pick a question whose run ends in `answer`.").format(
                route=repr(final.get("route")), status=repr(final.get("retrieval_status")))
        )
    if complete is None and str(ctx.roles.provider).startswith("openai"):
        complete, model = model_completer(settings)  # the model the debugger's answer step uses
    result = build_result(final, ctx)
    head_id = _checkpoint_id(head.config)

    def variant(label: Literal["A", "B"], prompts: PromptSet) -> VariantResult:
        calls: list[str] = []

        def counted(prompt: str) -> str:
            calls.append(prompt)
            return complete(prompt)  # type: ignore[misc]

        out = VariantResult(label=label, template=prompts.answerer)
        try:
            answer = answer_for(final, counted if complete is not None else None, model, template=prompts.answerer)
            out = out.model_copy(update=dict(
                role_output=answer.model_dump(mode="json") if answer is not None else None,
                decided_route=final.get("route"), route=final.get("route"),
                retrieval_status=final.get("retrieval_status"), after_fork_checkpoint_id=head_id,
                final_checkpoint_id=head_id, final_state=dict(final), result=result,
            ))
        except Exception as exc:  # noqa: BLE001 - one failing side must still show the other
            out = out.model_copy(update={"error": f"{type(exc).__name__}: {exc}"[:2000]})
        return out.model_copy(update={"role_calls": len(calls)})

    a = variant("A", prompts_a)
    b = variant("B", prompts_b)
    rows = changed_rows(diff_states(_answer_fields(a.role_output), _answer_fields(b.role_output)))
    return ABResult(
        question=text, role="answerer", fork_node=ANSWER_STEP, thread_id=thread_cfg["configurable"]["thread_id"],
        fork_checkpoint_id=head_id or "", upstream_state=dict(final), upstream_progress=steps, a=a, b=b, diff=rows,
        hints=_notes("answerer", a, b, dict(final), ctx.roles, rows),
    )


def _answer_fields(answer: Optional[Mapping[str, Any]]) -> dict[str, Any]:
    """What differs between two answers for a reader: the text, how it was made, what it cites."""
    answer = answer or {}
    return {"answer": answer.get("text"), "mode": answer.get("mode"),
            "citations": [c.get("n") for c in answer.get("citations") or []]}


def _not_reached_hint(role: str, values: dict) -> str:
    if values.get("complexity") == "complex":
        return _("The question took the complex chain, where each sub-question is graded inside rag_sub_agent; "
                 "pick a simple question.")
    if role == "rewriter":
        return _("Pick a question whose first grade is `rewrite`.")
    return _("Pick another question.")


def _notes(role: str, a: VariantResult, b: VariantResult, upstream: dict, roles: ModelRoles,
           rows: list) -> list[Hint]:
    """Plain-language hints for the UI when the comparison cannot show a prompt's effect."""
    notes = []
    if "offline" in (roles.provider or "").lower():
        notes.append(Hint(kind="offline", text=_(
            "the offline rule-based provider does not read prompts, so A and B can only differ with an "
            "OpenAI-compatible model configured")))
    for side in (a, b):
        if side.error:
            notes.append(Hint(kind="failed", text=_("variant {label} failed: {error}").format(
                label=side.label, error=side.error)))
        elif side.role_calls == 0:
            reasons: dict[str, Callable[[], str]] = {
                "planner": lambda: _("the question took the local fast path ({reason})").format(
                    reason=(side.role_output or {}).get("complexity_reason")),  # noqa: B023 - called below, in this turn
                "grader": lambda: _("no evidence was retrieved, so the grade is decided without a model"),
                "rewriter": lambda: _("the rewrite budget was already spent"),
                "answerer": lambda: _("no model is connected, so the answer is extractive (quoted from the "
                                      "evidence, no prompt)"),
            }
            why = reasons[role]()
            notes.append(Hint(kind="not_called", text=_("the {role} model was not called in variant {label}: "
                                                        "{why}").format(role=role, label=side.label, why=why)))
        elif role == "answerer" and (side.role_output or {}).get("error"):
            notes.append(Hint(kind="answer_error", text=_("variant {label}: {error}").format(
                label=side.label, error=(side.role_output or {}).get("error"))))
    if not rows and not (a.error or b.error):
        notes.append(Hint(kind="same", text=_("A and B ended in the same state")))
    if not upstream:
        notes.append(Hint(kind="empty", text=_("the upstream state is empty")))
    return notes


__all__ = ["ANSWER_STEP", "FORK_NODES", "ABResult", "Hint", "VariantResult", "run_ab",
           "prompt_sets_for"]
