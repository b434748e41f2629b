"""An evaluation as one HTML file (`python -m rag.eval SET --html report.html`): no script and no fetch
allowed, both languages, the summary, confusion matrix, per-route and per-tag accuracy, latency per node,
the cases that regressed or got fixed between two configurations, each case folding open; every text
escaped."""
from __future__ import annotations

import re

import pytest

from rag.eval.__main__ import main
from rag.eval.report import evaluation_html
from rag.eval.scoring import CaseResult

XSS = '<img src=x onerror="alert(1)"> <script>alert(2)</script>'


def results(route_b: str) -> tuple[list[CaseResult], list[CaseResult]]:
    a = [CaseResult(id="c1", expected_route="answer", route="answer", question=XSS, sources=("a.md",),
                    expected_sources=("a.md",), tags=("en",), node_ms=(("retrieve_initial", 12),), latency_ms=30),
         CaseResult(id="c2", expected_route="no_knowledge", route="answer", question="Q2", tags=("zh",))]
    b = [CaseResult(id="c1", expected_route="answer", route=route_b, question=XSS, tags=("en",)),
         CaseResult(id="c2", expected_route="no_knowledge", route="no_knowledge", question="Q2", tags=("zh",))]
    return a, b


def test_the_file_allows_no_script_and_escapes_every_text():
    a, b = results("no_knowledge")
    text = evaluation_html(["A", "B"], [a, b], set_name="s.jsonl", kb="bundled")
    csp = re.search(r'Content-Security-Policy" content="([^"]+)"', text).group(1)
    assert "default-src 'none'" in csp and "script-src" not in csp
    assert "<script" not in text and "<img src=x" not in text and "&lt;img src=x onerror=" in text


def test_regressed_and_fixed_cases_and_both_languages():
    a, b = results("no_knowledge")
    text = evaluation_html(["A", "B"], [a, b], set_name="s.jsonl", kb="bundled", lang="zh")
    assert "Regressed (right under A, wrong under B) · 1" in text and "Fixed (wrong under A, right under B) · 1" in text
    assert "退步（A 下正确，B 下错误） · 1" in text
    assert 'id="rer-zh" checked' in text
    assert text.count('<details class="case">') == 4  # two cases, once per language
    assert "retrieve_initial" in text and "Route accuracy" in text and "路由准确率" in text


def test_the_cli_writes_the_report(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAG_MODEL_PROVIDER", "offline")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    out = tmp_path / "report.html"
    cases = tmp_path / "two.jsonl"
    lines = open("rag/data/eval/bundled.jsonl", encoding="utf-8").read().splitlines()[:2]
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main([str(cases), "--quiet", "--html", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "Evaluation of two.jsonl" in text and "Confusion matrix" in text
    with pytest.raises(SystemExit) as exc:
        main(["rag/data/eval/bundled.jsonl", "--html", str(tmp_path / "no" / "r.html")])
    assert exc.value.code == 2
