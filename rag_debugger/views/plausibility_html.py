"""Plausibility warnings on a step: where the model that wrote the step's output seems to have guessed
(`rag.rules.plausibility`: HITL options in no chunk, a grade reason that quotes nothing of the evidence, a
sub-question that repeats the question).

Why a panel of its own, and not the degraded-run banner: nothing failed and the route stands (the spec's
rules decide it); this is a hint for the person tuning prompts. A live step carries the warnings as data (its
`plausibility` annotation); a recorded or replayed run carries them as progress steps, shown as they were
recorded."""
from __future__ import annotations

from typing import Any, Optional

from rag.i18n import N_, _
from rag.rules.plausibility import MEANINGS, PlausibilityWarning, describe
from rag_debugger.debugger.html_page import esc
from rag_debugger.workbench.step_events import PLAUSIBILITY_ICON

# The sentences of rag.rules.plausibility.MEANINGS, marked for the catalogues (they are message ids).
_MESSAGES = (
    N_("HITL option “{subject}” appears in no retrieved chunk: the model may have invented it"),
    N_("the grade's reason “{subject}” quotes nothing of the evidence: the model may not have read it"),
    N_("sub-question “{subject}” repeats the question: the split adds nothing"),
)
assert set(_MESSAGES) == set(MEANINGS.values()), "each check's sentence is marked for translation"


def step_warnings(record: Any) -> list[str]:
    """The step's warnings as sentences in the reader's language."""
    if record is None:
        return []
    annotations = getattr(record, "annotations", None) or {}
    found = annotations.get("plausibility")
    if found:
        out = []
        for item in found:
            warning = PlausibilityWarning.model_validate({k: v for k, v in item.items() if k != "node"})
            lane = _(" (sub-question “{question}”)").format(question=warning.lane) if warning.lane else ""
            out.append(describe(warning, _) + lane)
        return out
    return [str(p.get("detail") or "") for p in annotations.get("progress") or []
            if p.get("icon") == PLAUSIBILITY_ICON]


def plausibility_html(record: Optional[Any]) -> str:
    """HTML of the warnings of the step shown, or "" when there are none."""
    warnings = step_warnings(record)
    if not warnings:
        return ""
    items = "".join(f"<li>{esc(w)}</li>" for w in warnings)
    return ('<div class="rdi-plausibility" role="note"><b>'
            + esc(_("Plausibility: the model may be guessing in this step ({n})").format(n=len(warnings)))
            + "</b> " + esc(_("The route stands (the rules decide it); this is a hint for tuning the prompt."))
            + f"<ul>{items}</ul></div>")
