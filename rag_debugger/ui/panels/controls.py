"""Run / Step / Continue / Restart: plain HTML buttons inside the inspector, not `st.button`s.

Why: every Streamlit widget in the workbench fragment is sent again and re-rendered by the
browser on every Step (a delta message and a React render each, plus its styled label). With the
four buttons drawn by the inspector, a Step sends one element instead of six, and the buttons keep
their DOM node (and keyboard focus) from one Step to the next; bench/ui_step.py measured about
10 ms less per Step. Their tooltips are plain `title`s, which cost nothing to re-send.

A click sends the inspector's one-shot `action` trigger. Its callback only queues the action
(`queue_action`); the workbench takes it (`take_action`) before it draws anything, which is where a
button callback would have run. One path for every way in: a click, the keyboard (they are real
`<button>`s), or an AppTest test that queues the action itself. The buttons' HTML and which are on:
`rag_debugger/views/debugger_controls.py`.
"""
from __future__ import annotations

import logging
from typing import Any, Callable, Mapping, Optional

import streamlit as st

from rag_debugger.views.debugger_controls import ACTIONS

log = logging.getLogger(__name__)

PENDING_ACTION_KEY = "pending_action"


def queue_action(value: Any) -> None:
    """The inspector's `action` trigger fired. Anything but a known action is ignored: the value
    comes from the browser."""
    if isinstance(value, str) and value in ACTIONS:
        st.session_state[PENDING_ACTION_KEY] = value
    else:
        log.warning("ignored an unknown debugger action: %r", value)


def take_action(handlers: Mapping[str, Callable[[], None]], enabled: Mapping[str, bool]) -> Optional[str]:
    """Run the queued action, if any, and return its name. A control that is off (Step on a
    finished run, a stale click from an older page) does nothing, as a disabled button would.
    The pages call it through their controller (rag_debugger/ui/step_controller.py)."""
    action = st.session_state.pop(PENDING_ACTION_KEY, None)
    if action not in handlers or not enabled.get(action, False):
        return None
    handlers[action]()
    return action
