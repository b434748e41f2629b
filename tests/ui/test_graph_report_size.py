"""Download as HTML of a refused graph's run grows with its input, not with the square of it (hole 6 of
the second review: 0.5 MB in, 338 MB out at 200 recorded node names), and a node name with ':' draws."""
from __future__ import annotations

import json
import operator
import re
from typing import Annotated, TypedDict

import pytest

from rag.runs.history import RunHistory
from rag_debugger.debugger.allowlist import GraphPolicy


class _State(TypedDict, total=False):
    seen: Annotated[list, operator.add]


def _chain(k: int):
    from langgraph.graph import END, START, StateGraph

    builder = StateGraph(_State)
    names = [f"node_{i:03d}" for i in range(k)]
    for name in names:
        builder.add_node(name, lambda state, n=name: {"seen": [n]})
    for a, b in zip([START, *names], [*names, END], strict=True):
        builder.add_edge(a, b)
    return builder.compile()


def _recorded_run(history: RunHistory, k: int, rename: dict[str, str] | None = None) -> tuple[str, int]:
    """A run of a K-node chain recorded under a graph name the allow-list refuses; `rename` edits node
    names in the recording, as an imported file can. Returns (run id, size of its document)."""
    from rag.runs.graph_runs import graph_document
    from rag_debugger.debugger.session import GraphSession

    s = GraphSession(spec="refused.mod:graph", graph=_with_saver(_chain(k)))
    s.start({"seen": []})
    s.run_to_end()
    checkpoints, head = s.recording()
    info = history.record_start("{}", kind="graph", graph_spec="refused.mod:graph")
    doc = graph_document(info, checkpoints, head, {"seen": []})
    text = json.dumps(doc, ensure_ascii=False)
    for old, new in (rename or {}).items():
        text = text.replace(f'"{old}"', f'"{new}"')
    history.record_document(info.run_id, json.loads(text))
    return info.run_id, len(text)


def _with_saver(graph):
    from rag_debugger.debugger.loading import with_checkpointer

    return with_checkpointer(graph)


@pytest.fixture
def history(tmp_path):
    with RunHistory(tmp_path / "h.db") as found:
        yield found


def test_the_file_of_a_long_refused_run_is_linear_in_its_input(history):
    from rag_debugger.exports.graph_run_file import graph_run_report

    sizes, pictures = {}, {}
    for k in (20, 60):
        run_id, doc_size = _recorded_run(history, k)
        page = graph_run_report(history, run_id, GraphPolicy())
        sizes[k] = (len(page), doc_size)
        assert "only the nodes this run went through" in page
        pictures[k] = len(re.findall(r"data:image/svg\+xml;base64", page))
    # the same few pictures however long the run (the last position drawn whole per language): the file's
    # script marks the one unmarked picture for every other position
    assert pictures[20] == pictures[60] <= 4, pictures
    (small, small_in), (big, big_in) = sizes[20], sizes[60]
    assert big / small < 2 * big_in / small_in, f"the file grew faster than its input: {sizes}"


def test_a_node_name_with_a_colon_or_a_bar_draws(history):
    from rag_debugger.exports.graph_run_file import graph_run_report

    run_id, _size = _recorded_run(history, 3, rename={"node_001": "tools:search", "node_002": "a|b"})
    page = graph_run_report(history, run_id, GraphPolicy())
    assert "tools:search" in page and "a|b" in page


def test_a_stand_in_graph_has_at_most_its_node_cap(history):
    from rag_debugger.debugger.recorded_graph import MAX_STAND_IN_NODES, graph_from_steps

    class Step:
        def __init__(self, nodes):
            self.nodes = nodes

    graph = graph_from_steps([Step((f"n{i}",)) for i in range(MAX_STAND_IN_NODES + 50)])
    drawn = [n for n in graph.get_graph().nodes if not n.startswith("__")]
    assert len(drawn) <= MAX_STAND_IN_NODES + 1  # the cap, and one node saying how many were left out


def test_the_file_is_ascii_and_says_the_same_in_both_languages(history):
    """The file is written in ASCII (Chinese as JSON escapes and character references: one byte a
    character while it is written) and its data reads back to the same words."""
    import html

    from rag.i18n import _, use_language
    from rag_debugger.exports.graph_run_file import NOT_ALLOWED, graph_run_report
    from rag_debugger.views.inspector_html import VIEWING

    run_id, _size = _recorded_run(history, 5, rename={"node_001": "节点<b>&"})
    page = graph_run_report(history, run_id, GraphPolicy(), lang="zh")
    assert page.isascii()
    data = json.loads(re.search(r'id="rdr-data">(.*?)</script>', page, re.S).group(1))
    with use_language("zh"):
        viewing, note = _(VIEWING), _(NOT_ALLOWED).format(spec="refused.mod:graph")
    assert data["langs"]["zh"]["words"]["viewing"] == viewing and not viewing.isascii()
    assert html.escape(note) in html.unescape(page)  # the header's note, as character references
    assert any("节点&lt;b&gt;&amp;" in part for part in data["parts"])  # a node name, escaped once, in the data
