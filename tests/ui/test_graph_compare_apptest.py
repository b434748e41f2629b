"""Comparing two Your-graph runs under AppTest: the Compare page opened by a `?compare=` link on two recorded
runs of examples/ graphs names the first divergence in generic terms and shows the per-step state diff
without the RAG views; two different graphs are said plainly; Run history offers Compare (the same graph by
default), Compare with the original for a what-if fork, and Download as HTML for a graph run."""
from __future__ import annotations

import os

import pytest

from tests.ui.test_compare_apptest import compare_page, words


@pytest.fixture
def graph_runs(env):
    """Chain runs of two inputs, a what-if fork of the first, and a fan-out run, recorded as the Your graph
    page records them, in the app's history file."""
    from rag.runs.graph_runs import GraphRunRecorder
    from rag.runs.history import RunHistory
    from rag_debugger.debugger.session import GraphSession

    ids = {}
    with RunHistory(os.environ["RAG_HISTORY_DB"]) as history:
        for name, spec, inp in (("fanout", "rag_debugger.examples.fanout:graph", {"words": ["a", "bb"]}),
                                ("abc", "rag_debugger.examples.chain:graph", {"text": "a b c"}),
                                ("ab", "rag_debugger.examples.chain:graph", {"text": "a b"})):
            s = GraphSession.open(spec, hooks=[GraphRunRecorder(history)])
            s.start(inp)
            s.run_to_end()
            ids[name] = s.current.run_id
        ids["fork"] = s.fork(0, "text", "x").run_id
    return ids


def test_two_graph_runs_with_different_inputs_compare_without_the_rag_views(app_test, graph_runs):
    at = compare_page(app_test, f"{graph_runs['ab']},{graph_runs['abc']}")
    assert "The runs first differ at step 1 (`clean`), in `text`" in [s.value for s in at.subheader]
    text = words(at)
    assert "A different input: `text` differs from the first step on." in text
    assert "Final state: different in `shouted`, `text`, `words`" in text
    assert "Route:" not in text and "Settings that differ" not in text
    tables = [t.value for t in at.table]
    steps = next(t for t in tables if "fields that differ" in t.columns)
    assert list(steps["node"]) == ["clean", "count", "shout"] and list(steps["status"]) == ["differs"] * 3
    assert any(t.to_dict("records") == [{"field": "words", "A": "2", "B": "3"}] for t in tables)
    assert not any("change" in t.columns for t in tables)  # no chunk table
    assert at.download_button(key="compare_report").label == "Download as HTML"


def test_a_fork_and_two_different_graphs_are_said_plainly(app_test, graph_runs):
    at = compare_page(app_test, f"{graph_runs['ab']},{graph_runs['fork']}")
    assert "An edited field: a what-if fork set `text` after step 1, and the runs differ from there." in words(at)
    at = compare_page(app_test, f"{graph_runs['ab']},{graph_runs['fanout']}")
    assert any("rag_debugger.examples.chain:graph" in w.body and "rag_debugger.examples.fanout:graph" in w.body
               for w in at.warning)
    steps = next(t.value for t in at.table if "fields that differ" in t.value.columns)
    assert set(steps["status"]) == {"only in A", "only in B"}


def test_the_compare_page_in_chinese_for_graph_runs(app_test, graph_runs):
    at = compare_page(app_test, f"{graph_runs['ab']},{graph_runs['abc']}", lang="zh")
    text = words(at)
    assert "输入不同：`text` 从第一步起就不同。" in text and "A different input" not in text
    assert "最终状态：`shouted`, `text`, `words` 不同" in text


def test_run_history_offers_compare_for_graph_runs_and_the_fork_original(app_test, graph_runs):
    at = app_test.switch_page("pages/history.py").run()
    assert at.selectbox(key="history_run").value == graph_runs["fork"]  # the newest run is chosen first
    assert at.selectbox(key="history_compare_with").value == graph_runs["ab"]  # the newest of the same graph
    assert at.button(key="history_compare_original").label == "Compare with the original"
    at.button(key="history_compare_original").click().run()
    assert not at.exception
    assert at.query_params["compare"] == f"{graph_runs['ab']},{graph_runs['fork']}"  # the original is A
    assert "The runs first differ at step 2 (`count`), in `words`" in [s.value for s in at.subheader]
    at.switch_page("pages/history.py").run()
    at.selectbox(key="history_run").set_value(graph_runs["abc"]).run()
    assert not at.exception
    assert at.download_button(key="history_report").label == "Download as HTML"
    assert len(at.selectbox(key="history_compare_with").options) == 3  # the other graph runs, no RAG run
    at.button(key="history_compare").click().run()
    assert not at.exception and not at.error
    assert "The runs first differ at step 1 (`clean`), in `text`" in [s.value for s in at.subheader]


def test_a_graph_run_is_offered_graph_runs_of_its_own_graph_first():
    from rag.runs.run_info import RunInfo
    from rag_debugger.ui.history_view import compare_choices

    def info(kind, spec=None):
        return RunInfo.model_construct(run_id="me", kind=kind, graph_spec=spec)

    others = {"rag": "r", "fan": "f", "chain1": "c1", "chain2": "c2"}
    chain = "rag_debugger.examples.chain:graph"
    specs = {"fan": "rag_debugger.examples.fanout:graph", "chain1": chain, "chain2": chain}
    assert list(compare_choices(info("graph", chain), others, specs)) == ["chain1", "chain2", "fan"]
    assert list(compare_choices(info("main"), others, specs)) == ["rag"]


HOSTILE = "![x](http://evil.example/x.png)"
NODE = "n`![x](//evil.example/y.png)"  # no colon: LangGraph reserves it in node names


def test_names_and_values_of_an_imported_graph_run_are_shown_as_text(app_test, env):
    """An imported file can name any node, field and graph: none of it is read as markdown on the page
    (an image there would make the browser fetch another host)."""
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    from rag.runs.graph_runs import graph_document
    from rag.runs.history import RunHistory
    from rag_debugger.debugger.session import GraphSession

    State = TypedDict("State", {"x": str, HOSTILE: str})  # noqa: UP013 - a field name that is not an identifier

    def node(state: dict) -> dict:
        return {HOSTILE: "`" + state.get("x", "") + "` " + HOSTILE}

    builder = StateGraph(State)
    builder.add_node(NODE, node)
    builder.add_edge(START, NODE)
    builder.add_edge(NODE, END)
    ids = []
    with RunHistory(os.environ["RAG_HISTORY_DB"]) as history:
        for x in ("a", "b"):
            s = GraphSession(spec="mod:g", graph=builder.compile(checkpointer=__import__(
                "langgraph.checkpoint.memory", fromlist=["InMemorySaver"]).InMemorySaver()))
            s.start({"x": x})
            s.run_to_end()
            checkpoints, head = s.recording()
            info = history.record_start("{}", kind="graph", graph_spec=f"{HOSTILE}:{x}")
            history.record_finish(info.run_id, status="done")
            history.record_document(info.run_id, graph_document(info, checkpoints, head, {"x": x}))
            ids.append(info.run_id)
    at = compare_page(app_test, ",".join(ids))
    shown = [m.value for m in at.markdown] + [s.value for s in at.subheader] + [w.body for w in at.warning] \
        + [e.label for e in at.expander]
    assert shown
    for text in shown:  # an image or link only inside a code span, or escaped
        outside = "".join(part for i, part in enumerate(text.split("`")) if i % 2 == 0)
        assert "![x](" not in outside, text
    for table in at.table:
        for cell in [*table.value.columns, *table.value.astype(str).to_numpy().ravel()]:
            assert "![x](" not in str(cell), cell
