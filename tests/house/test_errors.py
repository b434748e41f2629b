"""One error tree: every error the project raises on purpose descends from RagError, the ones a
person can fix from UserFixableError, the package's public names are those classes, and the app's
guard tells a user's mistake from a defect."""
from __future__ import annotations

import logging

import pytest

import rag.errors as errors

PUBLIC_NAMES = ["InvalidQuestionError", "SnapshotError", "ModelCallError", "InvalidTraceError"]


@pytest.mark.parametrize("name", PUBLIC_NAMES)
def test_the_public_package_names_the_same_class(name):
    """`from rag import InvalidQuestionError` (the library's documented surface) is the class of
    `rag.errors`; inside the project every caller imports `rag.errors` (tests/house/test_one_address.py)."""
    import rag

    assert getattr(rag, name) is getattr(errors, name)


NOT_THE_USERS = ("RagError", "UserFixableError", "ModelCallError", "HistoryDamagedError", "HistoryUnavailableError")


@pytest.mark.parametrize("name", [n for n in errors.__all__ if n not in NOT_THE_USERS])
def test_input_errors_are_user_fixable_value_errors(name):
    cls = getattr(errors, name)
    assert issubclass(cls, errors.UserFixableError)
    assert issubclass(cls, ValueError)  # callers that caught ValueError before still do
    assert issubclass(cls, errors.RagError)


def test_model_errors_are_not_the_users_to_fix():
    exc = errors.ModelCallError("timeout", "the grader did not answer in 30 s")
    assert isinstance(exc, errors.RagError) and isinstance(exc, RuntimeError)
    assert not isinstance(exc, errors.UserFixableError)
    assert exc.kind == "timeout"


def test_lookup_errors_read_as_sentences():
    assert str(errors.UnknownRunError("no run abc in this history")) == "no run abc in this history"
    assert issubclass(errors.UnknownPromptVersionError, LookupError)


def _flashed(monkeypatch):
    import rag_debugger.ui.streamlit_state as state

    seen: list[tuple[str, str]] = []
    monkeypatch.setattr(state, "flash", lambda kind, message: seen.append((kind, message)))
    return state, seen


def test_guard_shows_a_users_mistake_as_a_warning_without_logging_it(monkeypatch, caplog):
    state, seen = _flashed(monkeypatch)

    def bad_question():
        raise errors.InvalidQuestionError("the question is empty")

    with caplog.at_level(logging.ERROR, logger="rag_debugger.ui"):
        assert state.guarded(bad_question) is None
    assert seen == [("warning", "the question is empty")]
    assert not caplog.records


def test_guard_logs_an_unexpected_value_error_with_its_traceback(monkeypatch, caplog):
    state, seen = _flashed(monkeypatch)

    def library_bug():
        raise ValueError("invalid literal for int() with base 10: 'x'")

    with caplog.at_level(logging.ERROR, logger="rag_debugger.ui"):
        assert state.guarded(library_bug) is None
    assert seen and seen[0][0] == "error"  # an apology, not a "fix your input" warning
    assert [r for r in caplog.records if r.exc_info and r.exc_info[0] is ValueError]
