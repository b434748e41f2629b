"""Which past step the debugger is showing (time travel): shared by every control that moves the
session on, since each of them must return the view to the latest state.

The step is picked by clicking a timeline row in the inspector (a one-shot component trigger, so
the browser holds no selection that could send the old step back later)."""
from __future__ import annotations

from typing import Optional

import streamlit as st

TRAVEL_KEY = "time_travel_step"


def reset_time_travel() -> None:
    """Back to the latest state."""
    st.session_state.pop(TRAVEL_KEY, None)


def travel_to(index: Optional[int]) -> None:
    """View the state after step `index` (0-based over the whole session); None = latest."""
    if index is None or index < 0:
        reset_time_travel()
    else:
        st.session_state[TRAVEL_KEY] = int(index)


def travel_step(step_count: int) -> Optional[int]:
    """The step being viewed, or None for the latest state (also when it no longer exists)."""
    value = st.session_state.get(TRAVEL_KEY)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < step_count:
        return value
    return None
