"""Regenerate docs/screenshot.png: the debugger mid-run on the complex demo (parallel lanes), at a
projector's 1280x720, the graph laid out by graphviz-pure as after `pip install -r requirements.txt`.

    python scripts/screenshot.py [--lang zh]

The PNG is reduced to a 256-colour palette when Pillow is installed (a UI needs no more), which
keeps it small in the repository.
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
    demo = next(d for d in load_demo_questions() if d.id == "zh_complex_dimensions")
    lang = language()
    out = ROOT / "docs" / ("screenshot.png" if lang == "en" else f"screenshot_{lang}.png")
    out.parent.mkdir(exist_ok=True)
    with streamlit_server(ROOT / "app.py", env={"DEBUGGER_GRAPH_LAYOUT": "graphviz-pure"}) as url, \
            chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(url + f"?lang={lang}")
        wait_idle(page)
        page.locator(f".st-key-demo_{demo.id} button").first.click()
        page.wait_for_function(_AT_STEP, arg=0, timeout=30_000)
        for n in (1, 2, 3):
            page.locator('button[data-action="step"]').first.click()
            page.wait_for_function(_AT_STEP, arg=n, timeout=30_000)
            wait_idle(page)
        # the buttons at the top of the picture, the inspector below them
        page.locator(".rdi-controls").first.evaluate("e => e.scrollIntoView({block: 'start'})")
        page.mouse.move(5, 5)
        page.wait_for_timeout(800)
        page.screenshot(path=str(out))
    shrink(out)
    print(f"wrote {out} ({out.stat().st_size // 1024} KB)")


def shrink(path: Path) -> None:
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as image:
        small = image.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT)
    small.save(path, optimize=True)


if __name__ == "__main__":
    main()
