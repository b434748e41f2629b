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


def test_csv_sets_use_the_same_fields_with_semicolon_lists(tmp_path):
    path = tmp_path / "set.csv"
    path.write_text("id,question,expected_route,expected_sources,hitl_answer,tags\n"
                    "a,\"How do I reset the Nova?\",answer,nova_thermostat.md;nova_speaker.md,Nova Thermostat,en; hitl\n"
                    "\n"
                    "b,What is x?,,,,\n", "utf-8")
    a, b = load_cases(path)
    assert (a.id, a.expected_route, a.expected_sources, a.hitl_answer, a.tags) == (
        "a", "answer", ["nova_thermostat.md", "nova_speaker.md"], "Nova Thermostat", ["en", "hitl"])
    assert (b.id, b.expected_route, b.expected_sources, b.hitl_answer) == ("b", None, [], None)


@pytest.mark.parametrize("text, message", [
    ("question,expected_route\nq?,maybe\n", "set.csv:2: field 'expected_route'"),
    ("question,answer\nq?,x\n", "set.csv:1: field 'answer': unknown column"),
    ("id,expected_route\na,answer\n", "set.csv:1: field 'question': Field required"),
    ("question,id\nq?,a\nr?,b,extra\n", "set.csv:3: field 'case': 3 cells, the header names 2"),
    ("question,id\nq?,a\nr?,a\n", "set.csv:3: field 'id': 'a' already used on line 2"),
    ("question\n", "set.csv: no cases"),
])
def test_bad_csv_rows_are_named_with_line_and_field(text, message):
    from rag.eval.cases import parse_csv

    with pytest.raises(EvalSetError) as err:
        parse_csv(text, "set.csv")
    assert str(err.value).startswith(message)


def test_a_blank_hitl_answer_is_refused():
    with pytest.raises(EvalSetError, match="line 1|:1: field 'hitl_answer'"):
        parse_cases(['{"question": "q?", "hitl_answer": "  "}'], "set.jsonl")


def test_uploads_are_read_by_their_name_and_must_be_utf8():
    from rag.eval.cases import cases_from_upload

    assert [c.id for c in cases_from_upload("s.csv", "\ufeffquestion,id\nq?,a\n".encode())] == ["a"]
    assert [c.id for c in cases_from_upload("s.jsonl", b'{"question": "q?"}\n')] == ["line1"]
    with pytest.raises(EvalSetError, match="not UTF-8"):
        cases_from_upload("s.jsonl", "{\"question\": \"é\"}".encode("latin-1"))


def test_set_errors_are_errors_the_user_can_fix():
    from rag.errors import UserFixableError

    assert issubclass(EvalSetError, UserFixableError)


def test_the_bundled_set_covers_every_demo_question_and_its_hitl_answer():
    import json

    demos = json.loads((EVAL_DIR.parent / "demo_questions.json").read_text("utf-8"))
    cases = load_cases(EVAL_DIR / "bundled.jsonl")
    questions = {c.question for c in cases if c.hitl_answer is None}
    answered = {(c.question, c.hitl_answer) for c in cases if c.hitl_answer}
    assert all(d["question"] in questions for d in demos)
    assert {(d["question"], d["hitl_answer"]) for d in demos if d.get("hitl_answer")} <= answered
    assert len(cases) > len(demos) + len(answered)
