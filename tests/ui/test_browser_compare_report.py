"""The comparison file opened from disk in Chromium with every request but its own blocked and counted:
no request, nothing executed, and the language and "all fields" switches work without a script."""
from __future__ import annotations

import json

from rag.runs.divergence import compare_sides, load_side
from rag.runs.record_bundle import record_bundle
from rag.settings import RagSettings
from rag_debugger.exports.compare_file import comparison_report
from tests.support.browser import chromium_page

QUESTION = "What is the operating temperature range of the Lumen X2? <img src=x onerror=\"window.__pwned=1\">"


def test_switches_work_from_disk_with_no_request(tmp_path):
    sides = []
    for name, top_k in (("a", 8), ("b", 3)):
        path = tmp_path / f"{name}.json"
        settings = RagSettings(model_provider="offline", openai_api_key=None, prompt_version=None, top_k=top_k)
        path.write_text(json.dumps(record_bundle(QUESTION, [], settings=settings)), encoding="utf-8")
        sides.append(load_side(str(path)))
    out = tmp_path / "compare.html"
    out.write_text(comparison_report(compare_sides(*sides), *sides, lang="en"), encoding="utf-8")
    with chromium_page() as page:
        asked = []

        def route(r):
            asked.append(r.request.url)
            r.continue_() if r.request.url == out.as_uri() else r.abort()

        page.context.route("**/*", route)
        page.goto(out.as_uri())
        visible = page.locator("main .v:visible")
        assert visible.count() == 1 and "first differ at step" in visible.inner_text()
        diff_steps = visible.locator("details").count()
        page.locator('label[for="all"]').click()
        assert page.locator("main .v:visible").count() == 1
        assert page.locator("main .v:visible details").count() > diff_steps  # the same steps are shown too
        page.locator('label[for="lang-zh"]').click()
        assert "最先在第" in page.locator("main .v:visible").inner_text()
        assert page.evaluate("window.__pwned") is None
        assert asked == [out.as_uri()]
