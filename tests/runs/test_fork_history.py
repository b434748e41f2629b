"""What-if forks in the run history: a fork is a run of its own, linked to the run and the step it
forked from, with the edit that made it (field, old value, new value), on both engines; opening it
replays the fork's branch, not its parent's."""
from __future__ import annotations

import pytest

from rag.demo import load_demo_questions
from rag.runs import schema
from rag.runs.export import export_run, open_replay
from rag.runs.history import RunHistory
from rag_debugger.workbench.session import DebugSession


def _answer_demo():
    return next(d for d in load_demo_questions() if d.expected_route == "answer")


def _forked(settings, history):
    """A live run to its end, then a fork after step 2 (retrieve_initial) that finds nothing."""
    session = DebugSession(settings, history=history)
    session.start(_answer_demo().question)
    session.run_to_end()
    parent = session.current.run_id
    fork = session.fork(1, "docs", [])
    return session, parent, fork


def test_a_fork_is_recorded_with_its_parent_step_and_edit(settings, history):
    session, parent, fork = _forked(settings, history)
    old_docs = session.segments[0].stepper.steps[1].values_after["docs"]
    info = history.get_run(fork.run_id)
    assert info.run_id != parent and info.parent_run_id == parent
    assert info.fork is not None and info.fork.step == 2 and info.fork.field == "docs"
    assert info.fork.new == [] and len(info.fork.old) == len(old_docs) > 0
    assert info.fork.old[0]["chunk_id"] == old_docs[0]["chunk_id"]
    assert info.status == "done" and info.route == "no_knowledge"
    assert history.get_run(parent).fork is None and history.get_run(parent).route == "answer"
    listed = {r.run_id: r for r in history.list_runs()}
    assert listed[fork.run_id].is_fork and not listed[parent].is_fork


def test_parent_and_fork_share_a_thread_but_each_replays_its_own_branch(settings, history):
    _session, parent, fork = _forked(settings, history)
    assert history.get_run(parent).thread_id == history.get_run(fork.run_id).thread_id
    original = open_replay(history, parent, with_graph=False)
    forked = open_replay(history, fork.run_id, with_graph=False)
    assert original.all_steps[-1].values_after["route"] == "answer"
    assert forked.all_steps[-1].values_after["route"] == "no_knowledge"
    # the fork's branch: the parent's first two steps, then the fork's own (the edit is not a step)
    assert [s.nodes for s in forked.all_steps] == [("classify_complexity",), ("retrieve_initial",),
                                                   ("grade_documents",)]
    assert forked.all_steps[2].values_before["docs"] == []
    assert export_run(history, fork.run_id)["run"]["fork"]["field"] == "docs"


def test_a_fork_survives_reopening_the_history(settings, history_target):
    with RunHistory(history_target) as history:
        _session, parent, fork = _forked(settings, history)
    with RunHistory(history_target) as again:
        info = again.get_run(fork.run_id)
        assert (info.parent_run_id, info.fork.step, info.fork.field) == (parent, 2, "docs")


def test_deleting_the_fork_keeps_its_parents_checkpoints(settings, history):
    _session, parent, fork = _forked(settings, history)
    history.delete_run(fork.run_id)
    assert open_replay(history, parent, with_graph=False).all_steps[-1].values_after["route"] == "answer"


def test_migration_3_adds_the_fork_columns_to_a_version_2_history(tmp_path):
    import sqlite3

    path = tmp_path / "v2.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, "
                 "applied_at TEXT NOT NULL)")
    for version, what, steps in schema.MIGRATIONS[:2]:
        for sql in steps["sqlite"]:
            conn.execute(sql)
        conn.execute("INSERT INTO schema_version VALUES (?, ?, 'then')", (version, what))
    conn.execute("INSERT INTO runs (run_id, thread_id, kind, question, created_at, status) "
                 "VALUES ('main-v2', 'main-v2', 'main', 'before forks were recorded', '2026-01-01T00:00:00+00:00', "
                 "'done')")
    conn.commit()
    conn.close()
    with RunHistory(path) as history:
        old = history.get_run("main-v2")
        assert old.fork is None and old.head_checkpoint_id is None
        assert [r[0] for r in history.storage.execute("SELECT version FROM schema_version ORDER BY version")] == [
            v for v, _what, _sql in schema.MIGRATIONS]


