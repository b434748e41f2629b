"""Run / Step / Continue / Restart: plain HTML buttons inside the inspector, not `st.button`s.

Why: every Streamlit widget in the workbench fragment is sent again and re-rendered by the
browser on every Step (a delta message and a React render each, plus its styled label). With the
four buttons drawn by the inspector, a Step sends one element instead of six, and the buttons keep
their DOM node (and keyboard focus) from one Step to the next; bench/ui_step.py measured about
10 ms less per Step. Their tooltips are plain `title`s, which cost nothing to re-send.

A click sends the inspector's one-shot `action` trigger. Its callback only queues the action
(`queue_action`); the workbench takes it (`take_action`) before it draws anything, which is where a
button callback would have run. One path for every way in: a click, the keyboard (they are real
`<button>`s), or an AppTest test that queues the action itself.
"""
from __future__ import annotations

import logging
from typing import Any, Callable, Mapping, NamedTuple, Optional

import streamlit as st

from debugger.html_view import esc
from ui.panels.icons import svg_icon

log = logging.getLogger(__name__)

PENDING_ACTION_KEY = "pending_action"


class Control(NamedTuple):
    action: str
    label: str
    help: str
    primary: bool = False


CONTROLS: tuple[Control, ...] = (
    Control("run", "Run", "Start the question and run it to the end, with live progress", primary=True),
    Control("step", "Step", "Run exactly one superstep (parallel sub-questions run together)"),
    Control("continue", "Continue to end", "Run the remaining steps to the end"),
    Control("restart", "Restart", "Start the same question again on a fresh thread"),
)
ACTIONS = tuple(c.action for c in CONTROLS)

CONTROLS_HELP = ("<b>Run</b> starts the question and runs to the end · <b>Step</b> runs exactly one superstep "
                 "(parallel sub-questions run together) · <b>Continue</b> runs to the end · <b>Restart</b> starts the "
                 "same question again on a fresh thread")
REPLAY_HELP = ("Replay: <b>Step</b>, <b>Continue</b> and <b>Restart</b> walk the recorded checkpoints; nothing runs, "
               "so <b>Run</b> is off (leave replay to run live)")


def enabled_actions(*, done: bool, has_run: bool, replay: bool) -> dict[str, bool]:
    """Which controls can be used. Step and Continue also work before any run: they start the
    question first. A replay cannot Run (nothing may execute)."""
    return {"run": not replay, "step": not done, "continue": not done, "restart": has_run}


def controls_html(*, done: bool, has_run: bool, replay: bool) -> str:
    enabled = enabled_actions(done=done, has_run=has_run, replay=replay)
    buttons = "".join(
        f'<button type="button" class="rdi-btn{" rdi-primary" if c.primary else ""}" data-action="{c.action}" '
        f'title="{esc(c.help)}"{"" if enabled[c.action] else " disabled"}>{svg_icon(c.action)}'
        f'<span>{esc(c.label)}</span></button>'
        for c in CONTROLS
    )
    help_line = REPLAY_HELP if replay else CONTROLS_HELP
    return f'<div class="rdi-controls" role="toolbar" aria-label="Debugger controls">{buttons}</div>' \
           f'<p class="rdi-caption">{help_line}</p>'


def queue_action(value: Any) -> None:
    """The inspector's `action` trigger fired. Anything but a known action is ignored: the value
    comes from the browser."""
    if isinstance(value, str) and value in ACTIONS:
        st.session_state[PENDING_ACTION_KEY] = value
    else:
        log.warning("ignored an unknown debugger action: %r", value)


def take_action(handlers: Mapping[str, Callable[[], None]], enabled: Mapping[str, bool]) -> Optional[str]:
    """Run the queued action, if any, and return its name. A control that is off (Step on a
    finished run, a stale click from an older page) does nothing, as a disabled button would."""
    action = st.session_state.pop(PENDING_ACTION_KEY, None)
    if action not in handlers or not enabled.get(action, False):
        return None
    handlers[action]()
    return action
