"""Export a run to one JSON document, import it on a fresh database, replay it exactly."""
from __future__ import annotations

import json

import pytest

from rag.api import initial_state, make_context
from rag.errors import RunImportError
from rag.runs.demo_pack import import_demo_runs, list_demo_runs
from rag.runs.document_limits import parse_document
from rag.runs.document_replay import replay_from_document
from rag.runs.export import export_run, export_run_json, open_replay
from rag.runs.history import RunHistory
from rag.runs.history_writes import run_recorded
from rag.runs.importing import import_run
from rag.runs.run_document import FORMAT, checksum
from rag.schemas import ComplexityResult
from rag.settings import RagSettings
from rag_debugger.debugger.stepper import GraphStepper
from tests.engine.fakes import FakeRoles
from tests.runs.conftest import QUESTION

OPENAI_KEY = "sk-proj-SUPERSECRET-0123456789abcdef"
RERANK_KEY = "jina_RERANKSECRET_9876543210"


@pytest.fixture
def recorded(history, ctx):
    return run_recorded(history, QUESTION, ctx=ctx)


def test_export_holds_the_whole_run(history, recorded):
    doc = export_run(history, recorded.run_id, history.graph("main"))
    json.dumps(doc)  # JSON-able as is
    assert doc["format"] == FORMAT and doc["format_version"] == 1 and doc["sha256"] == checksum(doc)
    assert doc["run"]["run_id"] == recorded.run_id and doc["graph"] == "main"
    steps = [c["step"] for c in doc["checkpoints"]]
    assert steps == sorted(steps) and steps[0] == -1  # in order, from the input
    assert [tuple(c["next"]) for c in doc["checkpoints"]][1:] == [
        ("classify_complexity",), ("retrieve_initial",), ("grade_documents",), ("rewrite_question",),
        ("retrieve_rewritten",), ("grade_documents",), (),
    ]
    grade_step = doc["checkpoints"][3]
    assert grade_step["tasks"][0]["name"] == "grade_documents"
    assert set(grade_step["tasks"][0]["writes"]) == {"grade", "route", "retrieval_status", "rag_trace"}
    assert grade_step["metadata"]["source"] == "loop"
    assert [p["node"] for p in doc["progress"]] == [p.node for p in recorded.progress]
    assert doc["trace"]["route"] == "answer" and doc["trace"]["rewrite_method"] == "step_back"
    assert doc["prompt_version"] == "default" and set(doc["prompts"]) == {"planner", "grader", "rewriter", "answerer"}
    assert doc["settings"]["model_provider"] == "offline"


def test_export_contains_no_key_even_when_keys_are_configured(tmp_path, retriever):
    settings = RagSettings(model_provider="offline", openai_api_key=OPENAI_KEY, rerank_api_key=RERANK_KEY,
                           openai_base_url="http://127.0.0.1:9/v1", rerank_host="http://127.0.0.1:9")
    ctx = make_context(settings=settings, retriever=retriever, roles=FakeRoles().roles())
    with RunHistory(tmp_path / "keys.db") as history:
        # the key even ends up in the state (a user pasted it into the question): redacted too
        info = run_recorded(history, f"{QUESTION} {OPENAI_KEY}", ctx=ctx)
        text = export_run_json(history, info.run_id, settings=settings)
        db_bytes = (tmp_path / "keys.db").read_bytes()
    assert OPENAI_KEY not in text and RERANK_KEY not in text
    assert "SUPERSECRET" not in text and "RERANKSECRET" not in text
    doc = json.loads(text)
    assert doc["settings"]["openai_api_key"] == "set" and doc["settings"]["rerank_api_key"] == "set"
    assert "[redacted]" in doc["run"]["question"]
    parse_document(doc)  # still a valid, importable document
    assert RERANK_KEY.encode() not in db_bytes  # the history row stores public settings only


