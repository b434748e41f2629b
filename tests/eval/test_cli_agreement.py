"""`python -m rag.eval` and the judge against people: when cases carry a person's verdict, the summary prints
agreed/cases, the per-route table, the cases they disagree on and Cohen's kappa (or why it is undefined), and
`--out` holds the same figures; a gold set (no verdict) prints none and `--out` says `agreement: null`. Offline
rules as the judge: the Lumen question is answered, the capital of Australia is not known, the Nova asks which
product."""
from __future__ import annotations

import json

import pytest

from rag.eval.__main__ import main
from tests.eval.test_cli import offline, write_set  # noqa: F401 - the fixture, used by name

LUMEN = "What is the operating temperature range of the Lumen X2?"
CAPITAL = "What is the capital of Australia?"
NOVA = "How do I reset the Nova?"

#: People: answer, no_knowledge, answer; the judge: answer, no_knowledge, scope_select. Agreed 2/3; by chance
#: 2/3·1/3 + 1/3·1/3 = 1/3, so kappa = (2/3 - 1/3) / (1 - 1/3) = 0.5.
LABELLED = [
    {"id": "lumen", "question": LUMEN, "expected_route": "answer", "verdict": "good", "from_run": "main-aaa"},
    {"id": "capital", "question": CAPITAL, "expected_route": "no_knowledge", "verdict": "good"},
    {"id": "nova", "question": NOVA, "expected_route": "answer", "verdict": "wrong", "from_run": "main-bbb"},
    {"id": "gold", "question": NOVA, "expected_route": "clarify"},  # written by hand: not a person's label
]


def test_agreement_is_printed_before_the_last_lines_and_kept_in_out(offline, tmp_path, capsys):  # noqa: F811
    out_file = tmp_path / "r.json"
    assert main([write_set(tmp_path, LABELLED), "--quiet", "--out", str(out_file)]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = lines.index("agreement with people: 2/3 (0.667)")
    block = lines[start:lines.index("kappa: 0.500") + 1]
    assert block[1].split() == ["route", "people", "judge", "both", "agreement"]
    assert [row.split() for row in block[2:5]] == [["answer", "2", "1", "1", "0.667"],  # the routes' own order
                                                   ["scope_select", "0", "1", "0", "0.000"],
                                                   ["no_knowledge", "1", "1", "1", "1.000"]]
    assert block[5:] == ["  disagree nova: person answer, judge scope_select", "kappa: 0.500"]
    assert lines[-3:] == ["route_accuracy: 0.500", "source_hit_rate: n/a", "cases: 4"]  # still the last lines

    doc = json.loads(out_file.read_text("utf-8"))
    found = doc["agreement"]
    assert (found["cases"], found["agreed"], found["kappa"], found["kappa_note"]) == (3, 2, pytest.approx(0.5), None)
    assert found["rate"] == pytest.approx(2 / 3)
    assert found["per_route"][0] == {"route": "answer", "people": 2, "judge": 1, "both": 1,
                                     "agreement": pytest.approx(2 / 3)}
    assert found["disagreements"] == [{"id": "nova", "person": "answer", "judge": "scope_select", "verdict": "wrong",
                                       "from_run": "main-bbb"}]
    cases = {c["id"]: c for c in doc["cases"]}
    assert (cases["lumen"]["from_run"], cases["lumen"]["verdict"]) == ("main-aaa", "good")
    assert (cases["gold"]["from_run"], cases["gold"]["verdict"]) == (None, None)


def test_a_gold_set_prints_no_agreement_and_out_says_null(offline, tmp_path, capsys):  # noqa: F811
    out_file = tmp_path / "r.json"
    gold = [{k: v for k, v in case.items() if k not in ("verdict", "from_run")} for case in LABELLED]
    assert main([write_set(tmp_path, gold), "--quiet", "--out", str(out_file)]) == 0
    out = capsys.readouterr().out
    assert "agreement with people" not in out and "kappa" not in out
    assert json.loads(out_file.read_text("utf-8"))["agreement"] is None


def test_one_route_on_both_sides_says_why_kappa_is_undefined(offline, tmp_path, capsys):  # noqa: F811
    out_file = tmp_path / "r.json"
    same = [{"id": "a", "question": LUMEN, "expected_route": "answer", "verdict": "good"},
            {"id": "b", "question": "What is the storage temperature of the Lumen X2?", "expected_route": "answer",
             "verdict": "good"}]
    assert main([write_set(tmp_path, same), "--quiet", "--out", str(out_file)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "agreement with people: 2/2 (1.000)" in lines
    [kappa] = [line for line in lines if line.startswith("kappa: ")]
    assert kappa.startswith("kappa: n/a (undefined: people and the judge put every case on the same route (answer)")
    found = json.loads(out_file.read_text("utf-8"))["agreement"]
    assert found["kappa"] is None and "same route (answer)" in found["kappa_note"]


def test_compare_prints_and_keeps_the_agreement_of_both_configurations(offline, tmp_path, capsys):  # noqa: F811
    (tmp_path / "prompts").mkdir()
    out_file = tmp_path / "r.json"
    assert main([write_set(tmp_path, LABELLED), "--quiet", "--compare", "default", "--out", str(out_file)]) == 0
    out = capsys.readouterr().out
    assert "agreement with people (default): 2/3 (0.667)" in out
    assert out.count("agreement with people") == 2 and out.count("kappa: 0.500") == 2
    doc = json.loads(out_file.read_text("utf-8"))
    assert doc["agreement"]["agreed"] == doc["compare"]["agreement"]["agreed"] == 2
