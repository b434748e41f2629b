"""The words of the engine's progress steps: the templates `rag.graph.nodes` emits, and their
translation where a page shows them.

Why the engine emits English: a `ProgressStep` is a protocol boundary (a service's client reads it,
recorded runs and the shipped demo pack keep it), so its text must not depend on who happened to be
looking when the run was made. A page translates it when it shows it: `translate_progress` recognises
text made from one of these templates and returns the template in the reader's language, with the
values (route, stage and method names, questions, counts, errors) left as they are. Text from before
a template changed, or from another engine, is shown as it is.

The nodes format these same constants, so the emitted text and the table that reads it cannot drift.
"""
from __future__ import annotations

from rag.i18n import N_
from rag.i18n.read_back import TemplateTable

COMPLEXITY_FAST_PATH = N_("Complexity: simple (fast path)")
PLANNER_UNAVAILABLE = N_("Planner unavailable: simple chain")
COMPLEXITY = N_("Complexity: {complexity}")
COMPLEXITY_SPLIT = N_("Complexity: {complexity} ({n} sub-questions)")
RETRIEVAL = N_("Retrieval ({stage})")
RETRIEVAL_DETAIL = N_("{n} chunks, mode {mode}")
RETRIEVAL_DETAIL_ERROR = N_("{n} chunks, mode {mode} — {error}")
GRADE = N_("Grade → {route}")
REWRITE_BUDGET_SPENT = N_("Rewrite budget spent")
NO_SECOND_REWRITE = N_("no second rewrite")
REWRITER_UNAVAILABLE = N_("Rewriter unavailable → {route}")
REWRITE = N_("Rewrite ({method})")
SUB_QUESTION = N_("Sub-question {i}/{n}")
SYNTHESIS = N_("Synthesis → {route}")
SYNTHESIS_DETAIL = N_("{docs} chunks from {results} sub-results ({merged} before de-duplication)")
RESUME = N_("Resume from HITL")
RESUME_DETAIL = N_("{route} answered: {answer}")

TEMPLATES: tuple[str, ...] = (
    COMPLEXITY_FAST_PATH, PLANNER_UNAVAILABLE, COMPLEXITY, COMPLEXITY_SPLIT, RETRIEVAL, RETRIEVAL_DETAIL,
    RETRIEVAL_DETAIL_ERROR, GRADE, REWRITE_BUDGET_SPENT, NO_SECOND_REWRITE, REWRITER_UNAVAILABLE, REWRITE,
    SUB_QUESTION, SYNTHESIS, SYNTHESIS_DETAIL, RESUME, RESUME_DETAIL,
)
"""Every label and detail template the nodes emit."""

_TABLE = TemplateTable(TEMPLATES)


def match_progress(text: str) -> tuple[str, dict[str, str]] | None:
    """(template, its values) when `text` was made from one of TEMPLATES, else None."""
    return _TABLE.match(text)


def translate_progress(text: object) -> str:
    """A progress label or detail in the active language; anything not made from a template (a
    question, an error, a model's reason) comes back unchanged."""
    return _TABLE.translate(text)


def translate_step(step: dict) -> dict:
    """A copy of a progress step (its JSON form) with its label and detail in the active language."""
    out = dict(step)
    for key in ("label", "detail"):
        if key in out:
            out[key] = translate_progress(out[key])
    return out


__all__ = ["TEMPLATES", "match_progress", "translate_progress", "translate_step"]
