"""Values drawn for reading: a tree instead of a JSON string, a list diff that marks items, a
renderer hook for a graph's own types. All escaped."""
from __future__ import annotations

from rag_debugger.debugger import ABSENT, diff_states
from rag_debugger.views.html_view import diff_html
from rag_debugger.views.value_view import TypedValues, base_field, leaf_html, list_diff, list_diff_html, state_html, tree_html
from tests.support.html_reader import read_html


def text(html: str) -> str:
    return "".join(read_html(html).text)


def test_a_nested_value_is_a_collapsible_tree_not_a_json_string():
    html = tree_html({"a": {"b": [1, "<x>"]}, "n": None})
    assert html.startswith("<details") and "open" in html.split(">", 1)[0]
    assert "<x>" not in html and "&lt;x&gt;" in html
    t = text(html)
    assert "a" in t and "[1]" in t and '"<x>"' in t and "null" in t
    assert '{"a"' not in t  # not one JSON line


def test_absent_null_empty_and_the_string_null_stay_apart():
    assert text(leaf_html(ABSENT)) == "‹absent›"
    assert text(leaf_html(None)) == "null"
    assert text(leaf_html("null")) == '"null"'
    assert text(tree_html([])) == "[]"


def test_a_long_string_shows_a_preview_that_expands():
    html = leaf_html("w" * 500)
    assert html.startswith('<details class="rdi-long">') and "500 chars" in html
    assert "w" * 500 in html


def test_list_diff_marks_added_removed_changed_by_key():
    before = [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}, {"id": 3, "v": "c"}]
    after = [{"id": 1, "v": "a"}, {"id": 3, "v": "C"}, {"id": 4, "v": "d"}]
    marks = [(m, (o or {}).get("id") if o is not ABSENT else None, n.get("id") if n is not ABSENT else None)
             for m, o, n in list_diff(before, after, key=lambda x: x["id"])]
    assert marks == [("same", 1, 1), ("removed", 2, None), ("changed", 3, 3), ("added", None, 4)]


def test_list_diff_without_key_pairs_replacements_as_changed():
    assert [m for m, _, _ in list_diff(["a", "b", "c"], ["a", "x", "c", "d"])] == ["same", "changed", "same", "added"]
    assert [m for m, _, _ in list_diff(["a", "b"], ["b"])] == ["removed", "same"]


def test_list_diff_html_lists_every_item_with_its_mark():
    html = list_diff_html("xs", [1, 2], [2, 3])
    page = read_html(html)
    assert "1 removed · 1 added" in text(html)
    assert 'data-mark="removed"' in html and 'data-mark="added"' in html and 'data-mark="same"' in html
    assert page is not None


def test_a_renderer_draws_its_own_types_and_the_rest_is_a_tree():
    def render(path, value):
        return "<b>CARD</b>" if base_field(path) == "card" else None

    view = TypedValues(render)
    rows = diff_states({"card": 1, "other": {"k": 1}}, {"card": 2, "other": {"k": 2}})
    html = diff_html(rows, view=view)
    table = read_html(html).tables["diff"]
    by_field = {r[0]: r for r in table["rows"]}
    assert by_field["card"][1:] == ["CARD", "CARD", "changed"]
    assert "k" in by_field["other"][2] and "<details" in html


def test_changed_lists_in_the_diff_are_item_diffs_and_unchanged_rows_stay_cheap_text():
    rows = diff_states({"xs": [1, 2], "same": {"a": 1}}, {"xs": [1, 3], "same": {"a": 1}})
    html = diff_html(rows, view=TypedValues())
    table = read_html(html).tables["diff"]
    by_field = {r[0]: (r, c) for r, c in zip(table["rows"], table["classes"], strict=False)}
    assert "2 items" in by_field["xs"][0][1] and "changed" in by_field["xs"][0][2]
    assert by_field["same"][0][1] == '{"a": 1}'  # hidden row: one cut text line, no tree


def test_base_field_and_full_state():
    assert base_field("sub_results[2]") == "sub_results" and base_field("rag_trace.route") == "rag_trace"
    html = state_html({"q": "<q>", "d": {"x": 1}})
    assert 'data-field="q"' in html and "&lt;q&gt;" in html and "<details" in html
