"""The debugger core is generic: importing it must not pull in the RAG engine."""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import rag_debugger.debugger as debugger

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_importing_debugger_does_not_import_rag():
    code = "import sys, rag_debugger.debugger; print(sorted(m for m in sys.modules if m == 'rag' or m.startswith('rag.')))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_no_source_file_mentions_the_rag_package():
    for path in (ROOT / "rag_debugger" / "debugger").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import)\s+rag\b", text, re.M), path


def test_public_names_are_exported():
    for name in debugger.__all__:
        assert hasattr(debugger, name), name


def test_both_steppers_fit_the_protocol_the_ui_depends_on():
    from rag_debugger.debugger import GraphStepper, Stepper
    from rag_debugger.debugger.replay import ReplayStepper
    from tests.debugger.toy_graphs import linear_graph

    live = GraphStepper(linear_graph())
    assert isinstance(live, Stepper)
    live.start({"n": 0})
    live.run_to_end()
    assert live.done and live.current_values()["n"] == 3 and live.state_at(0)["n"] == 1
    recorded = ReplayStepper([{"checkpoint_id": "c1", "values": {"n": 1}, "next": []}])
    assert isinstance(recorded, Stepper)
    assert not isinstance(object(), Stepper)