def test_import_on_a_fresh_database_replays_the_same_states(tmp_path, history, recorded):
    graph = history.graph("main")
    live = list(reversed(list(graph.get_state_history({"configurable": {"thread_id": recorded.thread_id}}))))
    text = export_run_json(history, recorded.run_id)

    with RunHistory(tmp_path / "fresh.db") as fresh:
        info = import_run(text, fresh)
        assert info.origin == "imported" and info.is_replay and info.question == QUESTION
        assert info.route == "answer" and [r.run_id for r in fresh.list_runs()] == [info.run_id]
        replay = open_replay(fresh, info.run_id)
    assert replay.replay is True
    records = replay.run_to_end()
    assert [r.nodes for r in records] == [
        ("classify_complexity",), ("retrieve_initial",), ("grade_documents",), ("rewrite_question",),
        ("retrieve_rewritten",), ("grade_documents",),
    ]
    # every step's before/after equals the live checkpoints (JSON round trip included)
    live_values = [s.values for s in live[1:]]
    assert [r.values_before for r in records] == live_values[:-1]
    assert [r.values_after for r in records] == live_values[1:]
    assert replay.current_values()["route"] == "answer"
    assert records[0].annotations["progress"][0]["node"] == "classify_complexity"
    assert records[2].annotations["progress"][0]["label"].startswith("Grade")
    assert "digraph" in replay.to_dot()


def test_replay_matches_a_live_stepping_session(tmp_path, history, settings, retriever):
    """The debugger's live GraphStepper and the replay of the same run give the same step records."""
    ctx = make_context(settings=settings, retriever=retriever, roles=FakeRoles().roles())
    info = history.record_start(QUESTION, provider="fake", settings=settings)
    live = GraphStepper(history.graph("main"), thread_id=info.thread_id, context=ctx)
    live.start(initial_state(QUESTION))
    live.run_to_end()
    history.record_finish(info.run_id, route=live.current_values()["route"])
    replay = replay_from_document(export_run(history, info.run_id))
    got = replay.run_to_end()
    assert len(got) == len(live.steps)
    for a, b in zip(got, live.steps, strict=False):
        assert (a.nodes, a.values_before, a.values_after, a.next_nodes) == (b.nodes, b.values_before, b.values_after,
                                                                           b.next_nodes)
        assert [lane.writes for lane in a.lanes] == [lane.writes for lane in b.lanes]


def test_fanout_run_replays_parallel_lanes(tmp_path, history, settings, retriever):
    roles = FakeRoles(planner=ComplexityResult(complexity="complex", complexity_reason="two things",
                                               sub_questions=["X1 battery?", "X2 battery?"])).roles()
    info = run_recorded(history, QUESTION, ctx=make_context(settings=settings, retriever=retriever, roles=roles))
    with RunHistory(tmp_path / "fresh.db") as fresh:
        replay = open_replay(fresh, import_run(export_run(history, info.run_id), fresh).run_id)
    records = replay.run_to_end()
    fan = next(r for r in records if "rag_sub_agent" in r.nodes)
    assert len(fan.lanes) == 2
    assert sorted(x.writes["sub_results"][0]["question"] for x in fan.lanes) == ["X1 battery?", "X2 battery?"]
    assert [r.kind for r in fan.diff if r.path.startswith("sub_results")] == ["appended", "appended"]
    assert replay.current_values()["rag_trace"]["retrieval_stage"] == "synthesis"


def test_live_run_opens_as_replay_and_replay_runs_nothing(history, recorded, monkeypatch):
    from langgraph.pregel import Pregel

    doc = export_run(history, recorded.run_id)

    def forbidden(*_a, **_k):
        raise AssertionError("replay must not execute anything")

    monkeypatch.setattr(Pregel, "invoke", forbidden)
    monkeypatch.setattr(Pregel, "stream", forbidden)
    replay = replay_from_document(doc)
    assert len(replay.run_to_end()) == 6
    assert open_replay(history, recorded.run_id, with_graph=False).total_steps == 6


