"""State diffs keep absent / null / [] apart and show reducer appends as appended rows."""
from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pandas as pd
import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from pydantic import BaseModel

from rag_debugger.debugger import ABSENT, diff_states, diff_table, format_value, reducer_fields, same_value
from rag_debugger.debugger.state_diff import changed_rows
from tests.debugger import toy_graphs as tg


def kinds(rows):
    return {r.path: r.kind for r in rows}


def test_added_changed_removed_unchanged():
    rows = diff_states({"a": 1, "b": "x", "gone": True}, {"a": 1, "b": "y", "new": 0})
    assert [(r.path, r.kind) for r in rows] == [
        ("a", "unchanged"), ("b", "changed"), ("gone", "removed"), ("new", "added")]
    removed = rows[2]
    assert removed.before is True and removed.after is ABSENT
    assert [r.path for r in changed_rows(rows)] == ["b", "gone", "new"]


def test_absent_null_and_empty_list_are_three_states():
    rows = diff_states(
        {"n_to_l": None, "l_to_n": [], "n_stays": None},
        {"n_to_l": [], "l_to_n": None, "a_to_n": None, "a_to_l": [], "n_stays": None},
    )
    assert kinds(rows) == {
        "n_to_l": "changed", "l_to_n": "changed", "n_stays": "unchanged",
        "a_to_n": "added", "a_to_l": "added"}
    assert format_value(ABSENT) == "‹absent›"
    assert format_value(None) == "null"
    assert format_value([]) == "[]"
    assert format_value("") == '""'
    assert format_value("null") == '"null"'
    assert len({format_value(v) for v in (ABSENT, None, [], "", "null", {})}) == 6


def test_strict_equality_sees_type_changes():
    assert kinds(diff_states({"f": 0, "g": 1, "h": [0]}, {"f": False, "g": 1.0, "h": [False]})) == {
        "f": "changed", "g": "changed", "h": "changed"}
    assert same_value({"a": [1, {"b": None}]}, {"a": [1, {"b": None}]})
    assert not same_value({"a": 1}, {"a": 1, "b": 2})
    assert same_value(ABSENT, ABSENT) and not same_value(ABSENT, None)


def test_reducer_items_show_as_one_appended_row_each():
    rows = diff_states({"r": ["x"]}, {"r": ["x", "y", "z"]}, append_fields={"r"})
    assert [(r.path, r.before, r.after, r.kind) for r in rows] == [
        ("r[1]", ABSENT, "y", "appended"), ("r[2]", ABSENT, "z", "appended")]
    assert kinds(diff_states({"r": ["x"]}, {"r": ["x"]}, append_fields={"r"})) == {"r": "unchanged"}
    assert kinds(diff_states({}, {"r": ["a"]}, append_fields={"r"})) == {"r[0]": "appended"}
    assert kinds(diff_states({}, {"r": []}, append_fields={"r"})) == {"r": "added"}
    # not a prefix: an overwrite, shown as changed so it is not hidden
    assert kinds(diff_states({"r": ["x"]}, {"r": ["q", "y"]}, append_fields={"r"})) == {"r": "changed"}
    assert kinds(diff_states({"r": ["x"]}, {"r": None}, append_fields={"r"})) == {"r": "changed"}
    # without append_fields the same change is one changed row
    assert kinds(diff_states({"r": ["x"]}, {"r": ["x", "y"]})) == {"r": "changed"}


@pytest.mark.parametrize("before, after", [
    ([1, 2], [1.0, 2, 3]), ([True], [1, 2]), ([0], [False, 1]), ([1, "a"], [1, "b", "c"]),
    ([[1]], [[1.0], 2]), ([{"k": 1}], [{"k": True}, 2]), ([float("nan")], [float("nan"), 1]),
])
def test_an_old_item_that_changed_type_or_value_is_not_an_append(before, after):
    """A long reducer list's prefix is checked in C when it holds leaves; strictness must not change."""
    for scale in (1, 50):  # short and long lists
        old = ["same"] * (scale - 1) + before
        new = ["same"] * (scale - 1) + after
        assert kinds(diff_states({"r": old}, {"r": new}, append_fields={"r"})) == {"r": "changed"}


def test_a_long_list_of_leaves_and_containers_still_shows_its_appends():
    old = ["s", 1, 2.5, None, True, [1, {"a": "b"}]] * 40
    rows = diff_states({"r": old}, {"r": [*(list(x) if isinstance(x, list) else x for x in old), "new"]},
                       append_fields={"r"})
    assert kinds(rows) == {"r[240]": "appended"}


