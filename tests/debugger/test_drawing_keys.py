"""A run's HTML file draws each distinct graph picture once, grouping positions by
`GraphSession.drawing_keys()`; one pass over the steps must give what `drawing(step)` gives at each step,
or a position of the file would show another position's picture."""
from __future__ import annotations

import pytest

from rag_debugger.debugger.position import marks_after, marks_along
from rag_debugger.debugger.session import GraphSession
from tests.debugger.test_fork import graph as branching_graph


def finished(spec: str, given: dict, graph=None, answers: tuple = ()) -> GraphSession:
    s = GraphSession(spec=spec, graph=graph) if graph is not None else GraphSession.open(spec)
    s.start(given)
    s.run_to_end()
    for answer in answers:
        s.resume(answer)
        s.run_to_end()
    return s


def picture(s: GraphSession, travel: int) -> tuple:
    d = s.drawing(travel)
    return d.current, d.done, d.fanout_edges


def assert_keys_group_as_pictures(s: GraphSession) -> None:
    keys = s.drawing_keys()
    assert len(keys) == len(s.all_steps())
    pictures = [picture(s, t) for t in range(len(keys))]
    for i in range(len(keys)):
        for j in range(len(keys)):
            assert (keys[i] == keys[j]) == (pictures[i] == pictures[j]), (i, j, pictures[i], pictures[j])
        assert keys[i][0] == pictures[i][0]  # what runs next
        assert tuple(sorted(keys[i][1])) == pictures[i][1]  # what has run


@pytest.mark.parametrize("spec, given, answers", [
    ("rag_debugger.examples.fanout:graph", {"words": ["map", "reduce", "send"]}, ()),
    ("rag_debugger.examples.nested:graph", {"topic": "tides"}, ()),
    ("rag_debugger.examples.approval:graph", {"request": "refund for order 42?"}, ("approve", {"priority": 3})),
    ("rag_debugger.examples.chain:graph", {"text": "hello"}, ()),
])
def test_one_pass_gives_the_picture_of_every_step(spec, given, answers):
    assert_keys_group_as_pictures(finished(spec, given, answers=answers))


def test_a_session_with_a_what_if_fork_and_an_unfinished_head():
    s = finished("tests:branching", {}, graph=branching_graph())
    s.fork(0, "route", "b")
    assert len(s.segments) == 2
    assert_keys_group_as_pictures(s)
    paused = GraphSession(spec="tests:branching", graph=branching_graph())
    paused.start({})
    paused.step()
    assert_keys_group_as_pictures(paused)  # the head: what the stepper says runs next


def test_marks_along_is_marks_after_at_every_step():
    s = finished("rag_debugger.examples.fanout:graph", {"words": ["a", "b", "c"]})
    steps = s.current.stepper.steps
    along = list(marks_along(steps))
    assert along == [marks_after(steps, n) for n in range(1, len(steps) + 1)]
