"""The banner at the top of a degraded run's result: which role failed (planner, grader, rewriter,
retriever), with what kind of error, and what the run did instead.

Why: a dead model ends a run in `no_knowledge / evidence_grading_unavailable`, which otherwise
reads like "the knowledge base has nothing on this". The failure is in the raw trace
(`rag.degradation`); this says it first, before the route, so nobody mistakes the fallback for an
answer."""
from __future__ import annotations

from typing import Any, Mapping, Optional

from rag.degradation import Failure, run_failures
from rag.i18n import _
from rag_debugger.debugger.html_page import esc
from rag_debugger.views.html_view import code


def degraded_html(state: Optional[Mapping[str, Any]]) -> str:
    """HTML of the banner for the state shown, or "" when nothing failed."""
    return failures_html(run_failures(state))


def failures_html(failures: list[Failure]) -> str:
    if not failures:
        return ""
    roles = ", ".join(dict.fromkeys(f.role for f in failures))
    items = "".join(
        "<li>" + _("<b>{role}</b> failed ({kind})").format(role=esc(f.role), kind=code(f.kind))
        + (esc(_(" on the sub-question “{question}”").format(question=f.sub_question)) if f.sub_question else "")
        + f": {esc(f.consequence)}." + (f' <span class="rdi-caption">{esc(f.message[:300])}</span>' if f.message else "")
        + "</li>"
        for f in failures
    )
    return ('<div class="rdi-degraded" role="alert">'
            + _("<b>Degraded run — the {roles} failed.</b> The result below is a fallback, not what the knowledge "
                "base says. Check the model and retriever settings, then Restart.").format(roles=esc(roles))
            + f"<ul>{items}</ul></div>")
