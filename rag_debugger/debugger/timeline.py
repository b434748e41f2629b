"""The timeline of a stepping session: one entry per superstep, ready for a table.

What counts as a "decision" (a route, a branch taken) is domain knowledge, so the caller passes a
function of the state; this module stays generic. A step shows a decision only when it made it:
when the function gives a different answer for the state after the step than for the state before.
A route decided at step 3 would otherwise be repeated on every later step that decides nothing,
and a reader could not tell which step chose it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Optional

if TYPE_CHECKING:
    import pandas as pd

from pydantic import BaseModel, ConfigDict, Field

from rag_debugger.debugger.i18n import N_, _
from rag_debugger.debugger.records import StepRecord
from rag_debugger.debugger.state_diff import format_value

#: Both are handed a step's own dicts (`StepRecord.values_after` / `values_before`, `annotations`), so a
#: function typed for a plain dict fits as well as one for any mapping.
DecisionFn = Callable[[dict[str, Any]], Any]
AnnotationFormatter = Callable[[dict[str, Any]], str]

TIMELINE_COLUMNS: tuple[str, ...] = (N_("step"), N_("nodes"), N_("lanes"), N_("duration_ms"), N_("decision"),
                                     N_("error"), N_("notes"))
"""The rows' keys, and the English headings (tables show them translated: `html_view.table(translate=True)`)."""


class TimelineEntry(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    index: int
    nodes: tuple[str, ...]
    lane_count: int = 0
    duration_ms: float = 0.0
    decision: Optional[str] = None
    error: Optional[str] = None
    annotations: dict[str, Any] = Field(default_factory=dict)
    after_checkpoint_id: Optional[str] = None


_FAILED = N_("‹decision failed: {error}›")


class _Failed(str):
    """The text shown for a decision function that raised (never equal to a real decision)."""


def _decide(decision: Optional[DecisionFn], values: dict[str, Any]) -> Optional[str]:
    """A broken decision function must not break the timeline: show why instead."""
    if decision is None:
        return None
    try:
        value = decision(values)
    except Exception as exc:
        return _Failed(_(_FAILED).format(error=type(exc).__name__))
    if value is None:
        return None
    return value if isinstance(value, str) else format_value(value)


def _made(decision: Optional[DecisionFn], step: StepRecord) -> Optional[str]:
    """The decision this step made: None when the state after it decides the same as before it."""
    after = _decide(decision, step.values_after)
    if after is None:
        return None
    if not isinstance(after, _Failed) and after == _decide(decision, step.values_before):
        return None
    return after


def build_timeline(steps: Iterable[StepRecord], decision: Optional[DecisionFn] = None) -> list[TimelineEntry]:
    return [
        TimelineEntry(
            index=s.index,
            nodes=tuple(s.nodes),
            lane_count=len(s.lanes),
            duration_ms=s.duration_ms,
            decision=_made(decision, s),
            error=s.error,
            annotations=dict(s.annotations),
            after_checkpoint_id=s.after_checkpoint_id,
        )
        for s in steps
    ]


def _default_notes(annotations: Mapping[str, Any]) -> str:
    return "; ".join(f"{k}: {format_value(v, max_chars=200)}" for k, v in annotations.items())


def timeline_rows(
    steps_or_entries: Iterable[StepRecord | TimelineEntry],
    decision: Optional[DecisionFn] = None,
    *,
    notes: Optional[AnnotationFormatter] = None,
) -> list[dict[str, Any]]:
    """One dict per step with TIMELINE_COLUMNS; `step` is 1-based for people, `index` stays 0-based.
    A record becomes its row directly, not through a `TimelineEntry`: a run's HTML file asks for the rows
    of every step, and validating an entry per step was most of that."""
    fmt = notes or _default_notes
    rows = []
    for item in steps_or_entries:
        if isinstance(item, TimelineEntry):
            rows.append(_row(item.index, item.nodes, item.lane_count, item.duration_ms, item.decision, item.error,
                             item.annotations, fmt))
        else:
            rows.append(_row(item.index, item.nodes, len(item.lanes), item.duration_ms, _made(decision, item),
                             item.error, item.annotations, fmt))
    return rows


def _row(index: int, nodes: Iterable[str], lanes: int, duration_ms: float, decision: Optional[str],
         error: Optional[str], annotations: Mapping[str, Any], fmt: AnnotationFormatter) -> dict[str, Any]:
    return {
        "step": index + 1,
        "nodes": ", ".join(nodes),
        "lanes": lanes,
        "duration_ms": round(duration_ms, 1),
        "decision": decision or "",
        "error": error or "",
        "notes": fmt(dict(annotations)) if annotations else "",
    }


def timeline_frame(
    steps_or_entries: Iterable[StepRecord | TimelineEntry],
    decision: Optional[DecisionFn] = None,
    *,
    notes: Optional[AnnotationFormatter] = None,
) -> pd.DataFrame:
    """`timeline_rows` as a DataFrame with TIMELINE_COLUMNS."""
    import pandas as pd

    return pd.DataFrame(timeline_rows(steps_or_entries, decision, notes=notes), columns=list(TIMELINE_COLUMNS))
