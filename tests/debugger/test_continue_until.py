"""Continue belongs to the session: `continue_until` steps through the session's own `step` (so
recording and outcomes follow each step) and stops at the end, a failed step, a breakpoint before
the next superstep, or the step limit. Tested on a scripted stepper, as a table."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import pytest

from rag_debugger.debugger.breakpoints import ContinueResult, continue_until


@dataclass
class Scripted:
    """A stepper that walks `plan` (the nodes of each superstep), failing at `fail_at` if set."""

    plan: list[tuple[str, ...]]
    fail_at: Optional[int] = None
    taken: list[tuple[str, ...]] = field(default_factory=list)
    error: Optional[str] = None

    @property
    def done(self) -> bool:
        return len(self.taken) == len(self.plan)

    @property
    def next_nodes(self) -> tuple[str, ...]:
        return () if self.done else self.plan[len(self.taken)]

    def step(self) -> tuple[str, ...]:
        if self.fail_at is not None and len(self.taken) == self.fail_at:
            self.error = "boom"
            return ("failed",)
        self.taken.append(self.plan[len(self.taken)])
        return self.taken[-1]


PLAN = [("a",), ("b",), ("lane", "lane"), ("c",)]


@pytest.mark.parametrize("stops, fail_at, limit, expected, where", [
    ((), None, 200, ContinueResult(steps=4), 4),                       # to the end
    ({"lane"}, None, 200, ContinueResult(steps=2, hit="lane"), 2),     # before a fan-out: all its lanes
    ({"c", "b"}, None, 200, ContinueResult(steps=1, hit="b"), 1),      # the first breakpoint ahead
    ({"nowhere"}, None, 200, ContinueResult(steps=4), 4),              # a breakpoint on no node ahead
    ((), 2, 200, ContinueResult(steps=3, error="boom"), 2),            # a failed step stops it
    ((), None, 3, ContinueResult(steps=3, limited=True), 3),           # a graph that loops: the limit
])
def test_continue_stops_where_the_rule_says(stops, fail_at, limit, expected, where):
    stepper = Scripted(PLAN, fail_at=fail_at)
    seen = []
    assert continue_until(stepper, stepper.step, stops, on_step=seen.append, limit=limit) == expected
    assert len(stepper.taken) == where
    assert len(seen) == expected.steps  # the page streams a line per step as it comes


def test_continue_from_a_breakpoint_goes_on_to_the_next_one():
    stepper = Scripted(PLAN)
    assert continue_until(stepper, stepper.step, {"b", "c"}).hit == "b"
    assert continue_until(stepper, stepper.step, {"b", "c"}).hit == "c"  # paused before b: b runs
    assert continue_until(stepper, stepper.step, {"b", "c"}) == ContinueResult(steps=1)


def test_a_finished_or_failed_run_does_not_step_again():
    done = Scripted([("a",)])
    done.step()
    assert continue_until(done, done.step) == ContinueResult(steps=0)
    failed = Scripted(PLAN, fail_at=0)
    failed.step()
    assert continue_until(failed, failed.step) == ContinueResult(steps=0, error="boom")


def test_a_run_that_waits_for_an_answer_stops_there():
    stepper = Scripted(PLAN)
    asked = {"now": False}

    def step():
        out = stepper.step()
        asked["now"] = out == ("b",)  # the second superstep ends in an interrupt()
        return out

    assert continue_until(stepper, step, waiting=lambda: asked["now"]) == ContinueResult(steps=2)
    assert continue_until(stepper, step, waiting=lambda: asked["now"]).steps == 0  # still waiting: no step
