"""The running step in the inspector: which node, how long, and each model call as it streams (its
role, elapsed time, tokens so far, the text so far), inside its `Send` lane at a fan-out step.

Pure functions of `rag_debugger.workbench.live_step.LiveJobView`, so AppTest tests read the HTML the browser
shows. The page polls the job and sends only this section while a step runs (rag_debugger/ui/step_controller.py).
"""
from __future__ import annotations

from typing import Optional

from rag.i18n import _
from rag_debugger.debugger.html_page import esc
from rag_debugger.views.html_view import code
from rag_debugger.workbench.live_step import LiveCallView, LiveJobView

TEXT_TAIL = 1500
"""How much of a call's text is shown: its end, where the new tokens are (a runaway reply is long)."""


def _tail(text: str) -> str:
    return text if len(text) <= TEXT_TAIL else "…" + text[-TEXT_TAIL:]


def call_html(call: LiveCallView) -> str:
    state = {"running": _("writing"), "done": _("done"), "cancelled": _("cancelled"),
             "failed": _("failed: {kind}").format(kind=call.error_kind or "?")}[call.state]
    head = _("{role} · {model} · {s} s · {n} tokens · {state}").format(
        role=f"<b>{esc(call.role)}</b>", model=esc(call.model), s=call.elapsed_s, n=call.tokens, state=esc(state))
    body = esc(_tail(call.text)) if call.text else esc(_("(waiting for the first token)"))
    return (f'<div class="rdi-live-call" data-role="{esc(call.role)}" data-state="{call.state}">'
            f'<div class="rdi-caption">{head}</div><pre class="rdi-live-text">{body}</pre></div>')


def live_html(view: LiveJobView) -> str:
    """The running job: a headline, then its calls (per lane at a fan-out)."""
    if view.stopping:
        headline = _("Stopping {nodes}… the model call is being cancelled").format(nodes=code(view.node_label))
    else:
        headline = _("Running {nodes} · {s} s").format(nodes=code(view.node_label), s=view.elapsed_s)
    if view.steps_done:
        headline += esc(_(" · {n} steps done in this Continue").format(n=view.steps_done))
    parts = [f'<div class="rdi-live" data-state="{view.state}" aria-live="polite"><div class="rdi-live-head">'
             f'<span class="rdi-live-dot"></span>{headline}</div>']
    if len(view.lanes) > 1:
        parts.append('<div class="rdi-lanes">')
        for i, lane in enumerate(view.lanes, start=1):
            calls = [c for c in view.calls if c.lane == i]
            title = _("Lane {i}: {name}").format(i=i, name=(lane.label or lane.node)[:60])
            none_yet = '<p class="rdi-caption">' + esc(_("no model call yet")) + "</p>"
            parts.append(f'<div class="rdi-lane" data-lane="{i}"><div class="rdi-lane-title">{esc(title)}</div>'
                         + ("".join(call_html(c) for c in calls) or none_yet) + "</div>")
        parts.append("</div>")
        loose = [c for c in view.calls if c.lane is None]
    else:
        loose = view.calls
    parts.extend(call_html(c) for c in loose)
    if not view.calls:
        parts.append('<p class="rdi-caption">' + esc(_("No model call yet: the node is working.")) + "</p>")
    parts.append("</div>")
    return "".join(parts)


def ended_note_html(note: Optional[str]) -> str:
    """After a Stop (or a step that failed off the page): one quiet line, not a banner."""
    return f'<p class="rdi-caption rdi-live-note">{esc(note)}</p>' if note else ""
