"""Which past step the debugger is showing (time travel): shared by every control that moves the
session on, since each of them must return the view to the latest state."""
from __future__ import annotations

import streamlit as st

TRAVEL_KEY = "time_travel_step"
TIMELINE_KEY = "timeline_table"
TIMELINE_GEN_KEY = "_timeline_generation"


def reset_time_travel() -> None:
    """Back to the latest state. The step picker and the timeline table get new keys: a browser
    keeps a widget's last value (a picked step, a selected row) and would send it back on the next
    rerun, travelling back again; deleting the state on the server does not clear the browser's."""
    st.session_state.pop(travel_key(), None)
    st.session_state[TIMELINE_GEN_KEY] = st.session_state.get(TIMELINE_GEN_KEY, 0) + 1


def _generation() -> int:
    return st.session_state.get(TIMELINE_GEN_KEY, 0)


def timeline_key() -> str:
    return f"{TIMELINE_KEY}_{_generation()}"


def travel_key() -> str:
    return f"{TRAVEL_KEY}_{_generation()}"


