"""The graph's highlight at any step of a run, read from the step records alone (time travel)."""
from __future__ import annotations

import pytest

from rag_debugger.debugger import GraphStepper
from rag_debugger.debugger.position import END_ID, START_ID, marks_after
from rag_debugger.debugger.replay import ReplayStepper, record_thread
from tests.debugger import toy_graphs as tg


def _ran(graph, inp):
    s = GraphStepper(graph)
    s.start(inp)
    s.run_to_end()
    return s


def test_every_past_step_shows_what_had_run_and_what_ran_next():
    s = _ran(tg.fanout_graph(), {"question": "q"})
    assert [r.nodes for r in s.steps] == [("plan",), ("worker",), ("merge",)]

    before = marks_after(s.steps, 0)
    assert before.current == ("plan",) and before.done == {START_ID} and not before.finished

    after_plan = marks_after(s.steps, 1)
    assert after_plan.current == ("worker",) * 3 and after_plan.done == {START_ID, "plan"}
    assert after_plan.lanes == 3  # the fan-out about to run

    after_workers = marks_after(s.steps, 2)
    assert after_workers.current == ("merge",) and "worker" in after_workers.done and END_ID not in after_workers.done

    end = marks_after(s.steps, 3, next_now=s.next_nodes, finished_now=s.done)
    assert end.finished and end.current == () and {"merge", END_ID} <= end.done and end.lanes == 3
    assert marks_after(s.steps) == end  # the default is the latest step


def test_a_failed_step_is_not_finished_and_retries_the_same_node():
    s = _ran(tg.crashing_graph(), {})
    marks = marks_after(s.steps, len(s.steps))
    assert not marks.finished and "crash" in marks.current and END_ID not in marks.done


def test_a_replay_gives_the_same_marks_as_the_live_run():
    graph = tg.fanout_graph()
    live = _ran(graph, {"question": "q"})
    replay = ReplayStepper(record_thread(graph, live.config))
    replay.run_to_end()
    for n in range(len(live.steps) + 1):
        assert marks_after(replay.steps, n) == marks_after(live.steps, n)


@pytest.mark.parametrize("steps", [-1, 4])
def test_a_step_outside_the_run_is_refused(steps):
    s = _ran(tg.linear_graph(), {"n": 0})
    with pytest.raises(ValueError, match="3 step"):
        marks_after(s.steps, steps)
