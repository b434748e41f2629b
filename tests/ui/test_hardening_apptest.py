"""The app under AppTest against what an adversarial review tried: credentials inside OPENAI_BASE_URL,
and a damaged history file."""
from __future__ import annotations

import re

from tests.ui.test_settings_trace_apptest import all_text, button

PASSWORD = "PASSW0RD-9f3e71"
QUERY_KEY = "QUERYSECRET-77a1c0"
RAW_URL = f"http://alice:{PASSWORD}@127.0.0.1:9/v1?api-key={QUERY_KEY}&api-version=2024-06-01"


def test_the_settings_page_never_shows_credentials_from_the_base_url(app_test, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", RAW_URL)
    at = app_test.run()
    at.switch_page("pages/settings.py").run()
    assert not at.exception
    shown = all_text(at)
    assert PASSWORD not in shown and QUERY_KEY not in shown and "alice" not in shown
    assert at.text_input(key="set_base_url").value == "http://127.0.0.1:9/v1?api-key=***&api-version=2024-06-01"
    # Saving without touching the field keeps the real URL (the field only hides its credentials).
    button(at, "Save model settings").click().run()
    assert at.session_state["settings_overrides"]["openai_base_url"] == RAW_URL
    assert PASSWORD not in all_text(at)


def test_a_damaged_history_file_leaves_the_debugger_working_with_one_notice(app_test, tmp_path, monkeypatch, caplog):
    from tests.runs.test_hardening import _damage, damaged_history_file
    from tests.support.apptest import inspector_text, press

    path = damaged_history_file(tmp_path / "damaged.db")
    _damage(path)
    monkeypatch.setenv("RAG_HISTORY_DB", str(path))
    with caplog.at_level("WARNING"):
        at = app_test.run()
        at.switch_page("pages/debugger.py").run()
        at.text_area(key="question").set_value("丹瑾是什么属性？").run()
        press(at, "run")
    assert not at.exception
    assert "Result: answer" in inspector_text(at)  # debugged, in memory
    notices = [w.body for w in at.sidebar.warning]
    assert len(notices) == 1 and "Run history off" in notices[0] and "damaged.db" in notices[0]
    assert not [e.body for e in at.error], "no error per run: the one notice is enough"
    causes = [r for r in caplog.records if r.name == "rag_debugger.history"]
    assert len(causes) == 1 and "integrity check" in causes[0].getMessage()  # logged once, with the cause

    at.switch_page("pages/history.py").run()
    assert not at.exception
    assert any("damaged.db" in e.body and "damaged or unreadable" in e.body for e in at.error)
    assert any("Move the file aside" in i.body for i in at.info)


def test_the_history_page_calls_the_export_check_an_integrity_check(app_test):
    at = app_test.run()
    at.switch_page("pages/history.py").run()
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "integrity check against accidents" in captions and "not a signature" in captions
    assert "Up to 50 MB" in captions


#: Markdown that would make the browser fetch a URL, restyle the page or run LaTeX if it were rendered.
HOSTILE = "![x](http://127.0.0.1:9/x.png) :red[alarm] $x^2$ **bold** [link](http://127.0.0.1:9/) Nova battery?"


def markdown_sources(at) -> list[str]:
    """The text of every element whose text Streamlit renders as markdown."""
    out = [m.value for m in at.markdown] + [c.value for c in at.caption]
    out += [a.value for kind in ("info", "warning", "error", "success") for a in getattr(at, kind)]
    out += [b.label for b in at.button] + [e.label for e in at.expander]
    out += [str(v) for t in at.table for v in t.value.to_numpy().ravel()]
    return out


#: The hostile question's markup where it is still live (not backslash-escaped) in a markdown source.
_LIVE = re.compile(r"(?<!\\)!\[x|(?<!\\)\]\(http|(?<!\\):red\[|(?<!\\)\*\*bold|(?<!\\)\$x\^2")


def raw_markup(texts: list[str]) -> list[str]:
    return [t for t in texts if _LIVE.search(t)]


def test_questions_and_recorded_text_are_shown_as_text_not_markup(app_test):
    at = app_test.run()
    at.switch_page("pages/debugger.py").run()
    at.text_area(key="question").set_value(HOSTILE).run()
    from tests.support.apptest import press

    press(at, "run")
    assert not at.exception
    assert raw_markup(markdown_sources(at)) == []

    at.switch_page("pages/trace.py").run()
    assert not at.exception
    shown = markdown_sources(at)
    assert any("Question:" in t for t in shown) and raw_markup(shown) == []

    at.switch_page("pages/history.py").run()
    assert not at.exception
    shown = markdown_sources(at)
    assert any("Nova battery" in t for t in shown), "the recorded question is on the page"
    assert raw_markup(shown) == []


def test_as_text_escapes_markup_and_leaves_plain_sentences_alone():
    from rag_debugger.views.markdown_text import as_text

    plain = ["run.json was not imported: the file is not valid JSON (line 1)", "scope_select", "1+1",
             "Nova 的电池续航是多少？", "http://127.0.0.1:9/v1"]
    assert [as_text(t) for t in plain] == plain
    assert as_text("![x](u)") == "!\\[x\\](u)" and as_text("[offline rules]") == "\\[offline rules\\]"
    assert as_text(":red[a] :tada: $x$ **b** `c` <b>") == "\\:red\\[a\\] \\:tada: \\$x\\$ \\*\\*b\\*\\* \\`c\\` \\<b>"
    assert as_text("# h\n- item\n12. one\n> q") == "\\# h\n\\- item\n12\\. one\n\\> q"
    assert as_text(None) == "" and as_text("_x_") == "\\_x\\_"
