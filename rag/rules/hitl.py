"""Human-in-the-loop rules: the default follow-up prompt, merging the user's answer into the
question, and the resume snapshot (docs/workflow.md §3.6, §3.11, §3.13)."""
from __future__ import annotations

import re
from typing import Any, Mapping, Optional

from pydantic import ValidationError

from rag.errors import SnapshotError
from rag.i18n import _
from rag.rules.user_text import clean_text, is_blank, text_problem
from rag.schemas import HitlResumeState

HITL_STATUS = {"clarify": "needs_clarification", "scope_select": "needs_scope_selection"}
"""The status each question to the user comes with (rag/schemas.py HitlResumeState)."""

_CJK = re.compile(r"[\u3400-\u9fff]")


def is_chinese(text: str) -> bool:
    return bool(_CJK.search(text or ""))


def default_hitl_prompt(
    route: str, *, question: str = "", model_prompt: str = "", options: list[str] | None = None,
    missing_slots: list[str] | None = None,
) -> str:
    """The grader's own follow-up question wins; otherwise a prompt by route, in the question's language."""
    if model_prompt and model_prompt.strip():
        return model_prompt.strip()
    zh = is_chinese(question)
    if route == "scope_select":
        opts = [o for o in (options or []) if o]
        if zh:
            if opts:
                return "你的问题可能指向多个方向，请选择一个：" + "；".join(opts)
            return "你的问题可能指向多个方向，请说明具体指哪一个。"
        return ("Your question could mean several things. Please choose one: " + "; ".join(opts)) if opts else (
            "Your question could mean several things. Please say which one you mean."
        )
    if route == "clarify":
        slots = [s for s in (missing_slots or []) if s]
        if zh:
            return "请补充以下信息：" + "、".join(slots) if slots else "请补充更多信息，以便准确回答。"
        return ("Please add: " + ", ".join(slots)) if slots else "Please add more detail so the question can be answered."
    return ""


def refined_question_for_hitl(question: str, answer: str) -> str:
    """Merge the user's answer into the question without repeating text already there.

    A second HITL round merges into the already merged question, so the check is on substrings.
    """
    q = (question or "").strip()
    a = (answer or "").strip()
    if not a or a in q:
        return q
    if q and q in a:
        return a
    if is_chinese(q) or is_chinese(a):
        return f"{q}（补充：{a}）"
    return f"{q} (clarification: {a})"


def is_hitl_result(result: Mapping[str, Any]) -> bool:
    """A result (or sub-result) that asks the user; its route or status may live in its trace."""
    raw_trace = result.get("rag_trace")
    trace: Mapping[str, Any] = raw_trace if isinstance(raw_trace, Mapping) else {}
    route = result.get("route") or trace.get("route")
    status = result.get("retrieval_status") or trace.get("retrieval_status")
    return route in ("clarify", "scope_select") or status in ("needs_clarification", "needs_scope_selection")


def build_hitl_resume_state(state: Mapping[str, Any]) -> Optional[HitlResumeState]:
    """The snapshot a HITL run leaves: question, route / status, rewrite count and the parent planning.
    Never evidence. None when the run does not need the user, and when its route and status are not one
    of the two questions to the user (a what-if fork wrote `route: no_knowledge` over a clarify stop:
    the route stands and nothing asks; a snapshot of the mix would fail its own validation)."""
    if not is_hitl_result(state):
        return None
    if HITL_STATUS.get(state.get("route") or "") != state.get("retrieval_status") or is_blank(state.get("question") or ""):
        return None
    return HitlResumeState(
        question=state.get("question") or "",
        route=state.get("route"),
        retrieval_status=state.get("retrieval_status"),
        rewrite_count=int(state.get("rewrite_count") or 0),
        complexity=state.get("complexity"),
        complexity_reason=state.get("complexity_reason"),
        sub_questions=list(state.get("sub_questions") or []),
    )


def parse_snapshot(snapshot: Any, *, limit: int) -> HitlResumeState:
    """Validate a snapshot from a client before anything runs. Its texts obey the question rules
    (`rag.rules.user_text`) and `limit` characters each, as the question they came from did."""
    if isinstance(snapshot, HitlResumeState):  # built in code: the same checks as one from a client
        snapshot = snapshot.model_dump()
    if not isinstance(snapshot, Mapping):
        raise SnapshotError(_("hitl_resume_state must be an object with the fields of HitlResumeState, got {kind}")
                            .format(kind=type(snapshot).__name__))
    try:
        parsed = HitlResumeState.model_validate(dict(snapshot))
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = ".".join(str(p) for p in err.get("loc", ())) or "(snapshot)"
            problems.append(f"{field}: {err.get('msg')}")
        raise SnapshotError(_("invalid hitl_resume_state: {problem}").format(problem="; ".join(problems))) from None
    expected_status = "needs_clarification" if parsed.route == "clarify" else "needs_scope_selection"
    if parsed.retrieval_status != expected_status:
        raise SnapshotError(
            _("invalid hitl_resume_state: retrieval_status {status} does not match route {route} (expected {expected})")
            .format(status=repr(parsed.retrieval_status), route=repr(parsed.route), expected=repr(expected_status))
        )
    texts = [("question", parsed.question)] + [(f"sub_questions.{i}", q) for i, q in enumerate(parsed.sub_questions)]
    if parsed.complexity_reason is not None:
        texts.append(("complexity_reason", parsed.complexity_reason))
    for field, text in texts:
        problem = text_problem(text, what=field, limit=limit)
        if problem and not (field == "complexity_reason" and is_blank(text)):
            raise SnapshotError(_("invalid hitl_resume_state: {problem}").format(problem=problem))
    return parsed.model_copy(update={"question": clean_text(parsed.question)})
