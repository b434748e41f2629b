"""A Step works out its outcome once; drawing the page only reads it (issue 25). The result
(`build_result`) and the answering agent's answer are built by the move that finished the run, not by
whoever asks: the inspector, the HITL panel and the recorder asking many times build nothing more."""
from __future__ import annotations

from rag.demo import load_demo_questions
from rag.runs.history import RunHistory
from rag_debugger.workbench import outcome
from rag_debugger.workbench.session import DebugSession


def _question(route: str) -> str:
    return next(d for d in load_demo_questions() if d.expected_route == route).question


def _count(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_the_result_and_answer_are_built_once_when_the_run_finishes(settings, tmp_path, monkeypatch):
    import rag.answering

    built = _count(monkeypatch, outcome, "build_result")
    answered = _count(monkeypatch, rag.answering, "answer_for")
    history = RunHistory(tmp_path / "h.db")
    session = DebugSession(settings, history=history)
    session.start(_question("answer"))
    while not session.done:
        session.step()
        if not session.done:
            assert session.result() is None and session.answer() is None and not built
    assert (len(built), len(answered)) == (1, 1)  # built by the step that finished the run
    for _ in range(3):  # the page draws: inspector, HITL panel, report...
        result, answer = session.result(), session.answer()
        session.drawing()
        session.hitl_snapshot()
    assert (len(built), len(answered)) == (1, 1)
    assert result["route"] == "answer" and answer is not None
    recorded = history.get_run(session.current.run_id).result
    assert recorded["answer"] == answer.model_dump(mode="json")  # the recorder read the same outcome
    history.close()


def test_result_is_a_copy_the_caller_may_change(settings):
    session = DebugSession(settings)
    session.start(_question("answer"))
    session.run_to_end()
    session.result()["route"] = "tampered"
    assert session.result()["route"] == "answer"


def test_a_replay_settles_when_a_seek_reaches_the_end(settings, tmp_path, monkeypatch):
    history = RunHistory(tmp_path / "h.db")
    live = DebugSession(settings, history=history)
    live.start(_question("answer"))
    live.run_to_end()
    total = len(live.current.stepper.steps)
    built = _count(monkeypatch, outcome, "build_result")
    replay = DebugSession(settings)
    replay.open_replay(history, live.current.run_id, at_step=total - 1)
    assert replay.result() is None and not built
    replay.step()  # the last recorded step finishes the replay: its outcome is settled by it
    assert len(built) == 1 and replay.result()["route"] == "answer"
    replay.result(), replay.answer()
    assert len(built) == 1
    replay.seek(total)  # the same position again: its outcome is kept
    assert len(built) == 1 and replay.answer() is not None
    replay.seek(0)
    assert replay.result() is None
    replay.seek(total)  # left and reached again: worked out again, once
    assert len(built) == 2
    history.close()


def test_continue_stops_at_a_breakpoint_through_the_session(settings, tmp_path):
    history = RunHistory(tmp_path / "h.db")
    session = DebugSession(settings, history=history)
    session.start(_question("complex"))
    lines = []
    ended = session.continue_({"rag_sub_agent"}, on_step=lines.append)
    assert ended.hit == "rag_sub_agent" and not session.done and len(lines) == ended.steps
    assert "rag_sub_agent" in session.current.stepper.next_nodes
    ended = session.continue_({"rag_sub_agent"})
    assert ended.hit is None and session.done
    assert history.get_run(session.current.run_id).status == "done"  # recorded by the session's step
    history.close()


def test_a_result_that_cannot_be_worked_out_is_kept_as_an_error_and_the_run_is_recorded(settings, tmp_path,
                                                                                        monkeypatch):
    """The answering agent's model client failing outside the graph used to escape from the Step and again
    from every reader of the result: the page had nothing left to draw, not even Restart."""
    import rag.answering
    from rag.errors import ModelCallError

    calls = []

    def unreachable(*args, **kwargs):
        calls.append(1)
        raise ModelCallError("connection", "the answering model could not be reached (connection refused)\nTraceback")

    monkeypatch.setattr(rag.answering, "answer_for", unreachable)
    history = RunHistory(tmp_path / "h.db")
    session = DebugSession(settings, history=history)
    session.start(_question("answer"))
    session.run_to_end()  # does not raise
    for _ in range(3):  # the page reads it again and again: nothing raises, nothing is asked again
        assert session.result()["route"] == "answer" and session.answer() is None
        assert session.hitl_snapshot() is None
    assert session.outcome().error == "the answering model could not be reached (connection refused)"
    assert len(calls) == 1
    assert history.get_run(session.current.run_id).status == "done"  # the history heard of the end
    session.restart()
    monkeypatch.undo()
    session.run_to_end()
    assert session.outcome().error == "" and session.answer() is not None
    history.close()


def test_a_result_that_cannot_be_built_leaves_no_result_and_says_why(settings, monkeypatch):
    from rag.errors import SnapshotError

    def broken(*args, **kwargs):
        raise SnapshotError("the resume snapshot lacks the field `question`")

    monkeypatch.setattr(outcome, "build_result", broken)
    session = DebugSession(settings)
    session.start(_question("answer"))
    session.run_to_end()
    assert session.result() is None and session.answer() is None
    assert session.outcome().error == "the resume snapshot lacks the field `question`"


def test_the_error_a_page_shows_never_carries_the_api_key(monkeypatch):
    """A library's message may echo the request's key or a URL with credentials: the line the page shows is
    redacted with the settings' secrets."""
    from rag.settings import RagSettings

    key = "sk-test-0123456789abcdefghij"
    keyed = RagSettings(model_provider="offline", openai_api_key=key)

    def broken(*args, **kwargs):
        raise RuntimeError(f"POST https://user:pw@llm.internal/v1 failed with Authorization: Bearer {key}")

    monkeypatch.setattr(outcome, "build_result", broken)
    session = DebugSession(keyed)
    session.start(_question("answer"))
    session.run_to_end()
    error = session.outcome().error
    assert error and "failed with Authorization" in error
    assert key not in error and key[:12] not in error and "user:pw" not in error
