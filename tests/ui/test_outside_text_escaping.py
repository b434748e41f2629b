"""One way to show text that is not the app's own (ui/text.py): escaped markdown, and code spans that
no backtick or blank line in the text can break out of (hole 1 of the second review)."""
from __future__ import annotations

import pytest

from tests.support.markdown import live_markup
from ui.text import as_text, code_span, in_code

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

    graph_app("examples.chain:graph")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["graph"] = "a![](//attacker.example/g)"
    at.query_params["run"] = "graph-nope"
    at.switch_page("pages/your_graph.py").run()
    assert not at.exception
    shown = markdown_sources(at)
    assert any("attacker.example" in t for t in shown), "the bad value is quoted back"
    assert [t for t in shown if "attacker.example" in t and live_markup(t)] == []
