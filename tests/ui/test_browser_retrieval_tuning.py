"""A real browser on `streamlit run app.py`: the Evaluate page's retrieval sweep draws its chart
(recall@k against latency, the Pareto front in the legend), shows the command line, and "Use these
settings" applies the picked point to this browser session and says so (the overrides themselves are
checked under AppTest, tests/ui/test_retrieval_tuning_apptest.py)."""
from __future__ import annotations

import os
from pathlib import Path

from tests.support.browser import ROOT, chromium_page, settle, streamlit_server, wait_idle, wait_shown

SHOTS = Path(__file__).resolve().parent / "screenshots"


def test_a_sweep_is_plotted_and_a_point_applied_to_the_session(tmp_path):
    env = {**os.environ, "RAG_MODEL_PROVIDER": "offline", "RAG_DENSE_ENABLED": "false",
           "RAG_HISTORY_DB": str(tmp_path / "history.sqlite"), "RAG_CACHE_DIR": str(tmp_path / "cache")}
    SHOTS.mkdir(exist_ok=True)
    with streamlit_server(ROOT / "app.py", env=env) as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 900})
        page.goto(url + "/evaluate")
        wait_idle(page)
        page.get_by_text("Tune retrieval: where the right chunk was lost").first.click()
        wait_shown(page, ".st-key-retr_axes textarea")
        axes = page.locator(".st-key-retr_axes textarea")
        axes.fill("RAG_TOP_K=1,3\nRAG_RRF_K=60")
        axes.press("Control+Enter")
        settle(page)
        page.locator(".st-key-retr_sweep_run button").click()
        wait_shown(page, ".st-key-retr_chart canvas, .st-key-retr_chart svg", grace_ms=60_000)
        chart = page.locator(".st-key-retr_chart").first
        chart.scroll_into_view_if_needed()
        # vega drew the plot: its marks (canvas or svg) are taller than any icon in the container
        page.wait_for_function("() => [...document.querySelectorAll('.st-key-retr_chart canvas, "
                               ".st-key-retr_chart svg')].some(e => e.getBoundingClientRect().height > 100)",
                               timeout=60_000)
        assert page.get_by_text("--sweep RAG_TOP_K=1,3 --sweep RAG_RRF_K=60").first.is_visible()
        assert not page.get_by_text("Traceback").count()

        # the funnel per point is drawn too (below the plot): wait for it, so the layout no longer moves
        page.wait_for_function("() => [...document.querySelectorAll('.st-key-retr_funnel_chart canvas, "
                               ".st-key-retr_funnel_chart svg')].some(e => e.getBoundingClientRect().height > 60)",
                               timeout=60_000)
        settle(page)
        funnel = page.locator(".st-key-retr_funnel_chart").first
        funnel.scroll_into_view_if_needed()
        funnel.screenshot(path=str(SHOTS / "sweep_funnel.png"))
        page.locator(".st-key-retr_pick").scroll_into_view_if_needed()
        page.locator(".st-key-retr_pick").click()
        page.get_by_role("option", name="2: RAG_TOP_K=3 RAG_RRF_K=60").click()
        settle(page)
        page.locator(".st-key-retr_use button").click()
        settle(page)
        page.get_by_text("This session's debugger now uses: RAG_TOP_K=3, RAG_RRF_K=60").first.wait_for(timeout=30_000)
