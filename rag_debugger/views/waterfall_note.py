"""The line under the waterfall that says how many model calls it shows, and why there are none.

Why its own rule: "no model calls" means different things. A live run (or a replay of one recorded
with its timings) that made none ran on the offline rules; a replay of a run recorded before runs kept
their model calls (or of a run that failed, which keeps no result) simply does not know them, and must
not look like a run that made none.
"""
from __future__ import annotations

from typing import Sequence

from rag.i18n import _, ngettext
from rag_debugger.debugger.records import StepRecord
from rag_debugger.debugger.replay import SPANS_RECORDED


def waterfall_note(records: Sequence[StepRecord]) -> str:
    calls = sum(len(rec.annotations.get("spans") or []) for rec in records)
    if calls:
        return ngettext("{n} model call", "{n} model calls", calls).format(n=calls)
    if any(rec.annotations.get(SPANS_RECORDED) is False for rec in records):
        return _("model calls not shown: this recording does not keep them (it was recorded before runs kept "
                 "their model calls, or the run failed)")
    return _("no model calls (offline rules)")


__all__ = ["waterfall_note"]
