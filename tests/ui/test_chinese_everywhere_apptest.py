"""Every page, opened in Chinese, shows no English UI text (AppTest: the Streamlit elements; the
browser tests cover the inspector's HTML). Data stays as it is: questions, file names, node and field names."""
from __future__ import annotations

import re

import pytest

from rag import i18n
from rag_debugger.ui.navigation import PAGES
from tests.support.i18n import english_controls, english_phrases

#: Words of Streamlit's own widgets or of the data these pages show, not UI strings of ours.
ALLOWED: tuple[str, ...] = ()
#: Three English words in a row: a sentence nobody wrapped for translation (the catalogue cannot know it).
_ENGLISH_RUN = re.compile(r"[A-Za-z][A-Za-z'-]*(?:[ ,]+[A-Za-z][A-Za-z'-]*){2,}")


def _unwrapped_english(texts: list[str]) -> list[str]:
    """Runs of English words in the page's texts, except the demo questions (data) and code spans."""
    from rag.demo import load_demo_questions

    demos = load_demo_questions()
    with i18n.use_language("zh"):  # what the Chinese labels quote from their question on purpose
        questions = " ".join([d.question for d in demos] + [d.display_label for d in demos])
    found = set()
    for text in texts:
        for run in _ENGLISH_RUN.findall(re.sub(r"`[^`]*`", " ", text)):
            if run not in questions:
                found.add(run)
    return sorted(found)


def _texts(node, out: dict[str, list[str]]) -> None:
    proto = getattr(node, "proto", None)
    if proto is not None:
        for field in ("label", "help", "placeholder"):
            value = getattr(proto, field, None)
            if isinstance(value, str) and value.strip():
                out["controls"].append(value)
        for field in ("body", "value"):
            value = getattr(proto, field, None)
            if isinstance(value, str) and value.strip() and node.type in (
                    "markdown", "caption", "title", "header", "subheader", "alert", "error", "warning", "info",
                    "success", "text", "exception"):
                out["text"].append(value)
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            _texts(child, out)


@pytest.mark.parametrize("page", [p.path for p in PAGES])
def test_a_page_in_chinese_shows_no_english_ui_text(app_test, env, page):
    i18n.forget_missing_keys()
    at = app_test
    at.query_params["lang"] = "zh"
    at.switch_page(page).run()
    assert not at.exception
    found: dict[str, list[str]] = {"controls": [], "text": []}
    _texts(at._tree, found)
    assert english_controls(found["controls"]) == []
    assert english_phrases("\n".join(found["text"] + found["controls"]), allowed=ALLOWED) == []
    assert _unwrapped_english(found["text"] + found["controls"]) == []
    assert sorted(m for lang, m in i18n.missing_keys() if lang == "zh") == []
