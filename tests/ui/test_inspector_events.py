"""What the inspector's browser events do on the server: a timeline click travels (a bad value is
ignored), "back to the latest step" returns, the full-state switch is read back."""
from __future__ import annotations

import types

import pytest

import ui.panels.inspector as inspector
import ui.panels.time_travel as time_travel


@pytest.fixture()
def state(monkeypatch):
    fake = types.SimpleNamespace(session_state={})
    monkeypatch.setattr(inspector, "st", fake)
    monkeypatch.setattr(time_travel, "st", fake)
    return fake.session_state


@pytest.mark.parametrize("sent, travelled", [(2, 2), (0, 0), (2.0, 2), (-1, None), (True, None), ("2", None), (None, None)])
def test_a_timeline_click_travels_and_anything_else_is_ignored(state, sent, travelled):
    state[inspector.KEY] = {"travel": sent}
    inspector._on_travel()
    assert time_travel.travel_step(5) == travelled


def test_back_to_latest_and_a_step_that_no_longer_exists(state):
    state[inspector.KEY] = {"travel": 3}
    inspector._on_travel()
    assert time_travel.travel_step(5) == 3
    assert time_travel.travel_step(2) is None  # after a restart the old step is gone: the latest is shown
    state[inspector.KEY] = {"travel": -1}
    inspector._on_travel()
    assert time_travel.TRAVEL_KEY not in state


def test_the_full_state_switch_is_read_back(state):
    assert not inspector.full_state_wanted()
    state[inspector.KEY] = types.SimpleNamespace(full_state=True, travel=None)  # the component's result object
    assert inspector.full_state_wanted()
