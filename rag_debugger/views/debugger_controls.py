"""Run / Step / Continue / Restart as HTML: the inspector's own buttons, which of them are on, and the line naming
the question they act on. Pure functions of the session's `ControlState` (`control_rule.py`, no Streamlit): the
page dispatches a click in `rag_debugger/ui/panels/controls.py`, and why the buttons are HTML and not
`st.button`s is said there."""
from __future__ import annotations

from typing import NamedTuple, Optional

from rag.i18n import N_, _
from rag_debugger.debugger.html_page import esc
from rag_debugger.views.control_rule import ControlState, enabled_buttons, is_new_question
from rag_debugger.views.icons import svg_icon


class Control(NamedTuple):
    action: str
    label: str
    help: str
    primary: bool = False


CONTROLS: tuple[Control, ...] = (
    Control("run", N_("Run"), N_("Start the question named below and run it to the end, with live progress"),
            primary=True),
    Control("step", N_("Step"), N_("Run exactly one superstep (parallel sub-questions run together); a new question "
                                   "in the box is started first")),
    Control("continue", N_("Continue to end"), N_("Run the remaining steps to the end; a new question in the box is "
                                                  "started first")),
    Control("restart", N_("Restart"), N_("Start the question named below again on a fresh thread, paused before its "
                                         "first node")),
)
"""Labels and tooltips in English, marked; shown through `_()`."""
STOP = Control("stop", N_("Stop"), N_("Cancel the model call that is running: the step does not happen, and the run "
                                      "stays paused before it"))
"""Shown only while a step runs off the page (rag_debugger/workbench/live_step.py)."""
ACTIONS = tuple(c.action for c in CONTROLS) + (STOP.action,)

CONTROLS_HELP = N_("<b>Run</b> starts the question and runs to the end · <b>Step</b> runs exactly one superstep "
                 "(parallel sub-questions run together) · <b>Continue</b> runs to the end · <b>Restart</b> starts "
                 "the question again on a fresh thread")
REPLAY_HELP = N_("Replay: <b>Step</b>, <b>Continue</b> and <b>Restart</b> walk the recorded checkpoints; nothing runs, "
               "so <b>Run</b> is off (leave replay to run live)")
TARGET_CHARS = 60
"""How much of the question the target line quotes (the box shows all of it)."""


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return "“" + esc(text if len(text) <= TARGET_CHARS else text[:TARGET_CHARS - 1] + "…") + "”"


def target_text(*, box: str, loaded: str, has_run: bool, replay: bool) -> str:
    """The line under the controls that names the question they act on (HTML). inspector.js says
    the same while the user types, before the box is sent to the server."""
    if replay:
        return esc(_("Replaying the recorded run of {question}")).format(question=_quote(loaded))
    texts = target_texts()
    if is_new_question(box, loaded, replay=replay):
        out = f"<b>{esc(texts['new'])}</b> {_quote(box)}"
        return out + (esc(texts["was"]).format(question=_quote(loaded)) if has_run and loaded else "")
    if has_run:
        return esc(texts["loaded"]).format(question=_quote(loaded))
    return esc(texts["idle"])


def target_texts() -> dict[str, str]:
    """The target line's words, for the server and for inspector.js (which says the same while the
    user types): the script shows no text of its own, so the page stays in one language."""
    return {"new": _("Run, Step, Continue and Restart start the question in the box:"),
            "was": _(" · the loaded run was {question}"),
            "loaded": _("The controls act on the loaded run: {question}"),
            "idle": _("Type a question above or pick a demo, then Run or Step.")}


def _button(c: Control, enabled: bool) -> str:
    return (f'<button type="button" class="rdi-btn{" rdi-primary" if c.primary else ""}" data-action="{c.action}" '
            f'title="{esc(_(c.help))}"{"" if enabled else " disabled"}>{svg_icon(c.action)}'
            f'<span>{esc(_(c.label))}</span></button>')


def controls_html(state: ControlState, *, box: str = "", loaded: str = "", caption: Optional[str] = None) -> str:
    """The four buttons, on or off by the one rule (`rag_debugger.views.control_rule`), the line naming the
    question they act on, and a one-line help. The data attributes let inspector.js turn Step / Continue on
    and rename the target while the user types. `caption`: another page's help line (raw HTML); such a page
    has no question box, so no target line."""
    enabled = enabled_buttons(state)
    buttons = "".join(_button(c, enabled[c.action]) for c in CONTROLS) + (_button(STOP, True) if state.running else "")
    help_line = _(REPLAY_HELP) if state.replay else (caption or _(CONTROLS_HELP))
    flags = (f'data-done="{int(state.blocked)}" data-has-run="{int(state.started)}" data-replay="{int(state.replay)}"'
             + (' data-running="1"' if state.running else ""))
    target = "" if caption is not None else (
        f'<p class="rdi-target" aria-live="polite">'
        f'{target_text(box=box, loaded=loaded, has_run=state.started, replay=state.replay)}</p>')
    toolbar = esc(_("Debugger controls"))
    return (f'<div class="rdi-controls" role="toolbar" aria-label="{toolbar}" {flags} '
            f'data-loaded="{esc(loaded)}">{buttons}</div>{target}'
            f'<p class="rdi-caption">{help_line}</p>')
