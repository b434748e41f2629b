"""Which collaborator failed in a run, read from its raw state: the planner, the grader, the rewriter
or the retriever.

Why: every failure degrades to a defined route instead of raising (docs/decisions.md
"Degradation"), so a dead model ends in `no_knowledge / evidence_grading_unavailable`, the same
result as a question the knowledge base cannot answer. The raw trace keys `grading_error`,
`rewrite_error`, `retrieval_error` (with `retrieval_mode` failed) and the planner's reason
`planner_unavailable:<kind>: <message>` record the cause; this gathers them, the sub-questions' too,
so a page can say at the top of the result that the run is degraded and why. Pure: no UI, no I/O.
"""
from __future__ import annotations

import re
from typing import Any, Literal, Mapping, Optional

from pydantic import BaseModel, ConfigDict

from rag.i18n import N_, _

Role = Literal["planner", "grader", "rewriter", "retriever"]

PLANNER_PREFIX = "planner_unavailable:"
FAILED_RETRIEVAL_MODES = frozenset({"failed", "dense_fallback"})
"""`failed`: no leg answered; `dense_fallback`: the sparse leg failed and dense carried on.
`sparse_only` is not here: a dense leg that is off or not ingested is a setting, not a failure."""

CONSEQUENCE: dict[str, str] = {
    "planner": N_("the question was not planned; it took the simple chain"),
    "grader": N_("the evidence was not graded; the run failed closed to no_knowledge"),
    "rewriter": N_("the question was not rewritten; the run ended in no_knowledge"),
    "retriever": N_("retrieval failed; the grader saw no evidence"),
}
"""The English (catalogue ids); `Failure.consequence` is the text in the reader's language."""

_KIND = re.compile(r"^([A-Za-z_][\w.]*):\s*(.*)$", re.S)
_EXCEPTION = re.compile(r"\b([A-Z]\w*(?:Error|Exception|Timeout))\b")


class Failure(BaseModel):
    """One failed collaborator call that the run degraded around."""

    model_config = ConfigDict(frozen=True)

    role: Role
    kind: str
    """Short error kind: `connection`, `timeout`, `invalid_output`, `http_401`… or an exception name."""
    message: str = ""
    sub_question: Optional[str] = None
    """The sub-question whose lane failed (complex chain), else None."""

    @property
    def consequence(self) -> str:
        return _(CONSEQUENCE[self.role])


def split_error(text: str) -> tuple[str, str]:
    """`"connection: Connection error."` → `("connection", "Connection error.")`; the nodes write
    errors as `<kind>: <message>` (rag/graph/nodes.py `_error_text`)."""
    text = (text or "").strip()
    m = _KIND.match(text)
    if m:
        return m.group(1), m.group(2).strip()
    named = _EXCEPTION.search(text)  # e.g. "knowledge base unavailable: FileNotFoundError: …"
    return (named.group(1) if named else "error"), text


def _trace_failures(trace: Any, sub_question: Optional[str] = None) -> list[Failure]:
    if not isinstance(trace, Mapping):
        return []
    out = []
    if trace.get("retrieval_mode") in FAILED_RETRIEVAL_MODES:
        kind, message = split_error(str(trace.get("retrieval_error") or trace["retrieval_mode"]))
        out.append(Failure(role="retriever", kind=kind, message=message, sub_question=sub_question))
    for key, role in (("grading_error", "grader"), ("rewrite_error", "rewriter")):
        if trace.get(key):
            kind, message = split_error(str(trace[key]))
            out.append(Failure(role=role, kind=kind, message=message, sub_question=sub_question))
    return out


def run_failures(state: Optional[Mapping[str, Any]]) -> list[Failure]:
    """The failures a run's raw state records, planner first, in the order they happened; [] for a
    healthy run (or no state yet)."""
    if not state:
        return []
    out: list[Failure] = []
    reason = str(state.get("complexity_reason") or "")
    if reason.startswith(PLANNER_PREFIX):
        kind, message = split_error(reason[len(PLANNER_PREFIX):])
        out.append(Failure(role="planner", kind=kind, message=message))
    for sub in state.get("sub_results") or []:
        if isinstance(sub, Mapping):
            out.extend(_trace_failures(sub.get("rag_trace"), sub_question=str(sub.get("question") or "") or None))
    out.extend(_trace_failures(state.get("rag_trace")))
    return out


__all__ = ["Failure", "run_failures", "split_error", "CONSEQUENCE"]
