"""Evaluation set files: the shipped ones parse, and a bad line is named with its field."""
from __future__ import annotations

from pathlib import Path

import pytest

from rag.eval.cases import EvalSetError, load_cases, parse_cases

EVAL_DIR = Path(__file__).resolve().parents[2] / "rag" / "data" / "eval"


@pytest.mark.parametrize("name, minimum", [("pydoc.jsonl", 40), ("pydoc_holdout.jsonl", 16), ("bundled.jsonl", 26)])
def test_shipped_sets_parse(name, minimum):
    cases = load_cases(EVAL_DIR / name)
    assert len(cases) >= minimum
    assert all(c.expected_route for c in cases)


def test_pydoc_set_covers_every_kind_of_case():
    cases = load_cases(EVAL_DIR / "pydoc.jsonl")
    tags = {t for c in cases for t in c.tags}
    assert {"answerable", "off_topic", "comparison", "ambiguous"} <= tags
    assert {c.expected_route for c in cases} == {"answer", "clarify", "scope_select", "no_knowledge"}


def test_only_the_question_is_required_and_ids_default_to_the_line():
    cases = parse_cases(['{"question": "What is x?"}', "", "# a comment", '{"question": "y?", "id": "y"}'])
    assert [(c.id, c.expected_route, c.expected_sources, c.tags) for c in cases] == [
        ("line1", None, [], []), ("y", None, [], [])]


@pytest.mark.parametrize("lines, message", [
    (['{"question": "ok?"}', "{not json"], "set.jsonl:2: not valid JSON"),
    (['["a list"]'], "set.jsonl:1: a case must be a JSON object"),
    (['{"id": "a"}'], "set.jsonl:1: field 'question': Field required"),
    (['{"question": "   "}'], "set.jsonl:1: field 'question'"),
    (['{"question": "q?", "expected_route": "rewrite"}'], "set.jsonl:1: field 'expected_route'"),
    (['{"question": "q?", "expected_sources": "a.md"}'], "set.jsonl:1: field 'expected_sources'"),
    (['{"question": "q?", "tagz": []}'], "set.jsonl:1: field 'tagz': Extra inputs are not permitted"),
    (['{"question": "a?", "id": "x"}', '{"question": "b?", "id": "x"}'], "set.jsonl:2: field 'id': 'x' already used on line 1"),
    (["", "# only comments"], "set.jsonl: no cases"),
])
def test_bad_lines_are_named_with_line_and_field(lines, message):
    with pytest.raises(EvalSetError) as err:
        parse_cases(lines, "set.jsonl")
    assert str(err.value).startswith(message)


def test_cli_reports_a_bad_file_without_a_traceback(tmp_path, capsys):
    from rag.eval.__main__ import main

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q?", "expected_route": "maybe"}\n', "utf-8")
    assert main([str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad}:1: field 'expected_route'") and "Traceback" not in err
    assert main([str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read the set file" in capsys.readouterr().err
