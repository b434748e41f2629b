"""Time from clicking Step to the updated page, in a real browser, against Streamlit's own floor.

Both apps run with `streamlit run` on loopback and are driven by Debian's chromium (Playwright).
The debugger steps the bundled complex demo (parallel lanes included), restarting when a run ends
(restarts are not timed). The floor is `bench/floor_app.py`: one button, one counter. A click is
timed until the page shows the new step / count.

    python -m bench.ui_step [--steps 20]

Ends with `step_vs_floor: X` (median debugger step / median floor click).
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from rag.demo import load_demo_questions
from tests.support.browser import ROOT, chromium_page, streamlit_server, wait_idle

STEP_TEXT = "steps ·"


FLOOR_TEXT = '[data-testid="stMarkdownContainer"]'
DEBUGGER_POSITION = ".rdi-position"


def _timed_click(page, button, selector: str, probe: str, expected: str) -> float:
    start = time.perf_counter()
    button.click()
    page.wait_for_function(
        "([selector, probe, expected]) => [...document.querySelectorAll(selector)]"
        ".some(e => e.textContent.includes(probe) && e.textContent.includes(expected))",
        arg=[selector, probe, expected], timeout=30_000, polling="raf",
    )
    elapsed = time.perf_counter() - start
    wait_idle(page)
    return elapsed


def measure_floor(n: int) -> list[float]:
    times = []
    with streamlit_server(ROOT / "bench" / "floor_app.py") as url, chromium_page() as page:
        page.goto(url)
        wait_idle(page)
        button = page.locator(".st-key-step button").first
        _timed_click(page, button, FLOOR_TEXT, "clicks:", "clicks: 1")  # warm-up
        for i in range(2, n + 2):
            times.append(_timed_click(page, button, FLOOR_TEXT, "clicks:", f"clicks: {i}"))
    return times


def measure_debugger(n: int) -> list[float]:
    demo = next(d for d in load_demo_questions() if d.expected_route == "complex")
    times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, \
            streamlit_server(ROOT / "app.py", env={"RAG_HISTORY_DB": str(Path(tmp) / "history.db")}) as url, \
            chromium_page() as page:
        page.goto(url)
        wait_idle(page)
        page.locator(f".st-key-demo_{demo.id} button").first.click()
        page.get_by_text("0 steps · paused before").first.wait_for(timeout=30_000)
        wait_idle(page)
        step = page.locator(".st-key-step button").first
        done_steps = 0
        warm = True
        while len(times) < n:
            if step.is_disabled():
                page.get_by_role("button", name="↺ Restart").click()
                page.get_by_text("0 steps · paused before").first.wait_for(timeout=30_000)
                wait_idle(page)
                done_steps = 0
                continue
            done_steps += 1
            elapsed = _timed_click(page, step, DEBUGGER_POSITION, STEP_TEXT, f"{done_steps} {STEP_TEXT}")
            if warm:
                warm = False
                continue
            times.append(elapsed)
    return times


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args(argv)
    floor = measure_floor(args.steps)
    debugger = measure_debugger(args.steps)
    f, d = statistics.median(floor), statistics.median(debugger)
    print(f"floor (one-button Streamlit page): median {f * 1000:.0f} ms over {len(floor)} clicks")
    print(f"debugger Step (complex demo):      median {d * 1000:.0f} ms over {len(debugger)} steps")
    print(f"step_vs_floor: {d / f:.2f}")
    return d / f


if __name__ == "__main__":
    main()
