"""A real browser: two recorded runs (top_k 8 and 3) compared from Run history; the comparison names the
first divergence, its URL (`?compare=a,b`) reopens it after a reload."""
from __future__ import annotations

import os

from tests.support.browser import ROOT, chromium_page, streamlit_server, wait_shown

QUESTION = "What is the operating temperature range of the Lumen X2?"


def test_compare_two_runs_from_run_history():
    from rag.api import make_context
    from rag.runs.history import RunHistory
    from rag.runs.history_writes import run_recorded
    from rag.settings import RagSettings

    with RunHistory(os.environ["RAG_HISTORY_DB"]) as history:
        for top_k in (8, 3):
            settings = RagSettings(model_provider="offline", openai_api_key=None, top_k=top_k)
            run_recorded(history, QUESTION, ctx=make_context(settings=settings))
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.goto(url + "/history")
        wait_shown(page, ".st-key-history_compare button")
        page.locator(".st-key-history_compare button").first.click()
        wait_shown(page, '[data-testid="stApp"]', "first differ at step 2")
        assert "compare=" in page.url
        assert page.get_by_text("Different retrieved chunks.").count() == 1
        page.reload()
        wait_shown(page, '[data-testid="stApp"]', "first differ at step 2")
        assert not page.get_by_text("Traceback").count()
