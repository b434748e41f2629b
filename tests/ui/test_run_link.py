"""The URL names the run and the step being viewed: the pure rules (parse, write, place)."""
from __future__ import annotations

import pytest

from rag_debugger.views.run_link import link_for, parse_link, placement


@pytest.mark.parametrize("params, run_id, step, problem", [
    ({"run": "main-0123abcd", "step": "3"}, "main-0123abcd", 3, None),
    ({"run": "demo-zh_scope_select_baiya"}, "demo-zh_scope_select_baiya", None, None),
    ({"run": "main-1", "step": "0"}, "main-1", 0, None),
    ({"run": "main-1", "step": "-2"}, "main-1", None, "not a step number"),
    ({"run": "main-1", "step": "two"}, "main-1", None, "not a step number"),
    ({"run": "main-1", "step": "9" * 40}, "main-1", None, "not a step number"),
    ({"run": "<script>alert(1)</script>", "step": "1"}, None, None, "not a run id"),
    ({"run": "x" * 500}, None, None, "not a run id"),
    ({"run": "   "}, None, None, None),
    ({}, None, None, None),
])
def test_links_are_read_without_ever_raising(params, run_id, step, problem):
    link = parse_link(params)
    assert (link.run_id, link.step) == (run_id, step)
    if problem:
        assert any(problem in p for p in link.problems)
        assert all(len(p) < 200 for p in link.problems)  # a garbled value is shortened, not echoed whole
    else:
        assert not link.problems


@pytest.mark.parametrize("totals, step, expected", [
    ([5], None, (5, None, None)),
    ([5], 2, (2, None, None)),
    ([5], 0, (0, None, None)),
    ([5], 9, (5, None, "this run has 5 steps; showing the last one.")),
    ([3, 3], 4, (1, None, None)),  # inside the resume run: a position there
    ([3, 3], 3, (0, None, None)),
    ([3, 3], 2, (3, 1, None)),  # inside the main run: time travel, the resume at its end
    ([3, 3], 0, (3, 0, "step 0 is before the first node of an earlier run; showing step 1.")),
    ([], 4, (0, None, None)),
])
def test_a_step_is_placed_in_its_run(totals, step, expected):
    assert placement(totals, step) == expected


class _Seg:
    def __init__(self, run_id, steps):
        self.run_id, self.steps = run_id, steps


class _Session:
    def __init__(self, *segments):
        self.segments = list(segments)

    @property
    def current(self):
        return self.segments[-1] if self.segments else None

    def all_steps(self):
        return [(s, i) for s in self.segments for i in range(s.steps)]


def test_the_link_names_the_newest_run_and_the_step_viewed():
    session = _Session(_Seg("main-a", 3), _Seg("resume-b", 2))
    assert link_for(session, None) == {"run": "resume-b", "step": "5"}
    assert link_for(session, 0) == {"run": "resume-b", "step": "1"}
    assert link_for(session, 99) == {"run": "resume-b", "step": "5"}  # a step that is gone: the latest
    assert link_for(_Session(), None) == {}
    assert link_for(_Session(_Seg(None, 2)), None) == {}  # not recorded: nothing to link to
