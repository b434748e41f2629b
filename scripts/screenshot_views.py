"""Regenerate docs/screenshot_views.png: a finished answer run with its extractive answer and
citations, the grade as badges in the step's diff, and the timeline (the typed views).

    python scripts/screenshot_views.py [--lang zh]
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag.demo import load_demo_questions  # noqa: E402
from tests.support.browser import chromium_page, streamlit_server, wait_idle  # noqa: E402

#: Waits for the step the URL names (the inspector writes `?run=&step=`): the same in every language.
_AT_STEP = "(n) => new URLSearchParams(window.location.search).get('step') === String(n)"


def language() -> str:
    """`--lang zh` takes the Chinese picture (`docs/<name>_zh.png`); English by default."""
    return sys.argv[sys.argv.index("--lang") + 1] if "--lang" in sys.argv else "en"


def main() -> None:
    lang = language()
    wanted = "en_answer_temperature" if lang == "en" else "zh_answer_attribute"  # the reasons follow the question
    demo = next(d for d in load_demo_questions() if d.id == wanted)
    out = ROOT / "docs" / ("screenshot_views.png" if lang == "en" else f"screenshot_views_{lang}.png")
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1600, "height": 1000})
        page.goto(url + f"?lang={lang}")
        wait_idle(page)
        page.locator(f".st-key-demo_{demo.id} button").first.click()
        page.wait_for_function(_AT_STEP, arg=0, timeout=30_000)
        for n in (1, 2, 3):
            page.locator('button[data-action="step"]').first.click()
            page.wait_for_function(_AT_STEP, arg=n, timeout=30_000)
            wait_idle(page)
        page.locator(".rdi-answer").first.wait_for(timeout=30_000)
        page.locator(".rdi-result").first.evaluate("e => e.scrollIntoView({block: 'start'})")
        page.mouse.move(5, 5)
        page.wait_for_timeout(800)
        page.screenshot(path=str(out))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
