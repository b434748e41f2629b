"""The house rules behind a fast first paint and a fast first click: `import rag` stays light, every
caller gets its compiled graph from one registry, and the warm-up fills the caches a run uses."""
from __future__ import annotations

import subprocess
import sys

from tests.support.browser import ROOT


def _modules_after(statement: str) -> set[str]:
    code = f"import sys; {statement}; print('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_import_rag_pulls_in_neither_langgraph_nor_retrieval():
    loaded = _modules_after("import rag, rag.rules.fast_path, rag.errors")
    assert not {m for m in loaded if m.split(".")[0] in ("langgraph", "langchain_core", "jieba", "numpy")}


def test_public_names_still_resolve_lazily():
    import rag

    assert set(rag.__all__) == set(rag._EXPORTS)
    for name in rag.__all__:
        assert getattr(rag, name) is not None
    from rag.api import run_rag_graph

    assert rag.run_rag_graph is run_rag_graph


def test_two_callers_with_the_same_checkpointer_share_one_compiled_graph(tmp_path):
    from langgraph.checkpoint.memory import InMemorySaver

    from rag.api import _compiled
    from rag.graph.build import compiled_graph
    from rag.playground.ab_fork import _resolve_checkpointer
    from rag.runs.history import RunHistory
    from rag_debugger.workbench.graphs import shared_graph

    saver = InMemorySaver()
    assert shared_graph("main", saver) is compiled_graph("main", saver)
    assert _resolve_checkpointer(saver)[1] is compiled_graph("main", saver)
    assert shared_graph("resume", saver) is not compiled_graph("main", saver)
    assert compiled_graph("main", InMemorySaver()) is not compiled_graph("main", saver)  # per checkpointer
    assert _compiled("main") is compiled_graph("main")  # plain runs: no checkpointer
    with RunHistory(tmp_path / "h.db") as history:
        assert history.graph("resume") is compiled_graph("resume", history.checkpointer)
        assert _resolve_checkpointer(history)[1] is history.graph("main")


def test_unknown_graph_kind_is_refused():
    import pytest

    from rag.graph.build import compiled_graph

    with pytest.raises(ValueError, match="unknown graph kind"):
        compiled_graph("sideways")


def test_warm_up_fills_the_caches_the_first_question_uses():
    from langgraph.checkpoint.memory import InMemorySaver

    from rag.graph.build import compiled_graph
    from rag.retrieval import retriever_factory
    from rag.settings import RagSettings
    from rag.warmup import start_warm_up

    settings = RagSettings(RAG_MODEL_PROVIDER="offline")
    saver = InMemorySaver()
    thread = start_warm_up(settings, saver)
    assert thread is not None
    thread.join(timeout=120)
    assert not thread.is_alive()
    assert start_warm_up(settings, saver) is None  # once per process and configuration
    assert retriever_factory._fingerprint(settings) in retriever_factory._retrievers
    assert "main" in saver._rag_compiled_graphs and "resume" in saver._rag_compiled_graphs
    assert compiled_graph("main", saver) is saver._rag_compiled_graphs["main"]


def test_the_debugger_question_row_draws_without_the_engine():
    """pages/debugger.py draws the question box and the demo buttons before it imports the rest of the
    debugger, so a new user can click a demo as soon as the heading shows (issue 24, finding 12). That
    holds only while the row's module and what the page imported before it bring no engine."""
    loaded = _modules_after("import streamlit, rag_debugger.ui.streamlit_state, rag_debugger.ui.navigation, "
                            "rag_debugger.ui.question_row, rag.demo")
    heavy = {m for m in loaded if m.split(".")[0] in ("langgraph", "langchain_core", "pandas", "jieba", "numpy")}
    assert not heavy, sorted(heavy)[:5]
    assert "rag_debugger.workbench.session" not in loaded and "rag_debugger.ui.debugger_view" not in loaded
