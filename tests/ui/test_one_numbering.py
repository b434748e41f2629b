"""One source for every number and sentence describing a run: walking a complex run, a HITL resume, a
what-if fork and a comparison, the step heading, the timeline, the URL and the position line agree with
the session, counted words follow the count, and a comparison never says "no divergence" beside an
outcome that differs."""
from __future__ import annotations

import re

import pytest

from rag.demo import load_demo_questions
from rag.runs.history import RunHistory
from rag.settings import RagSettings
from rag_debugger.views.inspector_html import inspector_sections, position_html
from rag_debugger.views.run_link import link_for
from rag_debugger.workbench.session import DebugSession

STEP_HEADING = re.compile(r'<h4 class="rdi-step-title">Step (\d+):')


@pytest.fixture
def history(tmp_path):
    h = RunHistory(tmp_path / "history.db")
    yield h
    h.close()


def _demo(route: str):
    return next(d for d in load_demo_questions() if d.expected_route == route)


def _sections(session, travel=None):
    sections, _values = inspector_sections(session, travel, interactive=False)
    return sections


def _heading(sections) -> int | None:
    found = STEP_HEADING.search(sections["step"])
    return int(found.group(1)) if found else None


def test_a_complex_run_numbers_every_step_once(history):
    session = DebugSession(RagSettings(model_provider="offline"), history=history)
    session.start(_demo("complex").question)
    lanes_seen = False
    while not session.done:
        record = session.step()
        pairs = session.all_steps()
        sections = _sections(session)
        assert _heading(sections) == len(pairs)  # the heading says the timeline's number
        assert link_for(session, None)["step"] == str(len(pairs))  # and so does the URL
        for travel in range(len(pairs)):  # time travel: the same number everywhere
            assert _heading(_sections(session, travel)) == travel + 1
            assert link_for(session, travel)["step"] == str(travel + 1)
        if "rag_sub_agent" in record.nodes:
            lanes_seen = True
            evidence = sections["evidence"]
            assert "No retrieval yet" not in evidence and "parallel lanes retrieved" in evidence
    assert lanes_seen
    n = len(session.current.stepper.steps)
    assert f"· {n} steps ·" in position_html(session)


def test_right_after_a_resume_the_page_shows_the_resume_not_the_run_before(history):
    demo = _demo("clarify")
    session = DebugSession(RagSettings(model_provider="offline"), history=history)
    session.start(demo.question)
    session.run_to_end()
    main_steps = len(session.all_steps())
    session.answer_hitl(demo.hitl_answer)
    position = position_html(session)
    assert "0 steps" in position and "paused before" in position
    sections = _sections(session)
    assert _heading(sections) is None  # no step of the main run shown as if it were the resume's
    session.step()
    assert "· 1 step ·" in position_html(session)  # one step, not "1 steps"
    assert _heading(_sections(session)) == main_steps + 1 == len(session.all_steps())


def test_a_fork_and_its_comparison_say_the_same_thing(history, tmp_path):
    from rag.runs.divergence import compare_sides, outcome_differences
    from rag_debugger.views.compare_content import comparison_blocks

    demo = _demo("answer")
    session = DebugSession(RagSettings(model_provider="offline"), history=history)
    session.start(demo.question)
    session.run_to_end()
    original = session.current
    retrieval = next(i for i, (_seg, rec) in enumerate(session.all_steps()) if "retrieve_initial" in rec.nodes)
    session.fork(retrieval, "docs", [])  # what if nothing had been retrieved?
    fork = session.current
    pairs = session.all_steps()
    assert fork.stepper.steps and pairs[-1][0] is fork
    assert _heading(_sections(session)) == len(pairs)
    assert fork.stepper.current_values().get("route") != original.stepper.current_values().get("route")

    from rag.runs.divergence import side_from_history

    a, b = side_from_history(history, original.run_id), side_from_history(history, fork.run_id)
    rc = compare_sides(a, b)
    assert "route" in outcome_differences(rc)
    blocks = comparison_blocks(rc, a, b, show_all=False)
    texts = " ".join(str(bl.text) for bl in blocks)
    assert "no divergence" not in texts
    assert f"`{rc.route[0]}` → `{rc.route[1]}`" in texts


def test_no_divergence_is_said_only_when_nothing_differs():
    from rag.runs.divergence import RunComparison
    from rag_debugger.debugger.alignment import Comparison
    from rag_debugger.views.compare_content import comparison_blocks

    class Side:
        def segments(self):
            return []

        class last:
            result = {"route": "answer"}

    def rc(**kw):
        base = dict(a="a", b="b", comparison=Comparison(rows=[], first=None), cause="none", settings=[],
                    prompt_versions=("default", "default"), prompt_diffs={}, route=("answer", "answer"),
                    answer_same=True, answered=True, graphs=("rag", "rag"))
        return RunComparison(**{**base, **kw})

    same = comparison_blocks(rc(), Side(), Side(), show_all=False)
    assert any(b.kind == "success" and "no divergence" in b.text for b in same)
    for differs in (dict(answer_same=False), dict(answer_same=False, answered=False), dict(route=("answer", "clarify")),
                    dict(prompt_versions=("default", "v2"))):
        blocks = comparison_blocks(rc(**differs), Side(), Side(), show_all=False)
        assert not any("no divergence" in b.text for b in blocks), differs
        assert any(b.kind == "warning" and "differ in" in b.text for b in blocks), differs