@pytest.mark.parametrize("kind", ["live", "replay"])
def test_opening_a_recorded_fork_replays_the_forks_branch(settings, history, kind):
    """From the history (or a ?run= link): the fork's branch, compared with its parent's outcome."""
    if kind == "live":
        _session, _parent, fork = _forked(settings, history)
        fork_id = fork.run_id
    else:  # a fork made from a recorded run: a thread of its own, seeded with the recorded state
        live = DebugSession(settings, history=history)
        live.start(_answer_demo().question)
        live.run_to_end()
        replay = DebugSession(settings, history=history)
        replay.open_replay(history, live.current.run_id)
        replay.seek(replay.current.stepper.total_steps)
        fork_id = replay.fork(1, "docs", []).run_id
        assert history.get_run(fork_id).parent_run_id == live.current.run_id
    viewer = DebugSession(settings, history=history)
    viewer.open_replay(history, fork_id)
    assert viewer.current.run_id == fork_id and viewer.current.label == "what-if fork (recorded)"
    viewer.seek(viewer.current.stepper.total_steps)
    steps = [r.nodes for _seg, r in viewer.all_steps()]
    assert steps == [("classify_complexity",), ("retrieve_initial",), ("grade_documents",)]
    assert viewer.result()["route"] == "no_knowledge"
    assert [c["route"] for c in viewer.fork_comparison()] == ["answer", "no_knowledge"]
    _origin, index, field, value = viewer.current.fork_of
    assert (index, field, value) == (1, "docs", [])


def test_a_forks_link_names_the_step_its_replay_shows(settings, history):
    """The debugger's URL after a fork (`?run=<fork>&step=n`) opens the same step from the history."""
    from rag_debugger.views.run_link import link_for, placement

    session, _parent, fork = _forked(settings, history)
    link = link_for(session, None)
    assert link == {"run": fork.run_id, "step": "3"}  # the fork's branch: two parent steps, one of its own
    viewer = DebugSession(settings, history=history)
    viewer.open_replay(history, fork.run_id)
    assert placement([seg.stepper.total_steps for seg in viewer.segments], 3) == (3, None, None)


def test_a_fork_is_not_offered_as_a_recorded_answer_of_its_parent(settings, history):
    """Resume runs and forks both name a parent run; only a resume run is an answer to follow in replay."""
    _session, parent, _fork = _forked(settings, history)
    viewer = DebugSession(settings, history=history)
    viewer.open_replay(history, parent)
    viewer.seek(viewer.current.stepper.total_steps)
    assert viewer.recorded_answers() == []


@pytest.mark.parametrize("kind", ["live", "replay"])
def test_an_exported_fork_imported_with_its_parent_replays_the_same_branch(settings, history, tmp_path, kind):
    """Exports travel (new thread ids on import): the fork still replays its parent's steps once."""
    from rag.runs.export import export_run_json
    from rag.runs.importing import import_run

    _session, parent, fork = _forked(settings, history)
    fork_id = fork.run_id
    if kind == "replay":
        replay = DebugSession(settings, history=history)
        replay.open_replay(history, parent)
        replay.seek(replay.current.stepper.total_steps)
        fork_id = replay.fork(1, "docs", []).run_id
    with RunHistory(tmp_path / "elsewhere.db") as elsewhere:
        import_run(export_run_json(history, parent), elsewhere)
        imported = import_run(export_run_json(history, fork_id), elsewhere)
        assert imported.fork.field == "docs" and imported.parent_run_id == parent
        viewer = DebugSession(settings, history=elsewhere)
        viewer.open_replay(elsewhere, imported.run_id)
        viewer.seek(viewer.current.stepper.total_steps)
        assert [r.nodes for _seg, r in viewer.all_steps()] == [("classify_complexity",), ("retrieve_initial",),
                                                               ("grade_documents",)]
        assert [c["route"] for c in viewer.fork_comparison()] == ["answer", "no_knowledge"]
