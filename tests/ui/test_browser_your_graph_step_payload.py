"""A real browser on the Your graph page: a Step sends what it changes and not the panels it cannot change
(the breakpoint picker, the export panel: outside the workbench fragment, as on the RAG debugger), and the
export panel's files, built only when clicked, hold the run as it is at the click, not as it was when the
panel was drawn."""
from __future__ import annotations

import json

from tests.support.browser import ROOT, chromium_page, press_control, settle, streamlit_server, wait_idle

BREAKPOINTS = b"Breakpoints: none"
EXPORT_PANEL = b"Export or replay a run"


def _step(page, frames: list, n: int) -> bytes:
    frames.clear()
    press_control(page, "step")
    page.get_by_text(f"{n} step ·" if n == 1 else f"{n} steps ·").first.wait_for(timeout=30_000)
    settle(page)
    return b"".join(frames)


def test_a_step_leaves_the_breakpoints_and_the_export_panel_alone_and_the_export_is_the_run_at_the_click(tmp_path):
    frames: list[bytes] = []
    env = {"RAG_HISTORY_DB": str(tmp_path / "h.db")}
    with streamlit_server(ROOT / "app.py", env=env, args=["--graph", "rag_debugger.examples.chain:graph"]) as url, \
            chromium_page() as page:
        page.on("websocket", lambda ws: ws.on(
            "framereceived", lambda f: frames.append(f if isinstance(f, bytes) else f.encode())))
        page.goto(url, wait_until="domcontentloaded")
        wait_idle(page)
        page.get_by_text("No run yet").first.wait_for(timeout=30_000)
        _step(page, frames, 1)  # the first Step folds the input form: the whole page reruns once
        page.get_by_text("Export or replay a run").first.click()
        settle(page)
        page.get_by_text("Download this run (JSON)").first.wait_for(timeout=15_000)

        sent = _step(page, frames, 2)
        assert b"2 steps" in sent  # the position line came with the Step
        assert BREAKPOINTS not in sent and EXPORT_PANEL not in sent
        assert page.get_by_text("Breakpoints: none").count()  # still on the page
        assert not page.get_by_text("Traceback").count()

        with page.expect_download() as download:
            page.get_by_text("Download this run (JSON)").first.click()
        exported = json.loads(open(download.value.path(), encoding="utf-8").read())
        # the input, then one checkpoint per step: written at the click, after the panel was drawn at step 1
        assert len(exported["checkpoints"]) == 4
        assert exported["checkpoints"][-1]["values"]["log"] == ["clean", "count"]
