"""The demo question list: valid, one per route, both languages."""
from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from rag.demo import DemoQuestion, load_demo_questions, parse_demo_questions

ROUTES = {"answer", "rewrite_then_answer", "clarify", "scope_select", "no_knowledge", "complex"}


def test_bundled_demos_cover_every_route_in_both_languages():
    demos = load_demo_questions()
    assert all(isinstance(d, DemoQuestion) for d in demos)
    for route in ROUTES:
        langs = {d.lang for d in demos if d.expected_route == route}
        assert langs, route
    assert {d.lang for d in demos} == {"zh", "en"}
    methods = {d.expected_rewrite_method for d in demos if d.expected_route == "rewrite_then_answer"}
    assert methods == {"step_back", "hyde"}
    assert any("丹瑾是什么属性" in d.question for d in demos)


def test_hitl_demos_resume_and_complex_demos_name_their_split():
    for d in load_demo_questions():
        if d.expected_route in ("clarify", "scope_select"):
            assert d.hitl_answer and d.expected_resume_route == "answer"
        if d.expected_route == "complex":
            assert 2 <= d.expected_sub_questions <= 4


def _item(**kw):
    base = {"id": "x", "question": "q", "lang": "en", "expected_route": "answer", "label": "answer: q"}
    base.update(kw)
    return base


@pytest.mark.parametrize(
    "items, message",
    [
        ({"not": "a list"}, "JSON list"),
        ([_item(), _item()], "duplicate demo id"),
        ([_item(expected_route="clarify")], "needs hitl_answer"),
        ([_item(hitl_answer="a", expected_resume_route="answer")], "only clarify"),
        ([_item(expected_route="complex")], "expected_sub_questions"),
        ([_item(expected_rewrite_method="hyde")], "rewrite_then_answer"),
        ([_item(expected_route="teleport")], "expected_route"),
        ([_item(surprise=1)], "surprise"),
    ],
)
def test_bad_demo_files_fail_with_a_message(tmp_path, items, message):
    path = tmp_path / "demos.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    with pytest.raises((ValueError, ValidationError), match=message):
        load_demo_questions(path)


def test_final_route_of_each_category():
    demos = parse_demo_questions([
        _item(id="a", expected_route="rewrite_then_answer", expected_rewrite_method="hyde"),
        _item(id="b", expected_route="complex", expected_sub_questions=2),
        _item(id="c", expected_route="no_knowledge"),
    ])
    assert [d.final_route for d in demos] == ["answer", "answer", "no_knowledge"]
