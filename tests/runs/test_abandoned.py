"""Runs that never finish are marked abandoned (with when), never left "running" forever; on a shared
database a server marks only its own (both engines)."""
from __future__ import annotations

from rag.runs.history import RunHistory


def _statuses(history: RunHistory) -> dict[str, str]:
    return {r.run_id: r.status for r in history.list_runs()}


def test_only_running_runs_are_marked_and_get_a_time(history_target):
    with RunHistory(history_target) as history:
        running = history.record_start("still going").run_id
        done = history.record_start("finished").run_id
        failed = history.record_start("failed").run_id
        history.record_finish(done, status="done", duration_ms=1)
        history.record_finish(failed, status="error", error="boom", duration_ms=1)

        marked = history.mark_abandoned(at="2026-01-02T03:04:05+00:00")
        assert marked == [running]
        assert _statuses(history) == {running: "abandoned", done: "done", failed: "error"}
        assert history.get_run(running).finished_at == "2026-01-02T03:04:05+00:00"
        assert history.mark_abandoned() == []  # idempotent: the time is not rewritten
        assert history.get_run(running).finished_at == "2026-01-02T03:04:05+00:00"


def test_marking_named_runs_leaves_the_others_running(history_target):
    with RunHistory(history_target) as history:
        a = history.record_start("a").run_id
        b = history.record_start("b").run_id
        assert history.mark_abandoned([a, "no-such-run"]) == [a]
        assert history.mark_abandoned([]) == []
        assert _statuses(history) == {a: "abandoned", b: "running"}


def test_a_run_that_finishes_after_all_keeps_its_outcome(history_target):
    with RunHistory(history_target) as history:
        run = history.record_start("slow").run_id
        history.mark_abandoned()
        history.record_finish(run, status="done", duration_ms=1)
        assert history.get_run(run).status == "done"


def test_the_list_can_leave_abandoned_runs_out(history_target):
    with RunHistory(history_target) as history:
        gone = history.record_start("gone").run_id
        kept = history.record_start("kept").run_id
        history.record_finish(kept, status="done", duration_ms=1)
        history.mark_abandoned([gone])
        assert [r.run_id for r in history.list_runs(hide_abandoned=True)] == [kept]
        assert {r.run_id for r in history.list_runs()} == {gone, kept}


def test_a_server_marks_only_its_own_leftovers(history_target):
    """Two app servers on one history: the one that restarts abandons its own unfinished runs, never the
    other server's run that is being stepped right now, nor a run with no server (the CLI's `--record`)."""
    with RunHistory(history_target, server_id="host-a:8501") as a, RunHistory(history_target, server_id="host-b:8501") as b:
        mine = a.record_start("left behind by a").run_id
        theirs = b.record_start("being stepped on b").run_id
        unnamed = a.writer.__class__(a.storage).record_start("a CLI run going on").run_id  # no server id
        assert a.mark_abandoned(server_id="host-a:8501") == [mine]
        assert b.get_run(theirs).status == "running" and b.get_run(theirs).server_id == "host-b:8501"
        assert a.get_run(unnamed).status == "running"
        assert a.get_run(mine).server_id == "host-a:8501"


def test_a_server_starting_leaves_the_cli_recording_runs_alone(history_target):
    """Hole 11 of the second review: a server's start (or SIGTERM) marked the CLI's `--record` runs
    abandoned while they were still running."""
    from rag_debugger.ui import history_store

    with RunHistory(history_target) as cli:  # what `python -m rag ... --record` opens: no server id
        running = cli.record_start("a long CLI run").run_id
        with RunHistory(history_target, server_id=history_store.server_id()) as server:
            assert server.mark_abandoned(server_id=server.server_id) == []
        assert cli.get_run(running).status == "running"