def test_nested_fields_diff_key_by_key():
    before = {"trace": {"route": "rewrite", "stage": "initial", "hitl": None}, "q": "x"}
    after = {"trace": {"route": "answer", "hitl": [], "grade": "strong"}, "q": "x"}
    rows = diff_states(before, after, nested_fields={"trace"})
    assert [(r.path, r.kind) for r in rows] == [
        ("trace.route", "changed"), ("trace.stage", "removed"), ("trace.hitl", "changed"),
        ("trace.grade", "added"), ("q", "unchanged")]


def test_nested_field_appearing_from_absent_or_null_lists_its_keys():
    assert kinds(diff_states({}, {"trace": {"a": 1, "b": None}}, nested_fields={"trace"})) == {
        "trace.a": "added", "trace.b": "added"}
    assert kinds(diff_states({"trace": {"a": 1}}, {}, nested_fields={"trace"})) == {"trace.a": "removed"}
    rows = diff_states({"trace": None}, {"trace": {"a": 1}}, nested_fields={"trace"})
    assert [(r.path, r.before, r.kind) for r in rows] == [("trace", None, "changed"), ("trace.a", ABSENT, "added")]
    assert kinds(diff_states({"trace": {}}, {"trace": {}}, nested_fields={"trace"})) == {"trace": "unchanged"}


def test_pydantic_values_compare_and_print_by_data():
    class Grade(BaseModel):
        route: str

    assert kinds(diff_states({"g": Grade(route="a")}, {"g": Grade(route="a")})) == {"g": "unchanged"}
    assert kinds(diff_states({"g": Grade(route="a")}, {"g": Grade(route="b")})) == {"g": "changed"}
    assert format_value(Grade(route="a")) == '{"route": "a"}'
    assert format_value({"s": {1}, "o": object}).startswith('{"s": [1], "o": "<class')
    assert format_value("x" * 50, max_chars=10) == '"xxxxxxxx…'


def test_reducer_fields_found_from_the_compiled_graph():
    assert reducer_fields(tg.fanout_graph()) == {"results"}
    assert reducer_fields(tg.linear_graph()) == {"log"}
    assert reducer_fields(tg.conditional_graph()) == set()

    class M(TypedDict):
        messages: Annotated[list, add_messages]
        total: Annotated[int, operator.add]
        plain: str

    b = StateGraph(M)
    b.add_node("n", lambda s: {})
    b.add_edge(START, "n")
    b.add_edge("n", END)
    assert reducer_fields(b.compile()) == {"messages", "total"}
    assert reducer_fields(object()) == set()


def test_diff_table_hides_unchanged_by_default_and_renders_values():
    rows = diff_states({"a": 1, "b": None, "r": []}, {"a": 1, "b": [], "c": None, "r": ["x"]},
                       append_fields={"r"})
    df = diff_table(rows)
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == ["field", "before", "after", "kind"]
    assert df.to_dict("records") == [
        {"field": "b", "before": "null", "after": "[]", "kind": "changed"},
        {"field": "r[0]", "before": "‹absent›", "after": '"x"', "kind": "appended"},
        {"field": "c", "before": "‹absent›", "after": "null", "kind": "added"},
    ]
    full = diff_table(rows, show_unchanged=True)
    assert full["field"].tolist() == ["a", "b", "r[0]", "c"]
    empty = diff_table([])
    assert empty.empty and list(empty.columns) == ["field", "before", "after", "kind"]


def test_a_cut_cell_reads_exactly_like_the_start_of_the_whole_json():
    """A cell shows the first characters of the value's JSON; the value is cut before encoding (a
    finished run's state is tens of kilobytes), which must not change a single character shown."""
    import json
    import random

    from rag_debugger.debugger.state_diff import format_value

    rng = random.Random(7)

    def value(depth=0):
        r = rng.random()
        if depth > 3 or r < 0.3:
            return rng.choice(["x" * rng.randint(0, 50), 'q"\\\n' * rng.randint(0, 20), 12, 3.5, None, True,
                               "中文" * rng.randint(0, 30), 10 ** 30, -1.5e300])
        if r < 0.65:
            return [value(depth + 1) for _ in range(rng.randint(0, 12))]
        return {rng.choice([f"k{i}" * rng.randint(1, 3), i, 'é"', ""]): value(depth + 1) for i in range(rng.randint(0, 8))}

    checked = 0
    for _ in range(3000):
        v = value()
        if not isinstance(v, (dict, list)):
            continue
        whole = json.dumps(v, ensure_ascii=False)
        for limit in (1, 2, 5, 40, 400):
            expected = whole if len(whole) <= limit else whole[:limit - 1] + "…"
            assert format_value(v, max_chars=limit) == expected, (v, limit)
            checked += 1
    assert checked > 5000
