"""A replayed run's waterfall shows the model calls the live run made: a demo question run live in the
debugger against a model endpoint (the fake OpenAI-compatible server) is recorded with its steps'
timings; its replay from the run history, and from an export imported elsewhere, lists the same model
calls (role, model, latency, in the same steps) and the same lanes. A run recorded before timings were
kept replays without model calls and says so."""
from __future__ import annotations

import pytest

from rag.demo import load_demo_questions
from rag.runs.export import export_run
from rag.runs.history import RunHistory
from rag.runs.importing import import_run
from rag.runs.run_document import STEP_TIMINGS
from rag_debugger.debugger.replay import SPANS_RECORDED
from rag_debugger.views.waterfall import waterfall_bars, waterfall_html
from rag_debugger.views.waterfall_note import waterfall_note
from rag_debugger.workbench.session import DebugSession
from tests.models.conftest import GRADE, PLAN

#: A demo whose plan splits it in two: a planner call, then a grader call in each parallel lane.
QUESTION = next(d for d in load_demo_questions() if d.id == "zh_complex_two_characters").question


@pytest.fixture
def history(tmp_path):
    h = RunHistory(tmp_path / "history.db")
    yield h
    h.close()


def calls(records) -> list[tuple[int, str, float]]:
    """(step, "role · model", latency) of every model call in the waterfall, in order."""
    out = []
    for i, rec in enumerate(records):
        out += [(i, span["label"], span["ms"]) for span in rec.annotations.get("spans") or []]
    return out


def spans(records) -> list[tuple[str, float, float]]:
    return [(b.label, round(b.start_ms, 3), b.ms) for b in waterfall_bars(records) if b.kind in ("span", "lane")]


def replayed(history, run_id, settings) -> list:
    session = DebugSession(settings, history=history)
    session.open_replay(history, run_id)
    session.run_to_end()
    return session.current.stepper.steps


@pytest.fixture
def live_run(fake_openai, make_settings, history):
    fake_openai.reply(PLAN, schema="ComplexityResult")  # two sub-questions: two parallel lanes
    fake_openai.reply(GRADE, schema="EvidenceGrade")
    fake_openai.reply({"answer": "as the evidence says [1]"}, method="plain")  # the answering step
    settings = make_settings(model_timeout_seconds=5.0)
    session = DebugSession(settings, history=history)
    session.start(QUESTION)
    session.run_to_end()
    assert session.current.stepper.done and not session.current.stepper.error
    return session.current.run_id, list(session.current.stepper.steps), settings


def test_a_replay_from_the_history_shows_the_live_runs_model_calls(live_run, history):
    run_id, live, settings = live_run
    made = calls(live)
    roles = {label.split(" · ")[0] for _, label, _ in made}
    assert roles == {"planner", "grader"} and len(made) == 3  # the plan, and a grade in each lane
    replay = replayed(history, run_id, settings)
    assert calls(replay) == made
    assert spans(replay) == spans(live)  # model calls and lanes where they were, the same latencies
    assert [r.duration_ms for r in replay] == [r.duration_ms for r in live]
    assert waterfall_note(replay) == f"{len(made)} model calls"
    html = waterfall_html(replay, note=waterfall_note(replay))  # what the inspector draws
    assert html.count('data-kind="span"') == 3 and "grader · grade-model" in html and "3 model calls" in html


def test_an_imported_export_replays_with_the_same_model_calls(live_run, history, tmp_path):
    run_id, live, settings = live_run
    doc = export_run(history, run_id)
    assert doc["result"][STEP_TIMINGS]
    with RunHistory(tmp_path / "elsewhere.db") as other:
        imported = import_run(doc, other)
        assert imported.origin == "imported"
        assert calls(replayed(other, imported.run_id, settings)) == calls(live)


def test_a_run_recorded_before_timings_were_kept_replays_without_them_and_says_so(live_run, history, tmp_path):
    run_id, live, settings = live_run
    doc = export_run(history, run_id)
    del doc["result"][STEP_TIMINGS]  # what an export made before this change holds
    from rag.runs.run_document import checksum

    doc["sha256"] = checksum(doc)
    with RunHistory(tmp_path / "older.db") as other:
        replay = replayed(other, import_run(doc, other).run_id, settings)
    assert calls(replay) == [] and [r.nodes for r in replay] == [r.nodes for r in live]
    assert all(r.annotations[SPANS_RECORDED] is False for r in replay)
    assert waterfall_note(replay).startswith("model calls not shown: this recording does not keep them")


def test_an_offline_run_replays_as_one_that_made_no_model_calls(history):
    from rag.settings import RagSettings

    settings = RagSettings(model_provider="offline")
    session = DebugSession(settings, history=history)
    session.start(QUESTION)
    session.run_to_end()
    replay = replayed(history, session.current.run_id, settings)
    assert calls(replay) == [] and all(r.annotations[SPANS_RECORDED] is True for r in replay)
    assert waterfall_note(replay) == "no model calls (offline rules)"


def test_the_shipped_demo_pack_replays_as_offline_runs_without_model_calls(history):
    """Recorded with the offline rules before timings were kept: no timings, but nothing is missing."""
    from rag.runs.demo_pack import import_demo_runs
    from rag.runs.export import open_replay

    info = import_demo_runs(history)[0]
    replay = open_replay(history, info.run_id, with_graph=False)
    replay.run_to_end()
    assert calls(replay.steps) == [] and waterfall_note(replay.steps) == "no model calls (offline rules)"
