"""One way to show text that is not the app's own (rag_debugger/views/markdown_text.py): escaped markdown, and code spans that
no backtick or blank line in the text can break out of (hole 1 of the second review)."""
from __future__ import annotations

import pytest

from rag_debugger.views.markdown_text import as_text, code_span, in_code
from tests.support.markdown import live_markup

HOSTILE = [
    "![](//attacker.example/x)",
    "![x](http://127.0.0.1:9/x.png)",
    "[click](http://127.0.0.1:9/)",
    "[a][r]\n\n[r]: //attacker.example/x",
    "<img src=//attacker.example/x>",
    ":red[alarm] :material/warning: $x^2$",
    "x` ![](//attacker.example/x) `y",
    "a\n\n![](//attacker.example/x)",
    "`",
    "",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_the_detector_sees_the_attack_unescaped(text):
    """The test's own eyes: the attacks are live markup when pasted as they are (or inside backticks)."""
    if text.strip("`"):
        assert live_markup(text) or live_markup(f"`{text}`")


@pytest.mark.parametrize("text", HOSTILE)
def test_escaped_text_and_code_spans_stay_text(text):
    assert live_markup(as_text(text)) == []
    assert live_markup(f"prompt version {code_span(text)} · provider {as_text(text)}") == []
    assert live_markup(f"Run `{in_code(text)}` from an imported file") == []


def test_a_code_span_shows_the_text_exactly_on_one_line():
    assert code_span("retrieve") == "`retrieve`"
    assert code_span("a`b") == "``a`b``"
    assert code_span("`x") == "`` `x ``"
    assert code_span("a\n\nb") == "`a b`"
    assert in_code("a`b\nc") == "a\u02cbb c"


def test_a_malformed_run_link_is_quoted_as_text_in_the_flash_message(app_test):
    """`/?run=![](//host/x)` fits the length limit and needs no import: it made every viewer's browser fetch
    the URL through the flash message that quotes it."""
    from tests.ui.test_hardening_apptest import markdown_sources

    for key, value in (("run", "![](//attacker.example/x)"), ("step", "![](//attacker.example/y)")):
        at = app_test
        at.query_params.clear()
        at.query_params.update({"run": "![](//attacker.example/x)"} if key == "run"
                               else {"run": "run-1", "step": value})
        at.run()
        assert not at.exception
        shown = markdown_sources(at)
        assert any("attacker.example" in t for t in shown), "the bad value is quoted back"
        assert [t for t in shown if "attacker.example" in t and live_markup(t)] == []


def test_a_malformed_graph_link_is_quoted_as_text_on_your_graph(graph_app):
    from streamlit.testing.v1 import AppTest

    from tests.support.browser import ROOT
    from tests.ui.test_hardening_apptest import markdown_sources

    graph_app("rag_debugger.examples.chain:graph")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["graph"] = "a![](//attacker.example/g)"
    at.query_params["run"] = "graph-nope"
    at.switch_page("pages/your_graph.py").run()
    assert not at.exception
    shown = markdown_sources(at)
    assert any("attacker.example" in t for t in shown), "the bad value is quoted back"
    assert [t for t in shown if "attacker.example" in t and live_markup(t)] == []


def _poisoned_import(tmp_path, run_id: str, doc_fields: dict | None = None, **run_fields) -> str:
    """An imported run whose recorded fields say what an attacker wants (the file is re-sealed)."""
    import json

    from rag.runs.demo_pack import DEMO_RUNS_DIR
    from rag.runs.history import RunHistory
    from rag.runs.importing import import_run
    from rag.runs.run_document import checksum

    doc = json.loads((DEMO_RUNS_DIR / "02_en_answer_temperature.json").read_text("utf-8"))
    doc["run"] = {**doc["run"], "run_id": run_id, **run_fields}
    for key, value in (doc_fields or {}).items():
        if key == "route":
            doc["result"] = {**doc["result"], "route": value}
        else:
            doc[key] = value
    doc["sha256"] = checksum(doc)
    with RunHistory(tmp_path / "history.db") as history:  # the app test's own history (RAG_HISTORY_DB)
        return import_run(doc, history).run_id


def test_the_replay_banner_shows_an_imported_runs_provider_and_prompt_version_as_text(app_test, tmp_path):
    from tests.ui.test_hardening_apptest import markdown_sources

    run_id = _poisoned_import(tmp_path, "poisoned-banner", provider="![](//attacker.example/provider)",
                              prompt_version="v` ![](//attacker.example/version) `")
    at = app_test
    at.query_params["run"] = run_id
    at.switch_page("pages/debugger.py").run()
    assert not at.exception
    shown = markdown_sources(at)
    assert any("attacker.example/provider" in t and "attacker.example/version" in t for t in shown), shown
    assert [t for t in shown if "attacker.example" in t and live_markup(t)] == []


def test_compare_shows_recorded_routes_and_prompt_versions_as_text(app_test, tmp_path):
    from tests.ui.test_hardening_apptest import markdown_sources

    a = _poisoned_import(tmp_path, "poisoned-a", {"route": "x` ![](//attacker.example/route) `",
                                                  "prompt_version": "a` ![](//attacker.example/pa) `"})
    b = _poisoned_import(tmp_path, "poisoned-b", {"prompt_version": "![](//attacker.example/pb)"})
    at = app_test
    at.query_params["compare"] = f"{a},{b}"
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    shown = markdown_sources(at)
    assert any("attacker.example/pb" in t for t in shown) and any("attacker.example/route" in t for t in shown), shown
    assert [t for t in shown if "attacker.example" in t and live_markup(t)] == []
