"""The names of a session's runs ("main run", "HITL resume #2", "what-if #1") as the page shows them.

Why here: the debug session (rag/workbench/session.py) names its runs in English when it creates them,
and the name is data too (a run's label is recorded with it). The page translates the known shapes when
it shows them, in the page's language, and shows anything else as it is (a label that is already
translated, or one from an older recording)."""
from __future__ import annotations

import re

from rag.i18n import _

_RECORDED = " (recorded)"
_PATTERNS = (
    (re.compile(r"main run"), lambda m: _("main run")),
    (re.compile(r"HITL resume #(\d+)"), lambda m: _("HITL resume #{n}").format(n=m.group(1))),
    (re.compile(r"what-if #(\d+)"), lambda m: _("what-if #{n}").format(n=m.group(1))),
)


def run_label(label: object) -> str:
    """`label` in the page's language when it is one of the session's own names, else as it is."""
    text = "" if label is None else str(label)
    recorded = text.endswith(_RECORDED)
    core = text[: -len(_RECORDED)] if recorded else text
    for pattern, say in _PATTERNS:
        m = pattern.fullmatch(core)
        if m:
            shown = say(m)
            return _("{run} (recorded)").format(run=shown) if recorded else shown
    return text
