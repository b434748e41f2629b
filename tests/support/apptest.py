"""Helpers for AppTest tests of the app's pages."""
from __future__ import annotations


def time_travel_picker(at):
    """The debugger's step picker (its key changes each time the view returns to the latest state)."""
    return next(s for s in at.selectbox if s.label.startswith("View the state after step"))
