"""Which of Run / Step / Continue / Restart / Stop can be clicked: one rule for both debugger pages.

Why its own module: the rule is read in three places that must agree (the buttons the inspector draws,
the click the controller takes or drops, and the tests), and it is pure, so it is tested as a table
(tests/ui/test_control_rule.py). `control_state` is the one place that reads a session for it, whichever
session it is (the RAG workflow's or a graph of your own). inspector.js repeats the box part of the rule
while the user types, before the box reaches the server.
"""
from __future__ import annotations

from typing import Any, NamedTuple


class ControlState(NamedTuple):
    """What the buttons depend on, read from the session (`control_state`)."""

    started: bool
    """A run (or a recording) is loaded."""
    finished: bool
    """Nothing is left to run: the graph ended, a step ended it for good, or a recording reached its end."""
    waiting: bool = False
    """The run waits for the user: an `interrupt()` to answer, or the RAG workflow's follow-up question."""
    replay: bool = False
    """A recording: nothing may execute."""
    new_input: bool = False
    """The question box holds another question than the loaded run's: every control acts on the box."""
    running: bool = False
    """A step runs off the page (a live model): only Stop can be used."""

    @property
    def blocked(self) -> bool:
        """Nothing for Step / Continue to do on the loaded run."""
        return self.finished or self.waiting


BUTTONS = ("run", "step", "continue", "restart", "stop")


def enabled_buttons(state: ControlState) -> dict[str, bool]:
    """Which controls can be used. Step and Continue also work before any run, and after one ended or
    asked a question when the box holds a new question: they start it first. A failed step leaves them on
    (Step retries it). A replay cannot Run (nothing may execute). While a step runs only Stop can be used:
    a second click never queues a step."""
    if state.running:
        return {"run": False, "step": False, "continue": False, "restart": False, "stop": True}
    fresh = state.new_input and not state.replay
    go_on = not state.blocked or fresh
    return {"run": not state.replay, "step": go_on, "continue": go_on, "restart": state.started or fresh,
            "stop": False}


def is_new_question(box: str, loaded: str, *, replay: bool) -> bool:
    """Whether the question box holds a question other than the loaded run's. Then every control
    acts on the box: Run, Step, Continue and Restart start it (a finished run no longer blocks Step).
    A replay's box is locked to its recording. A page with no box passes "": never new."""
    text = (box or "").strip()
    return not replay and bool(text) and text != (loaded or "").strip()


def control_state(session: Any, *, box: str = "", running: bool = False) -> ControlState:
    """The session's state as the buttons see it. The only place that reads a session for the rule, so
    both sessions' words for "waiting" (LangGraph's `interrupt()`, the RAG workflow's follow-up question
    in its result) land in one field."""
    replay = bool(session.replay_mode)
    if running:  # the worker moves the session: read only what is fixed while it runs, never its head
        return ControlState(started=True, finished=False, replay=replay, running=True)
    seg = session.current
    finished = bool(seg is not None and seg.stepper.done)
    waiting = bool(seg is not None and session.pending_interrupts())
    if seg is not None and finished and not waiting and not replay:
        snapshot = getattr(session, "hitl_snapshot", None)
        waiting = bool(snapshot is not None and snapshot())
    return ControlState(started=bool(session.segments), finished=finished, waiting=waiting, replay=replay,
                        new_input=is_new_question(box, session.question, replay=replay))


__all__ = ["BUTTONS", "ControlState", "control_state", "enabled_buttons", "is_new_question"]
