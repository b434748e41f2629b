"""The one place that writes HTML's basics (rag_debugger/debugger/html_page.py): outside text never becomes markup,
and every self-contained file gets the same head: its language, its Content-Security-Policy, an escaped title."""
from __future__ import annotations

import pytest

from rag_debugger.debugger.html_page import esc, html_lang, page


@pytest.mark.parametrize("value, shown", [
    (None, ""),
    ("", ""),
    ("plain", "plain"),
    ('<img src=x onerror="alert(1)">', "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"),
    ("it's & co", "it&#x27;s &amp; co"),
    (3, "3"),
    ("丹瑾", "丹瑾"),
])
def test_escaping_turns_outside_text_into_text(value, shown):
    assert esc(value) == shown


@pytest.mark.parametrize("lang, attribute", [("zh", "zh-CN"), ("en", "en"), ("fr", "en"), ("", "en")])
def test_the_page_language_is_one_of_the_two_the_files_are_written_in(lang, attribute):
    assert html_lang(lang) == attribute


def test_a_page_has_its_policy_before_anything_it_loads_and_an_escaped_title():
    out = page(title="</title><script>x()</script>", body="<p>b</p>", lang="zh", csp="default-src 'none'",
               style="p{color:red}")
    assert out.startswith('<!DOCTYPE html>\n<html lang="zh-CN"><head><meta charset="utf-8">'
                          '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'">')
    assert "<title>&lt;/title&gt;&lt;script&gt;x()&lt;/script&gt;</title>" in out
    assert out.index("Content-Security-Policy") < out.index("<style>p{color:red}</style>") < out.index("<p>b</p>")
    assert out.endswith("<body><p>b</p></body></html>\n")
    assert 'name="viewport"' in out
    assert 'name="viewport"' not in page(title="t", body="", lang="en", csp="x", viewport=False)
