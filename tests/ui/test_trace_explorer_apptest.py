"""The trace explorer on traces the protocol refuses or that are empty: a message, never a traceback."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _explorer(raw):
    from rag_debugger.ui.panels.trace_explorer import render_trace

    render_trace(raw)


def run_explorer(raw) -> AppTest:
    return AppTest.from_function(_explorer, args=(raw,), default_timeout=30).run()


def test_a_trace_with_a_wrong_type_is_explained_not_raised():
    at = run_explorer({"query": "q", "candidate_k": "many", "rewrite_error": "x"})
    assert not at.exception
    assert len(at.error) == 1 and "candidate_k" in at.error[0].value
    assert at.json, "the raw trace stays inspectable"


def test_an_empty_trace_shows_every_field_absent():
    at = run_explorer({})
    assert not at.exception and not at.error
    assert "0 present" in at.caption[0].value and "59 absent" in at.caption[0].value