def test_import_is_idempotent_and_never_clobbers_another_run(tmp_path, history, recorded):
    doc = export_run(history, recorded.run_id)
    with RunHistory(tmp_path / "fresh.db") as fresh:
        first = import_run(doc, fresh)
        again = import_run(json.dumps(doc), fresh)
        assert again.run_id == first.run_id and len(fresh.list_runs()) == 1
        assert export_run(fresh, first.run_id) == doc  # an imported run exports unchanged
    # importing into the ORIGINAL history, where the id is a live run: stored under a new id
    copy = import_run(doc, history)
    assert copy.run_id != recorded.run_id and copy.origin == "imported"
    assert history.get_run(recorded.run_id).origin == "live"
    assert open_replay(history, copy.run_id).total_steps == 6


def test_delete_an_imported_run(tmp_path, history, recorded):
    with RunHistory(tmp_path / "fresh.db") as fresh:
        info = import_run(export_run(history, recorded.run_id), fresh)
        fresh.delete_run(info.run_id)
        assert fresh.list_runs() == []


def _resigned(doc: dict) -> dict:
    doc = dict(doc)
    doc["sha256"] = checksum(doc)
    return doc


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d["checkpoints"][3]["values"].update(route="clarify"), "modified after it was written"),
        (lambda d: d["run"].update(question="something else"), "checksum mismatch"),
        (lambda d: d.pop("sha256"), "no checksum"),
        (lambda d: d.update(format="something"), "not a run export"),
        (lambda d: d.update(format_version=99), "unsupported export format version 99"),
    ],
)
def test_tampered_documents_are_refused(history, recorded, mutate, message):
    doc = json.loads(export_run_json(history, recorded.run_id))
    mutate(doc)
    with pytest.raises(RunImportError, match=message):
        import_run(doc, history)


def test_structurally_broken_documents_are_refused_even_with_a_valid_checksum(history, recorded):
    doc = export_run(history, recorded.run_id)
    no_checkpoints = _resigned({**doc, "checkpoints": []})
    with pytest.raises(RunImportError, match="broken at checkpoints"):
        import_run(no_checkpoints, history)
    bad_run = _resigned({**doc, "run": {**doc["run"], "status": "exploded"}})
    with pytest.raises(RunImportError, match="broken at run.status"):
        import_run(bad_run, history)
    bad_head = _resigned({**doc, "head_checkpoint_id": "nope"})
    with pytest.raises(RunImportError, match="cannot be replayed"):
        import_run(bad_head, history)


@pytest.mark.parametrize("payload, message", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "JSON object"),
    (b"\xff\xfe", "not UTF-8"),
])
def test_files_that_are_not_exports(history, payload, message):
    with pytest.raises(RunImportError, match=message):
        import_run(payload, history)


def test_missing_file(history, tmp_path):
    with pytest.raises(RunImportError, match="cannot read"):
        import_run(tmp_path / "missing.json", history)


def test_export_of_unknown_or_empty_runs(history):
    from rag.errors import UnknownRunError

    with pytest.raises(UnknownRunError):
        export_run(history, "nope")
    info = history.record_start("never ran")
    with pytest.raises(RunImportError, match="no checkpoints"):
        export_run(history, info.run_id)


def test_demo_pack_imports_when_present(history, tmp_path, recorded):
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "one.json").write_text(export_run_json(history, recorded.run_id), encoding="utf-8")
    (folder / "junk.json").write_text("{}", encoding="utf-8")
    listed = list_demo_runs(folder)
    assert [d.file for d in listed] == ["one.json"] and listed[0].route == "answer"
    with RunHistory(tmp_path / "fresh.db") as fresh:
        assert [r.question for r in import_demo_runs(fresh, folder)] == [QUESTION]
        assert len(import_demo_runs(fresh, folder)) == 1 and len(fresh.list_runs()) == 1
