"""A run report opened from disk in Chromium with every network request blocked and counted: it makes no
request but its own file, time travel moves the graph and the diff (clicks and ← / →), the language switch
changes the words, and markup from a knowledge-base document shows as text with nothing executed."""
from __future__ import annotations

from pathlib import Path

from rag.runs.demo_pack import DEMO_RUNS_DIR
from rag_debugger.run_to_html import main as report_main
from tests.support.browser import chromium_page

DOC = ('# Zorblax widget\n\nThe Zorblax widget <img src=x onerror="window.__pwned=1"> weighs 3 kg. '
       '<script>window.__pwned=2</script> [click](javascript:window.__pwned=3) ![logo](https://example.com/x.png)\n')


def open_file(page, path: Path) -> list[str]:
    """Block everything but this file; return the list of URLs the page asked for."""
    asked: list[str] = []

    def route(r):
        asked.append(r.request.url)
        if r.request.url == path.as_uri():
            r.continue_()
        else:
            r.abort()

    page.context.route("**/*", route)
    failed: list[str] = []
    page.on("requestfailed", lambda req: failed.append(req.url))
    page.goto(path.as_uri())
    page.wait_for_function("document.body.dataset.position !== undefined")
    asked.extend(failed)
    return asked


def graph_src(page) -> str:
    return page.locator('[data-sec="graph"] img').first.get_attribute("src")


def test_time_travel_and_language_switch_from_disk_with_no_request(tmp_path):
    out = tmp_path / "run.html"
    assert report_main([str(DEMO_RUNS_DIR / "14_en_complex_two_products.json"), "-o", str(out)]) == 0
    with chromium_page() as page:
        asked = open_file(page, out)
        assert page.evaluate("document.body.dataset.position") == "4"  # opens at the end
        assert page.get_by_text("Extractive answer").count() == 1
        end_graph = graph_src(page)
        page.locator('tr[data-travel="0"]').click()
        assert page.evaluate("document.body.dataset.position") == "0"
        assert graph_src(page) != end_graph
        assert "classify_complexity" in page.locator('[data-sec="step"]').inner_text()
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        assert page.evaluate("document.body.dataset.position") == "2"
        assert page.locator('[data-sec="step"]').inner_text().count("rag_sub_agent") >= 1  # the Send lanes
        page.locator('button[data-lang="zh"]').click()
        assert "时间线" in page.locator('[data-sec="timeline"]').inner_text()
        assert page.evaluate("document.documentElement.lang") == "zh-CN"
        assert asked == [out.as_uri()]


def test_markup_in_a_document_is_shown_as_text_and_never_runs(tmp_path, monkeypatch):
    from rag.runs.record_bundle import main as record_main

    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "zorblax.md").write_text(DOC, encoding="utf-8")
    monkeypatch.setenv("RAG_KB_DIR", str(kb))
    monkeypatch.setenv("RAG_MODEL_PROVIDER", "offline")
    assert record_main(["How much does the Zorblax widget weigh?", "-o", str(tmp_path / "run.json")]) == 0
    out = tmp_path / "run.html"
    assert report_main([str(tmp_path / "run.json"), "-o", str(out)]) == 0
    with chromium_page() as page:
        asked = open_file(page, out)
        for row in range(page.locator("tr[data-travel]").count()):
            page.locator(f'tr[data-travel="{row}"]').click()
        page.locator('button[data-lang="en"]').click()
        for details in page.locator("details").all():
            details.evaluate("d => d.open = true")
        text = page.locator("body").inner_text()
        assert "<img src=x onerror" in text or "onerror=" in text
        assert page.evaluate("window.__pwned") is None
        assert asked == [out.as_uri()]
