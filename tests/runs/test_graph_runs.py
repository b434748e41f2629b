"""Runs of a graph of your own in the run history (SQLite and PostgreSQL): recorded by the session's hook,
listed with the graph's module:attr, replayed from the stored recording after the process is gone, exported
and imported like any run; forks linked to their parent with the edit; a replaced run marked abandoned."""
from __future__ import annotations

import json

import pytest

from rag.runs.document_limits import parse_document
from rag.runs.export import export_run
from rag.runs.graph_runs import GraphRunRecorder, input_summary, recorded
from rag.runs.history import RunHistory
from rag.runs.importing import import_run
from rag_debugger.debugger.session import GraphSession


def recording(history, spec="rag_debugger.examples.chain:graph", run_by="ana"):
    return GraphSession.open(spec, hooks=[GraphRunRecorder(history, run_by=run_by)])


def test_a_finished_run_is_a_graph_row_with_its_spec_and_input_and_its_recording(history):
    s = recording(history)
    s.start({"text": "a b"})
    assert history.get_run(s.current.run_id).status == "running"
    s.run_to_end()
    info = history.get_run(s.current.run_id)
    assert (info.kind, info.graph_spec, info.status, info.run_by) == ("graph", "rag_debugger.examples.chain:graph", "done", "ana")
    assert info.question == '{"text": "a b"}' and info.head_checkpoint_id
    doc = history.get_document(info.run_id)
    assert doc["graph"] == "graph" and doc["input"] == {"text": "a b"} and parse_document(doc).run.graph_spec


def test_a_run_replays_from_the_history_after_the_process_is_gone(history_target):
    with RunHistory(history_target) as first:
        s = recording(first)
        s.start({"text": "one two"})
        s.run_to_end()
        run_id = s.current.run_id
        live = [(r.nodes, r.values_after) for _, r in s.all_steps()]
    del s
    with RunHistory(history_target) as again:  # a restart: a new history object, a new session
        info, doc = recorded(again, run_id)
        fresh = GraphSession.open(info.graph_spec)
        fresh.open_recorded(doc["checkpoints"], head=doc["head_checkpoint_id"], inp=doc["input"], run_id=run_id)
        fresh.run_to_end()
        assert [(r.nodes, r.values_after) for _, r in fresh.all_steps()] == live
        assert fresh.current.run_id == run_id and fresh.last_input == {"text": "one two"}


def test_a_fork_is_recorded_as_a_child_with_its_edit_and_replays_its_own_branch(history):
    s = recording(history)
    s.start({"text": "one two three"})
    s.run_to_end()
    parent = s.current.run_id
    fork = s.fork(0, "text", "just two")
    info = history.get_run(fork.run_id)
    assert info.parent_run_id == parent and info.fork.step == 1 and info.fork.field == "text"
    assert (info.fork.old, info.fork.new) == ("one two three", "just two") and info.status == "done"
    _info, doc = recorded(history, fork.run_id)
    replay = GraphSession.open("rag_debugger.examples.chain:graph")
    replay.open_recorded(doc["checkpoints"], head=doc["head_checkpoint_id"])
    replay.run_to_end()
    assert replay.current.stepper.current_values()["shouted"] == "JUST TWO"  # the fork's branch, not the original


def test_a_run_replaced_before_it_ended_is_abandoned_and_a_failed_one_is_an_error(history):
    s = recording(history)
    s.start({"text": "a"})
    first = s.current.run_id
    s.step()
    s.start({"text": "b"})
    assert history.get_run(first).status == "abandoned"
    _info, doc = recorded(history, first)  # its steps so far still replay
    replay = GraphSession.open("rag_debugger.examples.chain:graph")
    replay.open_recorded(doc["checkpoints"], head=doc["head_checkpoint_id"])
    replay.run_to_end()
    assert [r.nodes for _, r in replay.all_steps()] == [("clean",)]
    from tests.debugger.toy_graphs import crashing_graph

    crash = GraphSession(spec="tests.debugger.toy_graphs:crashing_graph", graph=crashing_graph(),
                         hooks=[GraphRunRecorder(history)])
    crash.start({})
    crash.run_to_end()
    failed = history.get_run(crash.current.run_id)
    assert failed.status == "error" and "disk on fire" in failed.error
    assert history.get_document(failed.run_id)["checkpoints"]  # its steps so far replay


def test_export_and_import_carry_the_graph_and_the_recording(history, tmp_path):
    s = recording(history)
    s.start({"text": "x y"})
    s.run_to_end()
    doc = export_run(history, s.current.run_id)
    assert doc["run"]["graph_spec"] == "rag_debugger.examples.chain:graph"
    with RunHistory(tmp_path / "elsewhere.db") as other:
        info = import_run(json.dumps(doc), other)
        assert info.kind == "graph" and info.graph_spec == "rag_debugger.examples.chain:graph" and info.origin == "imported"
        _info, again = recorded(other, info.run_id)
        assert len(again["checkpoints"]) == len(doc["checkpoints"])


def test_a_running_run_replays_what_it_has_in_this_process_and_a_rag_run_is_refused(history):
    s = recording(history)
    s.start({"text": "a b"})
    s.step()
    _info, doc = recorded(history, s.current.run_id)
    assert doc["head_checkpoint_id"] == s.current.stepper.steps[-1].after_checkpoint_id
    with pytest.raises(ValueError, match="not ended yet|has not ended"):
        export_run(history, s.current.run_id)
    rag_run = history.record_start("a question").run_id
    with pytest.raises(ValueError, match="RAG workflow"):
        recorded(history, rag_run)


def test_a_run_waiting_for_an_answer_is_kept_so_a_restart_can_replay_it(history_target):
    with RunHistory(history_target) as first:
        s = recording(first, "rag_debugger.examples.approval:graph")
        s.start({"request": "refund?"})
        s.continue_(())
        assert s.pending_interrupts()
        run_id = s.current.run_id
    del s
    with RunHistory(history_target) as again:
        again.mark_abandoned(server_id="")  # what a restart does to the runs its previous process left
        info, doc = recorded(again, run_id)
        assert info.status == "abandoned"
        replay = GraphSession.open("rag_debugger.examples.approval:graph")
        replay.open_recorded(doc["checkpoints"], head=doc["head_checkpoint_id"])
        replay.run_to_end()
        # the recording stops where it waits: the step that asked has no checkpoint of its own yet
        assert [r.nodes for _, r in replay.all_steps()] == [("draft",)]
        assert replay.all_steps()[-1][1].next_nodes == ("review",)


def test_a_run_that_never_ended_in_a_gone_process_says_so(history):
    info = history.record_start("{}", kind="graph", graph_spec="rag_debugger.examples.chain:graph")
    with pytest.raises(ValueError, match="never ended"):
        recorded(history, info.run_id)


def test_the_input_summary_is_one_short_line():
    assert input_summary({"a": 1}) == '{"a": 1}'
    assert len(input_summary({"t": "x" * 1000})) == 300 and input_summary(None) == "{}"


def test_keys_in_the_state_are_redacted_in_the_recording(history, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET-123456")
    s = recording(history)
    s.start({"text": "my key is sk-test-SECRET-123456"})
    s.run_to_end()
    assert "SECRET" not in json.dumps(history.get_document(s.current.run_id))
    assert "SECRET" not in history.get_run(s.current.run_id).question
