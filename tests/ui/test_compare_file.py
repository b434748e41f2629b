"""A comparison of two runs as one HTML file: it says what the Compare page says (the same blocks),
in both languages and both views, escapes every text from the runs, and allows no script and no fetch."""
from __future__ import annotations

import json
import re

import pytest

from rag.runs.divergence import compare_sides, load_side
from rag.runs.record_bundle import record_bundle
from rag.settings import RagSettings
from rag_debugger.exports.compare_file import CSP, comparison_report
from rag_debugger.views.compare_content import CAUSES, comparison_blocks

HOSTILE = 'What is the operating temperature range of the Lumen X2? <script>window.__pwned=1</script> ![x](https://example.com/x.png)'


def offline(**overrides) -> RagSettings:
    return RagSettings(model_provider="offline", openai_api_key=None, prompt_version=None, **overrides)


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cmp")
    out = []
    for name, settings in (("a", offline()), ("b", offline(top_k=3))):
        path = folder / f"{name}.json"
        path.write_text(json.dumps(record_bundle(HOSTILE, [], settings=settings)), encoding="utf-8")
        out.append(load_side(str(path)))
    return out[0], out[1], compare_sides(out[0], out[1])


def test_the_file_says_what_the_page_says_in_both_languages_and_views(sides):
    a, b, rc = sides
    page = comparison_report(rc, a, b, lang="en")
    first = rc.comparison.first
    assert f"The runs first differ at step {first.step} (<code>{first.node}</code>)" in page
    assert CAUSES[rc.cause] in page and "top_k" in page
    assert page.count('class="v v-') == 4  # en/zh x what differs/all fields
    assert 'id="lang-en" hidden checked' in page
    assert "两次运行最先在第" in page  # the Chinese view is in it too
    opened_zh = comparison_report(rc, a, b, lang="zh")
    assert 'id="lang-zh" hidden checked' in opened_zh and 'lang="zh-CN"' in opened_zh
    same_steps = [blk for blk in comparison_blocks(rc, a, b, show_all=True) if blk.kind == "fold" and blk.only_all]
    assert same_steps and all(blk.text in page for blk in same_steps)  # "all fields" shows the same steps too


def test_the_file_has_no_script_no_fetch_and_escapes_the_runs_text(sides):
    a, b, rc = sides
    page = comparison_report(rc, a, b)
    assert f'content="{CSP}"' in page and "default-src 'none'" in CSP and "script-src" not in CSP
    assert "<script" not in page.lower()
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in page
    assert not re.search(r"<img[^>]+https?://", page) and "javascript:" not in page
