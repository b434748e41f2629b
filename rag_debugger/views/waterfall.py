"""Where the time went: a waterfall of a stepping session, one bar per step, parallel lanes side
by side under their step, and any timed spans a caller attached to a step (model calls) inside it.

Why from the records: each step already carries its duration, each streamed lane when LangGraph
reported its start and end, and the caller's `on_step` hook may add `annotations["spans"]`
(`{"label", "start_ms", "ms", "detail"}`, start from the step's start). Time spent paused between
Steps is left out: the bars are laid end to end as if the run had not been paused. Pure functions;
escaped; nothing about RAG.
"""
from __future__ import annotations

from typing import Optional, Sequence

from pydantic import BaseModel

from rag_debugger.debugger.i18n import _, ngettext
from rag_debugger.debugger.records import StepRecord


class Bar(BaseModel):
    kind: str  # "step" | "lane" | "span"
    label: str
    start_ms: float
    ms: float
    detail: str = ""
    failed: bool = False


def waterfall_bars(records: Sequence[StepRecord]) -> list[Bar]:
    bars: list[Bar] = []
    offset = 0.0
    for n, rec in enumerate(records, start=1):
        bars.append(Bar(kind="step", label=f"{n}. {', '.join(rec.nodes)}", start_ms=offset,
                        ms=rec.duration_ms, failed=bool(rec.error)))
        if len(rec.lanes) > 1:
            for i, lane in enumerate(rec.lanes, start=1):
                if lane.started_ms is None or lane.ended_ms is None:
                    continue
                label = _("lane {i}: {node}").format(i=i, node=lane.node)
                bars.append(Bar(kind="lane", label=label, start_ms=offset + lane.started_ms,
                                ms=max(0.0, lane.ended_ms - lane.started_ms), failed=bool(lane.error)))
        for span in rec.annotations.get("spans") or []:
            start = min(max(0.0, float(span.get("start_ms") or 0.0)), rec.duration_ms)
            bars.append(Bar(kind="span", label=str(span.get("label", "")), start_ms=offset + start,
                            ms=float(span.get("ms") or 0.0), detail=str(span.get("detail") or ""),
                            failed=not span.get("ok", True)))
        offset += rec.duration_ms
    return bars


def _fmt(ms: float) -> str:
    return _("{ms} ms").format(ms=f"{ms:.0f}" if ms >= 10 else f"{ms:.1f}")


def waterfall_html(records: Sequence[StepRecord], *, note: Optional[str] = None) -> str:
    from rag_debugger.debugger.html_page import esc

    bars = waterfall_bars(records)
    if not bars:
        return ""
    total = max((b.start_ms + b.ms for b in bars), default=0.0) or 1.0
    rows = []
    for b in bars:
        left = 100.0 * b.start_ms / total
        width = max(0.4, 100.0 * b.ms / total)
        klass = f"rdi-wf-row rdi-wf-{b.kind}" + (" rdi-wf-failed" if b.failed else "")
        text = f"{b.label} · {_fmt(b.ms)}" + (f" · {b.detail}" if b.detail else "")
        rows.append(f'<div class="{klass}" data-kind="{esc(b.kind)}" title="{esc(text)}">'
                    f'<span class="rdi-wf-label">{esc(b.label)}</span><span class="rdi-wf-track">'
                    f'<span class="rdi-wf-bar" style="left:{left:.2f}%;width:{min(width, 100.0 - left):.2f}%"></span>'
                    f'</span><span class="rdi-wf-ms">{esc(_fmt(b.ms))}{esc(" · " + b.detail if b.detail else "")}</span></div>')
    caption = ('<p class="rdi-caption">' + esc(ngettext("{n} step, {ms} of work (time paused between Steps left out)",
                                                           "{n} steps, {ms} of work (time paused between Steps left out)",
                                                           len(records)).format(
        n=len(records), ms=_fmt(sum(r.duration_ms for r in records)))) + (f" · {esc(note)}" if note else "") + "</p>")
    return f'<div class="rdi-waterfall" id="waterfall">{caption}{"".join(rows)}</div>'
