"""The debugger core is generic: importing it must not pull in the RAG engine."""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import debugger

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_importing_debugger_does_not_import_rag():
    code = "import sys, debugger; print(sorted(m for m in sys.modules if m == 'rag' or m.startswith('rag.')))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_no_source_file_mentions_the_rag_package():
    for path in (ROOT / "debugger").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"^\s*(from|import)\s+rag\b", text, re.M), path


def test_public_names_are_exported():
    for name in debugger.__all__:
        assert hasattr(debugger, name), name
