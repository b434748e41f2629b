"""Evaluate judges the answer, not only the route: a case may name phrases the answer must say
(`expected_answer_contains`), and a run that takes the right route but says nothing useful no
longer scores 1.000. The CLI gates on it (`--min-answer-accuracy`) and the HTML file shows it."""
from __future__ import annotations

import json

import pytest

from rag.eval.__main__ import main
from rag.eval.cases import parse_cases, parse_csv
from rag.eval.report import evaluation_html
from rag.eval.scoring import CaseResult, answer_accuracy, answer_says, route_accuracy, summary


@pytest.mark.parametrize("expected, answer, says", [
    ((), "anything", None),  # nothing expected: not judged
    (("Eco mode",), "Battery drains quickly? Use  ECO mode, lower ...", True),  # case and spaces ignored
    (("Eco mode", "beacon"), "Use Eco mode.", False),  # every phrase, not one of them
    (("长弓",), "她使用的武器是长弓。 [3]", True),
    (("长弓",), None, False),  # no answer says nothing
    (("长弓",), "", False),
    (("  ",), "x", None),  # a blank phrase expects nothing
])
def test_answer_says_every_expected_phrase(expected, answer, says):
    assert answer_says(expected, answer) is says


def test_a_right_route_with_a_non_answer_no_longer_scores_one():
    right = CaseResult(id="a", expected_route="answer", route="answer", expected_answer_contains=("Eco mode",),
                       answer="The Lumen X2 is a fictional rechargeable camping lantern by Trailglow. [2]")
    unjudged = CaseResult(id="b", expected_route="no_knowledge", route="no_knowledge")
    assert route_accuracy([right, unjudged]) == 1.0
    assert answer_accuracy([right, unjudged]) == 0.0
    assert summary([unjudged])["answer_accuracy"] is None
    again = CaseResult.from_dict(right.to_dict())
    assert again.answer_correct is False and again.expected_answer_contains == ("Eco mode",)


def test_sets_carry_expected_answer_phrases_in_json_lines_and_csv():
    case = parse_cases([json.dumps({"question": "q", "expected_answer_contains": ["a b", "c"]})])[0]
    assert case.expected_answer_contains == ["a b", "c"]
    case = parse_csv("question,expected_answer_contains\nq,a b; c\n")[0]
    assert case.expected_answer_contains == ["a b", "c"]


@pytest.fixture
def offline(monkeypatch):
    monkeypatch.setenv("RAG_MODEL_PROVIDER", "offline")
    for key in ("RERANK_MODEL", "RERANK_API_KEY", "RERANK_HOST", "RAG_CANDIDATE_K", "RAG_MIN_SCORE",
                "RAG_PROMPT_VERSION"):
        monkeypatch.delenv(key, raising=False)


CASES = [
    {"id": "says_it", "question": "My lantern dies too fast, any tips?", "expected_route": "answer",
     "expected_answer_contains": ["Eco mode"]},
    {"id": "right_route_wrong_words", "question": "What is the operating temperature range of the Lumen X2?",
     "expected_route": "answer", "expected_answer_contains": ["a phrase the manual never says"]},
]


@pytest.mark.parametrize("threshold, code", [(0.9, 1), (0.5, 0), (None, 0)])
def test_the_cli_reports_and_gates_on_answer_accuracy(offline, tmp_path, capsys, threshold, code):
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(c) for c in CASES) + "\n", "utf-8")
    out = tmp_path / "out.json"
    html = tmp_path / "report.html"
    args = [str(path), "--out", str(out), "--html", str(html)]
    args += [] if threshold is None else ["--min-answer-accuracy", str(threshold)]
    assert main(args) == code
    captured = capsys.readouterr()
    lines = captured.out.strip().splitlines()
    assert "answer_accuracy: 0.500" in lines and "route_accuracy: 1.000" in lines
    assert any(line.startswith("MISS right_route_wrong_words") and "does not say" in line for line in lines)
    assert ("under --min-answer-accuracy" in captured.err) is (code == 1)
    doc = json.loads(out.read_text("utf-8"))
    assert doc["summary"]["answer_accuracy"] == 0.5
    by_id = {c["id"]: c for c in doc["cases"]}
    assert by_id["says_it"]["answer_correct"] is True and "Eco mode" in by_id["says_it"]["answer"]
    assert "Answer accuracy" in html.read_text("utf-8")


def test_the_html_file_shows_answer_accuracy_beside_route_accuracy():
    r = CaseResult(id="a", expected_route="answer", route="answer", expected_answer_contains=("x",), answer="<b>y</b>")
    text = evaluation_html(["A"], [[r]], set_name="s.jsonl", kb="bundled")
    head = text[text.index("Route accuracy"):]
    assert head.index("Answer accuracy") < head.index("Source hit rate")
    assert "&lt;b&gt;y&lt;/b&gt;" in text and "<b>y</b>" not in text


def test_the_bundled_set_names_what_answers_say():
    from rag.eval.cases import load_cases
    from rag.settings import DATA_DIR

    cases = load_cases(DATA_DIR / "eval" / "bundled.jsonl")
    answering = [c for c in cases if c.expected_route == "answer"]
    assert sum(1 for c in answering if c.expected_answer_contains) >= len(answering) - 1
