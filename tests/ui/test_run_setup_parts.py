"""A run's facts name the provider and prompt version only where they apply: a run of a graph of your own has
neither (it used to read "provider ? · prompt version ?"); a RAG run without a recorded version used the
built-in `default`, said the same way as Compare says it."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from rag_debugger.ui.history_view import run_setup_parts


@pytest.mark.parametrize("info, parts", [
    (SimpleNamespace(provider=None, prompt_version=None, graph_spec="rag_debugger/examples/toy.py:graph"), []),
    (SimpleNamespace(provider="offline-rules", prompt_version=None, graph_spec=None),
     ["provider offline-rules", "prompt version default"]),
    (SimpleNamespace(provider="openai", prompt_version="strict", graph_spec=None),
     ["provider openai", "prompt version strict"]),
    (SimpleNamespace(provider=None, prompt_version=None, graph_spec=None), ["prompt version default"]),
])
def test_only_what_applies_is_named(info, parts):
    shown = run_setup_parts(info)
    assert shown == parts and not any("?" in p for p in shown)
