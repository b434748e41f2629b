"""Runs that never finish are marked abandoned (with when), never left "running" forever."""
from __future__ import annotations

from rag.runs.history import RunHistory


def _statuses(history: RunHistory) -> dict[str, str]:
    return {r.run_id: r.status for r in history.list_runs()}


def test_only_running_runs_are_marked_and_get_a_time(tmp_path):
    with RunHistory(tmp_path / "h.db") as history:
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


def test_marking_named_runs_leaves_the_others_running(tmp_path):
    with RunHistory(tmp_path / "h.db") as history:
        a = history.record_start("a").run_id
        b = history.record_start("b").run_id
        assert history.mark_abandoned([a, "no-such-run"]) == [a]
        assert history.mark_abandoned([]) == []
        assert _statuses(history) == {a: "abandoned", b: "running"}


def test_a_run_that_finishes_after_all_keeps_its_outcome(tmp_path):
    with RunHistory(tmp_path / "h.db") as history:
        run = history.record_start("slow").run_id
        history.mark_abandoned()
        history.record_finish(run, status="done", duration_ms=1)
        assert history.get_run(run).status == "done"


def test_the_list_can_leave_abandoned_runs_out(tmp_path):
    with RunHistory(tmp_path / "h.db") as history:
        gone = history.record_start("gone").run_id
        kept = history.record_start("kept").run_id
        history.record_finish(kept, status="done", duration_ms=1)
        history.mark_abandoned([gone])
        assert [r.run_id for r in history.list_runs(hide_abandoned=True)] == [kept]
        assert {r.run_id for r in history.list_runs()} == {gone, kept}
