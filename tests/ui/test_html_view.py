"""The HTML the inspector shows: escaped, every diff kind kept apart, lanes and timeline rows
clickable. Read back with the same parser the AppTest tests use."""
from __future__ import annotations

import json
import re

from rag_debugger.debugger import ABSENT, LaneRecord, StepRecord, diff_states, format_value
from rag_debugger.views.html_view import diff_html, dot_source_html, graph_html, lanes_html, step_html, timeline_html
from tests.debugger import toy_graphs as tg
from tests.support.html_reader import read_html


def test_values_are_escaped_and_kinds_are_row_classes():
    rows = diff_states({"a": "<b>old</b>", "gone": 1, "same": [1]},
                       {"a": "<script>x</script>", "new": None, "same": [1]})
    page = read_html(diff_html(rows))
    assert "<script>" not in diff_html(rows)
    table = page.tables["diff"]
    by_field = {r[0]: (r, c) for r, c in zip(table["rows"], table["classes"], strict=False)}
    assert by_field["a"][0][2] == '"<script>x</script>"'  # the text a person reads
    assert by_field["new"][0][1:] == ["‹absent›", "null", "added"]
    assert by_field["gone"][0][1:] == ["1", "‹absent›", "removed"]
    assert by_field["same"][1] == "rdi-kind-unchanged"  # hidden until "show unchanged" is on


def test_a_step_that_changed_nothing_says_so():
    assert "changed no state field" in diff_html(diff_states({"a": 1}, {"a": 1}))


def test_long_values_are_cut_where_the_cell_ends():
    big = [{"text": "字" * 50, "n": i} for i in range(2000)]
    text = format_value(big, max_chars=400)
    assert len(text) == 400 and text.endswith("…")
    assert text[:-1] == json.dumps(big, ensure_ascii=False)[:399]
    assert format_value(ABSENT, max_chars=3) == "‹absent›"


def _record(**kw) -> StepRecord:
    base = dict(index=2, nodes=("fan",), duration_ms=12.3, values_before={"x": 1}, values_after={"x": 2})
    return StepRecord(**{**base, **kw})


def test_parallel_lanes_each_show_their_own_update():
    lanes = (LaneRecord(task_id="1", node="fan", writes={"sub_results": [{"question": "q1 <?>"}]}),
             LaneRecord(task_id="2", node="fan", writes={"n": 2}, error="ValueError: boom"))
    html = lanes_html(_record(lanes=lanes))
    page = read_html(html)
    assert "2 parallel lanes" in "".join(page.text)
    assert "Lane 1: q1 <?>" in "".join(page.text) and "Lane 2: fan" in "".join(page.text)
    assert page.tables["lane2"]["rows"] == [["n", "‹absent›", "2", "added"]]
    assert "ValueError: boom" in "".join(page.text)
    assert lanes_html(_record(lanes=lanes[:1])) == ""  # one task is not a fan-out


def test_step_title_error_and_nothing_run_yet():
    text = "".join(read_html(step_html(_record(error="KeyError: 'k'"))).text)
    assert "Step 3: fan · 12 ms" in text and "This step failed: KeyError: 'k'" in text
    assert "Nothing has run yet" in step_html(None)


def test_timeline_rows_travel_and_mark_the_selected_step():
    rows = [{"step": 1, "nodes": "a"}, {"step": 2, "nodes": "b"}]
    html = timeline_html(rows, selected=1, columns=("step", "nodes"))
    assert 'data-travel="0"' in html and 'data-travel="1"' in html
    assert read_html(html).tables["timeline"]["classes"] == ["", "rdi-selected"]
    assert timeline_html([]) == ""


def test_graph_is_a_picture_and_its_dot_source_stays_readable():
    import base64

    svg = '<svg viewBox="0 0 1 1"><g class="node"><title>a</title><text>a &amp; "b"</text></g></svg>'
    html = graph_html(svg, tg.linear_graph())
    src = re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', html).group(1)
    assert base64.b64decode(src).decode() == svg  # the SVG, untouched
    assert "already run" in "".join(read_html(html).text)  # the legend, as HTML under the picture
    assert read_html(dot_source_html('digraph { "a" -> "b" [label="<x>"] }')).pre["rdi-dot"] == \
        'digraph { "a" -> "b" [label="<x>"] }'


def test_without_a_layout_program_the_graph_is_a_list_that_takes_the_marks():
    html = graph_html(None, tg.conditional_graph(), {"current": ["check"], "done": ["__start__", "classify"]})
    assert "<img" not in html
    assert '<li data-node="check" class="rdi-current">' in html and '<li data-node="classify" class="rdi-done">' in html
    nodes = re.findall(r'<li data-node="([^"]+)"', html)
    assert nodes[0] == "__start__" and nodes[-1] == "__end__"
    assert set(nodes) == set(tg.conditional_graph().get_graph().nodes)
    assert 'class="rdi-cond" data-edge="classify->positive"' in html  # a conditional edge, dashed
    assert "START" in "".join(read_html(html).text)



def test_a_dict_diffed_key_by_key_is_not_drawn_whole_again():
    from rag_debugger.views.value_view import TypedValues

    rows = diff_states({"trace": None}, {"trace": {"route": "answer", "chunks": ["a long chunk text"] * 3}},
                       nested_fields={"trace"})
    html = diff_html(rows, view=TypedValues())
    row = re.search(r'<tr [^>]*data-field="trace">(.*?)</tr>', html, re.S).group(1)
    assert "{2 keys: route, chunks}" in row and "a long chunk text" not in row  # one line: its keys follow
    assert html.count("a long chunk text") == 3  # once, in the trace.chunks row


def test_a_long_value_is_folded_and_drawn_only_once_opened():
    from rag_debugger.views.value_view import TypedValues

    rows = diff_states({"docs": []}, {"docs": [{"text": f"chunk {i} " + "x" * 400} for i in range(50)]})
    whole = diff_html(rows, view=TypedValues())
    assert "chunk 49" in whole  # without `opened`, drawn in full as before
    folded = diff_html(rows, view=TypedValues(), opened=frozenset())
    assert "chunk 1 " not in folded and 'data-lazy data-id="diff:docs"' in folded and "[50 items]" in folded
    assert len(folded) < len(whole) / 20
    opened = diff_html(rows, view=TypedValues(), opened=frozenset({"diff:docs"}))
    assert "chunk 49" in opened and 'data-id="diff:docs" open' in opened
    short = diff_states({"a": 1}, {"a": 2})
    assert "data-lazy" not in diff_html(short, view=TypedValues(), opened=frozenset())  # short values stay as they are
