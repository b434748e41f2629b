"""A run as one HTML file (`python -m rag_debugger.run_to_html`): a CSP that forbids every fetch and lets only the
file's own script run (by its hash), both languages in it, every position's sections, no key, and bad
input refused with status 2."""
from __future__ import annotations

import base64
import hashlib
import json
import re

import pytest

from rag.runs.demo_pack import DEMO_RUNS_DIR
from rag_debugger.run_to_html import main as report_main

COMPLEX = DEMO_RUNS_DIR / "14_en_complex_two_products.json"


@pytest.fixture(scope="module")
def complex_report(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("report") / "run.html"
    assert report_main([str(COMPLEX), "-o", str(out), "--step", "2"]) == 0
    return out.read_text(encoding="utf-8")


def data_of(text: str) -> dict:
    raw = re.search(r'<script type="application/json" id="rdr-data">(.*?)</script>', text, re.S).group(1)
    return json.loads(raw)


def test_the_file_forbids_every_fetch_and_runs_only_its_own_script(complex_report):
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', complex_report).group(1)
    assert "default-src 'none'" in csp and "img-src data:" in csp
    scripts = re.findall(r"<script>(.*?)</script>", complex_report, re.S)
    assert len(scripts) == 1
    digest = "sha256-" + base64.b64encode(hashlib.sha256(scripts[0].encode("utf-8")).digest()).decode()
    assert f"script-src '{digest}'" in csp
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", complex_report)


def test_every_position_in_both_languages_opening_at_the_step_asked(complex_report):
    data = data_of(complex_report)
    assert set(data["langs"]) == {"en", "zh"}
    assert data["positions"] == 5 and data["start"] == 1  # 4 steps + the end; --step 2 is index 1
    for lang in data["langs"].values():
        assert len(lang["pos"]) == 5 and all(len(p) == len(data["sections"]) for p in lang["pos"])
    parts = data["parts"]
    end = {name: parts[i] for name, i in zip(data["sections"], data["langs"]["en"]["pos"][-1], strict=True)}
    assert "Extractive answer" in end["head"] and "nova_thermostat.md" in end["head"]  # the answer, cited
    zh_end = {name: parts[i] for name, i in zip(data["sections"], data["langs"]["zh"]["pos"][-1], strict=True)}
    assert "抽取式回答" in zh_end["head"]
    lanes = parts[data["langs"]["en"]["pos"][2][data["sections"].index("step")]]
    assert "rag_sub_agent" in lanes and lanes.count("lane") >= 2  # the Send lanes of step 3


def test_the_complex_demo_file_is_under_a_megabyte(complex_report):
    assert len(complex_report.encode("utf-8")) < 1_000_000


def test_a_key_in_the_environment_is_nowhere_in_the_file(tmp_path, monkeypatch):
    from rag.runs.record_bundle import main as record_main

    key = "sk-test-REPORT-SECRET-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("RAG_MODEL_PROVIDER", "offline")
    assert record_main(["What is the operating temperature range of the Lumen X2?", "-o", str(tmp_path / "r.json")]) == 0
    assert report_main([str(tmp_path / "r.json"), "-o", str(tmp_path / "r.html")]) == 0
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert key not in text and key[8:24] not in text and "0123456789abcdef" not in text


def test_bad_input_gets_a_message_and_status_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAG_HISTORY_DB", str(tmp_path / "empty.db"))
    monkeypatch.delenv("RAG_HISTORY_URL", raising=False)
    assert report_main(["no-such-run", "-o", str(tmp_path / "x.html")]) == 2
    assert "no-such-run" in capsys.readouterr().err
    corrupt = tmp_path / "corrupt.json"
    doc = json.loads(COMPLEX.read_text(encoding="utf-8"))
    doc["run"]["question"] = "tampered"
    corrupt.write_text(json.dumps(doc), encoding="utf-8")
    assert report_main([str(corrupt), "-o", str(tmp_path / "x.html")]) == 2
    assert "checksum" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{oops", encoding="utf-8")
    assert report_main([str(tmp_path / "bad.json"), "-o", str(tmp_path / "x.html")]) == 2
    assert report_main([str(COMPLEX), "-o", str(tmp_path / "missing" / "x.html")]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()


def _svg_title(section: str) -> str:
    data = re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', section).group(1)
    svg = base64.b64decode(data).decode("utf-8")
    return re.search(r'font-size="12.00">([^<]+)</text>', svg).group(1)


def test_each_language_draws_every_position_in_its_own_words(complex_report):
    """The file works a position's marks and the steps out once for both languages: what is worded (the
    graph's title, the position line) must still be each language's own at every position."""
    data = data_of(complex_report)
    parts, sections = data["parts"], data["sections"]
    for lang, title, line in (("en", "RAG workflow", "4 steps · finished"), ("zh", "RAG 工作流", "4 步 · 已完成")):
        for pos in data["langs"][lang]["pos"]:
            shown = {name: parts[i] for name, i in zip(sections, pos, strict=True)}
            assert _svg_title(shown["graph"]) == title, lang
            assert line in re.sub(r"<[^>]+>", "", shown["head"]), (lang, shown["head"][:300])


POISON = "evil\x1b[2K\rok\u202e\n"


def _one_plain_line(text: str) -> bool:
    return not any(ch in text.rstrip("\n") for ch in "\x1b\r\u202e\n") and "\\x1b[2K\\rok\\u202e\\n" in text


def test_report_lines_print_outside_text_escaped(tmp_path, monkeypatch, capsys):
    """A run id and a file name holding ESC, CR, a bidi override and a newline are printed as escapes,
    on one line: they cannot erase the line or print a fake result."""
    monkeypatch.setenv("RAG_HISTORY_DB", str(tmp_path / "empty.db"))
    monkeypatch.delenv("RAG_HISTORY_URL", raising=False)
    assert report_main([POISON, "-o", str(tmp_path / "x.html")]) == 2
    assert _one_plain_line(capsys.readouterr().err)
    out = tmp_path / f"run{POISON}.html"
    assert report_main([str(COMPLEX), "-o", str(out)]) == 0
    assert out.exists() and _one_plain_line(capsys.readouterr().out)


def test_record_lines_print_outside_text_escaped(tmp_path, monkeypatch, capsys):
    import rag.runs.record_bundle as record
    from rag.errors import UserInputError

    monkeypatch.setattr(record, "record_bundle", lambda q, a: {"runs": [{"result": {"route": POISON}}]})
    assert record.main(["a question", "-o", str(tmp_path / "r.json")]) == 0
    assert _one_plain_line(capsys.readouterr().out)

    def refused(question, answers):
        raise UserInputError(f"cannot ask {question}")

    monkeypatch.setattr(record, "record_bundle", refused)
    assert record.main([POISON, "-o", str(tmp_path / "r.json")]) == 2
    assert _one_plain_line(capsys.readouterr().err)
