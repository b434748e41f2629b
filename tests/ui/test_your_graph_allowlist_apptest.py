"""The Your graph field on a shared server: a name that is not on the allow-list is refused before anything
is imported or called (the review's `this:s` imported a module, `os:abort` killed the server); the
launch graph, its module's other graphs, the bundled examples and RAG_DEBUG_GRAPHS patterns load."""
from __future__ import annotations

import sys

import pytest

from rag_debugger.ui.graph_page import GRAPH_FIELD


def load(at, spec: str):
    at.text_input(key=GRAPH_FIELD).input(spec)
    at.button(key="yg_load").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def errors(at) -> str:
    return "\n".join(e.body for e in at.error)


@pytest.mark.parametrize("spec", ["this:s", "os:abort", "builtins:exit", "os.path:join", "subprocess:run",
                                  "rag_debugger.examples.chain:__builtins__", "rag_debugger.examples.chain:os.abort"])
def test_a_name_off_the_list_is_refused_before_any_import(graph_app, spec):
    module = spec.partition(":")[0]
    was_loaded = module in sys.modules
    at = load(graph_app("rag_debugger.examples.chain:graph"), spec)  # os:abort would have ended this test process
    assert "not on this server's list of graphs" in errors(at) and "RAG_DEBUG_GRAPHS" in errors(at)
    if not was_loaded:
        assert module not in sys.modules


def test_this_s_prints_nothing(graph_app, capsys):
    sys.modules.pop("this", None)
    load(graph_app("rag_debugger.examples.chain:graph"), "this:s")
    assert "The Zen of Python" not in capsys.readouterr().out and "this" not in sys.modules


def test_examples_the_launch_module_and_listed_patterns_load(graph_app, tmp_path, monkeypatch):
    (tmp_path / "team_graphs_demo.py").write_text(
        "from rag_debugger.examples.chain import graph as _chain\n\ndef graph():\n    return _chain\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    at = graph_app("rag_debugger.examples.chain:graph")
    assert not errors(load(at, "rag_debugger.examples.fanout:graph"))
    assert "not on this server's list" in errors(load(at, "team_graphs_demo:graph"))
    monkeypatch.setenv("RAG_DEBUG_GRAPHS", "team_graphs_*:graph")
    assert not errors(load(at, "team_graphs_demo:graph"))


def test_a_typed_context_off_the_list_is_refused_too(graph_app):
    at = graph_app("rag_debugger.examples.chain:graph")
    from rag_debugger.ui.graph_page import CONTEXT_FIELD

    at.text_input(key=CONTEXT_FIELD).input("os:abort")
    load(at, "rag_debugger.examples.chain:graph")
    assert "not on this server's list of graphs" in errors(at)
