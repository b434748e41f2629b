"""The HTML the inspector shows: escaped, every diff kind kept apart, lanes and timeline rows
clickable. Read back with the same parser the AppTest tests use."""
from __future__ import annotations

import json

from debugger import ABSENT, LaneRecord, StepRecord, diff_states, format_value
from debugger.html_view import diff_html, graph_html, lanes_html, step_html, timeline_html
from tests.support.html_reader import read_html


def test_values_are_escaped_and_kinds_are_row_classes():
    rows = diff_states({"a": "<b>old</b>", "gone": 1, "same": [1]},
                       {"a": "<script>x</script>", "new": None, "same": [1]})
    page = read_html(diff_html(rows))
    assert "<script>" not in diff_html(rows)
    table = page.tables["diff"]
    by_field = {r[0]: (r, c) for r, c in zip(table["rows"], table["classes"])}
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


def test_graph_is_a_picture_and_keeps_its_dot_source_readable():
    import base64
    import re

    html = graph_html('<svg><text>a &amp; "b"</text></svg>', 'digraph { "a" -> "b" [label="<x>"] }')
    page = read_html(html)
    assert page.pre["rdi-dot"] == 'digraph { "a" -> "b" [label="<x>"] }'
    src = re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', html).group(1)
    assert base64.b64decode(src).decode() == '<svg><text>a &amp; "b"</text></svg>'  # the SVG, untouched
    assert "rdi-graph" not in graph_html(None, "digraph {}")  # no Graphviz: the page lays it out instead
