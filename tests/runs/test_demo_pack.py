"""The shipped demo pack: every file imports, replays with no model, and covers every route."""
from __future__ import annotations

import json

import pytest

from rag.demo import load_demo_questions
from rag.runs.build_demo_pack import record
from rag.runs.demo_pack import DEMO_RUNS_DIR, import_demo_runs, list_demo_runs
from rag.runs.document_limits import parse_document
from rag.runs.export import open_replay
from rag.runs.history import RunHistory

FILES = sorted(DEMO_RUNS_DIR.glob("*.json"))


def test_pack_covers_every_demo_and_every_route():
    demos = load_demo_questions()
    listed = list_demo_runs()
    assert len(listed) == len(FILES) > 0
    main_runs = {d.run_id: d for d in listed if d.kind == "main"}
    assert set(main_runs) == {f"demo-{d.id}" for d in demos}
    routes = {d.route for d in listed}
    assert {"answer", "clarify", "scope_select", "no_knowledge"} <= routes
    rewrites = [f for f in FILES if (json.loads(f.read_text("utf-8"))["trace"] or {}).get("rewrite_method")]
    assert rewrites, "a demo with a rewrite (the fifth route) is in the pack"
    resumes = [d for d in listed if d.kind == "resume"]
    assert resumes and all(d.parent_run_id in main_runs for d in resumes)
    assert all(d.label for d in listed)


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_each_file_is_a_valid_untampered_export_without_secrets(path):
    text = path.read_text(encoding="utf-8")
    doc = parse_document(text)
    assert doc.settings["openai_api_key"] == "unset" and doc.settings["rerank_api_key"] == "unset"
    assert doc.settings["model_provider"] == "offline"
    assert "sk-" not in text.replace("task-", "")


def test_whole_pack_imports_and_replays_to_the_recorded_routes(tmp_path, monkeypatch):
    from langgraph.pregel import Pregel

    monkeypatch.setattr(Pregel, "invoke", lambda *a, **k: (_ for _ in ()).throw(AssertionError("no execution")))
    with RunHistory(tmp_path / "demo.db") as history:
        infos = import_demo_runs(history)
        assert len(infos) == len(FILES)
        for info in infos:
            replay = open_replay(history, info.run_id, with_graph=False)
            replay.run_to_end()
            assert replay.done and replay.current_values()["route"] == info.route


def test_recorder_script_records_and_checks_routes(tmp_path):
    demo = next(d for d in load_demo_questions() if d.expected_route == "clarify")
    problems = record(tmp_path / "out", tmp_path / "h.db", demos=[demo])
    assert problems == []
    files = sorted(p.name for p in (tmp_path / "out").glob("*.json"))
    assert files == [f"01_{demo.id}.json", f"01_{demo.id}__resume.json"]
    resumed = parse_document((tmp_path / "out" / files[1]).read_text("utf-8"))
    assert resumed.run.parent_run_id == f"demo-{demo.id}" and resumed.graph == "resume"


def test_recorder_reports_a_route_mismatch(tmp_path):
    demo = next(d for d in load_demo_questions() if d.expected_route == "no_knowledge")
    wrong = demo.model_copy(update={"expected_route": "answer"})
    problems = record(tmp_path / "out", tmp_path / "h.db", demos=[wrong])
    assert problems and "expected route answer, got no_knowledge" in problems[0]
