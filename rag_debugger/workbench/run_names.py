"""The names a debug session gives its runs ("main run", "HITL resume #2", "what-if #1"), and how a page
shows them.

Why English in the session: a run's name is made once and kept (the timeline, the recorded run), while the
reader may switch language at any time; a name made in the language of the moment it was made would stay in
that language. So the session names its runs from these templates, in English, and a page shows a name in the
reader's language with `shown_name`; a name made from no template (an older recording) is shown as it is.
"""
from __future__ import annotations

from rag.i18n import N_
from rag.i18n.read_back import TemplateTable

MAIN_RUN = N_("main run")
HITL_RESUME = N_("HITL resume #{n}")
WHAT_IF = N_("what-if #{n}")
MAIN_RUN_RECORDED = N_("main run (recorded)")
HITL_RESUME_RECORDED = N_("HITL resume #{n} (recorded)")
WHAT_IF_RECORDED = N_("what-if fork (recorded)")

_NAMES = TemplateTable((MAIN_RUN, HITL_RESUME, WHAT_IF, MAIN_RUN_RECORDED, HITL_RESUME_RECORDED, WHAT_IF_RECORDED))


def shown_name(label: object) -> str:
    """A run's name in the reader's language when the session made it, else as it is."""
    return _NAMES.translate(label)


__all__ = ["HITL_RESUME", "HITL_RESUME_RECORDED", "MAIN_RUN", "MAIN_RUN_RECORDED", "WHAT_IF", "WHAT_IF_RECORDED",
           "shown_name"]
