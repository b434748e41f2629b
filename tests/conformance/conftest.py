"""Print the corpus's figure at the end of a pytest run, like a benchmark's."""
from __future__ import annotations


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    from tests.conformance.harness import OUTCOMES, summary

    if OUTCOMES:
        terminalreporter.write_sep("-", "LangGraph conformance")
        terminalreporter.write_line(summary(list(OUTCOMES)))
