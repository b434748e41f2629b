"""The evaluation's HTML report (`--html`, the Evaluate page's "Download as HTML") and the cases CSV carry what
question sets made from runs add: the agreement between the judge and people (per configuration, in both
languages, every text escaped) and each case's `from_run` and `verdict`; a gold set's report has no agreement
section. The CSV's formula cells stay quoted."""
from __future__ import annotations

import csv
import io
import re

from rag.eval.__main__ import main
from rag.eval.report import evaluation_html
from rag.eval.results_store import CSV_COLUMNS, EvalRecord, export_csv
from rag.eval.scoring import CaseResult
from tests.eval.test_cli import offline, write_set  # noqa: F401 - the fixture, used by name
from tests.eval.test_cli_agreement import LABELLED

XSS = '<img src=x onerror="alert(1)">'


def labelled(nova_route: str = "scope_select") -> list[CaseResult]:
    return [CaseResult(id="lumen", expected_route="answer", route="answer", question="Lumen?", verdict="good",
                       from_run="main-aaa"),
            CaseResult(id="capital", expected_route="no_knowledge", route="no_knowledge", question="Capital?",
                       verdict="good"),
            CaseResult(id="nova", expected_route="answer", route=nova_route, question=XSS, verdict="wrong",
                       from_run="main-bbb"),
            CaseResult(id="gold", expected_route="clarify", route="scope_select", question="Gold?")]


def english(text: str) -> str:
    return text.split('<div class="rer-body-zh">')[0]


def section(text: str, heading: str) -> str:
    """The HTML from the `<h2>` named `heading` to the next `<h2>`."""
    found = re.search(f"<h2>{re.escape(heading)}</h2>(.*?)(?=<h2>|</div>)", text, re.S)
    assert found, f"no section {heading!r}"
    return found.group(1)


def cells(table_html: str) -> list[list[str]]:
    return [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", table_html) if "<td>" in row]


def test_the_report_shows_the_agreement_and_the_disagreeing_cases_escaped():
    text = evaluation_html(["A"], [labelled()], set_name="mine", kb="bundled")
    found = section(english(text), "Agreement between the judge and people")
    assert "Agreed on 2 of 3 cases (0.667) · Cohen&#x27;s kappa 0.500" in found
    per_route, disagreements = found.split("Cases they disagree on")
    assert cells(per_route) == [["answer", "2", "1", "1", "0.667"], ["scope_select", "0", "1", "0", "0.000"],
                                ["no_knowledge", "1", "1", "1", "1.000"]]
    assert cells(disagreements) == [["nova", "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;", "answer",
                                     "scope_select", "wrong", "main-bbb"]]
    assert "<img src=x" not in text
    assert "评判器与人工的一致度" in text and "双方不一致的用例" in text  # the Chinese body has it too


def test_each_case_folds_open_to_its_from_run_and_verdict():
    text = english(evaluation_html(["A"], [labelled()], set_name="mine"))
    cases = re.findall(r'<details class="case"><summary><b>(\w+)</b>(.*?)</details>', text, re.S)
    facts = {case_id: dict(row for row in cells(body) if len(row) == 2) for case_id, body in cases}
    assert (facts["lumen"]["from run"], facts["lumen"]["verdict"]) == ("main-aaa", "good")
    assert (facts["nova"]["from run"], facts["nova"]["verdict"]) == ("main-bbb", "wrong")
    assert "from run" not in facts["gold"] and "verdict" not in facts["gold"]


def test_two_configurations_each_get_their_agreement_and_an_undefined_kappa_says_why():
    same = [CaseResult(id=f"c{i}", expected_route="answer", route="answer", verdict="good") for i in range(2)]
    found = section(english(evaluation_html(["base", "new"], [labelled(), same[:1] + labelled()[1:2]],
                                            set_name="s")), "Agreement between the judge and people")
    assert "<h3>base</h3>" in found and "<h3>new</h3>" in found
    alone = section(english(evaluation_html(["A"], [same], set_name="s")), "Agreement between the judge and people")
    assert "Cohen&#x27;s kappa: undefined: people and the judge put every case on the same route (answer)" in alone
    assert "Cases they disagree on · 0" in alone


def test_a_gold_set_has_no_agreement_section():
    gold = [CaseResult(id="g", expected_route="answer", route="answer", question="Q?")]
    text = evaluation_html(["A"], [gold], set_name="gold")
    assert "Agreement between the judge and people" not in text and "评判器与人工的一致度" not in text


def test_the_cli_report_has_the_agreement(offline, tmp_path, capsys):  # noqa: F811
    out = tmp_path / "report.html"
    assert main([write_set(tmp_path, LABELLED), "--quiet", "--html", str(out)]) == 0
    found = section(english(out.read_text("utf-8")), "Agreement between the judge and people")
    assert "Agreed on 2 of 3 cases (0.667)" in found and "main-bbb" in found


def test_the_evaluate_pages_report_keeps_them_through_the_store(tmp_path):
    """The page's button builds the file from the stored record: from_run and verdict survive the round trip."""
    from rag.eval.results_store import EvalStore
    from rag_debugger.ui.evaluate_view import evaluation_file

    store = EvalStore(tmp_path / "h.db")
    saved = store.save(EvalRecord.from_results(labelled(), set_name="mine", label="A"))
    text = english(evaluation_file(store.group(saved.group_id), "en"))
    assert "Agreed on 2 of 3 cases (0.667)" in section(text, "Agreement between the judge and people")


def test_the_cases_csv_has_from_run_and_verdict_with_formulas_quoted():
    record = EvalRecord.from_results(labelled(), set_name="s", label="A")
    record.cases[3].update(from_run="=HYPERLINK(\"http://evil.example\")", verdict="@SUM(A1)")  # a tampered store
    rows = list(csv.DictReader(io.StringIO(export_csv([record]))))
    assert list(rows[0]) == CSV_COLUMNS and CSV_COLUMNS[-2:] == ["from_run", "verdict"]
    by_id = {r["id"]: r for r in rows}
    assert (by_id["lumen"]["from_run"], by_id["lumen"]["verdict"]) == ("main-aaa", "good")
    assert (by_id["capital"]["from_run"], by_id["capital"]["verdict"]) == ("", "good")
    assert by_id["gold"]["from_run"] == "'=HYPERLINK(\"http://evil.example\")" and by_id["gold"]["verdict"] == "'@SUM(A1)"
