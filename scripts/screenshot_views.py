"""Regenerate docs/screenshot_views.png: a finished answer run with its extractive answer and
citations, the grade as badges in the step's diff, and the timeline (the typed views).

    python scripts/screenshot_views.py
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag.demo import load_demo_questions  # noqa: E402
from tests.support.browser import chromium_page, streamlit_server, wait_idle  # noqa: E402


def main() -> None:
    demo = next(d for d in load_demo_questions() if d.id == "en_answer_temperature")
    out = ROOT / "docs" / "screenshot_views.png"
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1600, "height": 1000})
        page.goto(url)
        wait_idle(page)
        page.locator(f".st-key-demo_{demo.id} button").first.click()
        page.get_by_text("0 steps · paused before").first.wait_for(timeout=30_000)
        for n in (1, 2, 3):
            page.locator('button[data-action="step"]').first.click()
            page.get_by_text(f"{n} steps ·").first.wait_for(timeout=30_000)
            wait_idle(page)
        page.locator(".rdi-answer").first.wait_for(timeout=30_000)
        page.locator(".rdi-result").first.evaluate("e => e.scrollIntoView({block: 'start'})")
        page.mouse.move(5, 5)
        page.wait_for_timeout(800)
        page.screenshot(path=str(out))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
