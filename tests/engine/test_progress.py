"""Progress steps: payload, timing, and sub-question groups (docs/workflow.md §3.14)."""
from __future__ import annotations

from rag import run_rag_graph
from rag.schemas import ComplexityResult

from .fakes import FakeRetriever, FakeRoles, chunk


def test_steps_carry_icon_label_elapsed_and_groups(settings):
    steps = []
    roles = FakeRoles(planner=ComplexityResult(complexity="complex", complexity_reason="r", sub_questions=["A?", "B?"]))
    run_rag_graph("比较A和B的区别以及各自的优缺点是什么呢", settings=settings,
                  retriever=FakeRetriever(default=[chunk(1)]), roles=roles.roles(), progress=steps.append)
    assert steps[0].node == "classify_complexity" and steps[0].icon
    assert all(s.label and s.elapsed_ms >= 0 and s.stage_elapsed_ms >= 0 for s in steps)
    assert [s.elapsed_ms for s in steps] == sorted(s.elapsed_ms for s in steps)
    groups = {s.group for s in steps if s.node == "rag_sub_agent"}
    assert groups == {"sub-1", "sub-2"}
    labels = {s.group: s.group_label for s in steps if s.group}
    assert labels == {"sub-1": "A?", "sub-2": "B?"}
    assert steps[-1].node == "synthesis"
