"""A finished run's outcome in words a stakeholder reads, beside the route and status codes.

Why: "Result: no_knowledge / answerable" is two protocol values; in a demo someone asks "so did it
answer?". The route decides what happened; the retrieval status is said too when it tells something
else (a what-if fork that set the route by hand keeps the status retrieval gave).
"""
from __future__ import annotations

from typing import Optional

from rag.i18n import N_, _

ROUTE_WORDS = {
    "answer": N_("Answered from the retrieved evidence"),
    "no_knowledge": N_("No answer: the knowledge base has nothing that answers this"),
    "clarify": N_("Asks the user to clarify the question"),
    "scope_select": N_("Asks the user which one they mean"),
    "rewrite": N_("Rewrites the question and searches again"),
}
STATUS_WORDS = {
    "answerable": N_("retrieval found enough to answer"),
    "partial": N_("retrieval found part of an answer"),
    "needs_rewrite": N_("retrieval asked for a rewrite"),
    "needs_clarification": N_("retrieval needs a clarification"),
    "needs_scope_selection": N_("retrieval found several candidates"),
    "no_knowledge": N_("retrieval found nothing relevant"),
}
#: The status each route normally comes with: another one is worth saying.
USUAL_STATUS = {"answer": ("answerable", "partial"), "no_knowledge": ("no_knowledge",),
                "clarify": ("needs_clarification",), "scope_select": ("needs_scope_selection",),
                "rewrite": ("needs_rewrite",)}


def outcome_words(route: Optional[str], status: Optional[str]) -> str:
    """One sentence for the route, with the retrieval status when it is not the route's usual one."""
    words = _(ROUTE_WORDS[route]) if route in ROUTE_WORDS else _("Finished with route {route}").format(route=route)
    if status and status in STATUS_WORDS and status not in USUAL_STATUS.get(route or "", ()):
        words = _("{outcome} (although {status})").format(outcome=words, status=_(STATUS_WORDS[status]))
    return words
