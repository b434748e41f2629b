"""Time from clicking Step to the updated page, in a real browser, against Streamlit's own floor.

Each app runs alone with `streamlit run` on loopback, driven by Debian's chromium (Playwright);
the sides take turns (`--rounds`: floor, debugger, floor, debugger), so a drift in the machine's
load hits both. Every timed click starts after the same quiet time (SETTLE_S). The floor is
`bench/floor_app.py`: one button, one counter. The debugger steps the bundled complex demo
(parallel lanes included) on a fresh history file, restarting when a run ends (restarts are not
timed). A click is timed until the page shows the new count / step number (for the debugger, the
inspector's position line, drawn in the same update as the graph, timeline, diff and evidence).
Both buttons are found by one CSS selector each, so both sides pay the same for Playwright's lookup.

    python -m bench.ui_step [--steps 20] [--rounds 2] [--layout auto|graphviz-pure|dot|html]

`--layout` picks the debugger's graph layout program (rag_debugger/views/svg.py; `auto`: graphviz-pure, the
one `pip install -r requirements.txt` brings, else a system `dot`). The graph is laid out once per
compiled graph whichever it is, so a Step costs the same with each.

Ends with `step_vs_floor: X` (median debugger step / median floor click, all rounds).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from rag.demo import load_demo_questions
from rag_debugger.views.svg import LAYOUT_ENV, layout_programs
from tests.support.browser import ROOT, chromium_page, streamlit_server, wait_idle

STEP_TEXT = "steps ·"
FLOOR_TEXT = '[data-testid="stMarkdownContainer"]'
DEBUGGER_POSITION = ".rdi-position"
FLOOR_BUTTON = ".st-key-step button"  # Streamlit tags a widget with its key
DEBUGGER_STEP = 'button[data-action="step"]'  # the inspector's own controls (rag_debugger/views/debugger_controls.py)
DEBUGGER_RESTART = 'button[data-action="restart"]'
PAUSED_AT_START = "0 steps · paused before"
SETTLE_S = 0.3
"""Quiet time before every timed click, on both sides: a click that lands while the previous
update (or the other app) is still finishing its work measures that work, not the click."""


def _timed_click(page, button, selector: str, probe: str, expected: str) -> float:
    time.sleep(SETTLE_S)
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


class Floor:
    def __init__(self, page, url: str):
        self.page = page
        page.goto(url)
        wait_idle(page)
        self.button = page.locator(FLOOR_BUTTON).first
        self.clicks = 0
        self.click()  # warm-up

    def click(self) -> float:
        self.clicks += 1
        return _timed_click(self.page, self.button, FLOOR_TEXT, "clicks:", f"clicks: {self.clicks}")


class Debugger:
    def __init__(self, page, url: str):
        self.page = page
        demo = next(d for d in load_demo_questions() if d.expected_route == "complex")
        page.goto(url)
        wait_idle(page)
        page.locator(f".st-key-demo_{demo.id} button").first.click()
        page.get_by_text(PAUSED_AT_START).first.wait_for(timeout=30_000)
        wait_idle(page)
        self.step_button = page.locator(DEBUGGER_STEP).first
        self.steps = 0
        self.step()  # warm-up

    def step(self) -> float:
        if self.step_button.is_disabled():  # the run ended: start it again (not timed)
            self.page.locator(DEBUGGER_RESTART).first.click()
            self.page.get_by_text(PAUSED_AT_START).first.wait_for(timeout=30_000)
            wait_idle(self.page)
            self.steps = 0
        self.steps += 1
        return _timed_click(self.page, self.step_button, DEBUGGER_POSITION, STEP_TEXT, f"{self.steps} {STEP_TEXT}")


def measure_floor(n: int) -> list[float]:
    with streamlit_server(ROOT / "bench" / "floor_app.py") as url, chromium_page() as page:
        floor = Floor(page, url)
        return [floor.click() for _ in range(n)]


def measure_debugger(n: int, layout: str = "auto") -> list[float]:
    with tempfile.TemporaryDirectory() as tmp, \
            streamlit_server(ROOT / "app.py", env={"RAG_HISTORY_DB": str(Path(tmp) / "history.db"),
                                                   LAYOUT_ENV: layout}) as url, \
            chromium_page() as page:
        debugger = Debugger(page, url)
        return [debugger.step() for _ in range(n)]


def measure(n: int, rounds: int, layout: str = "auto") -> tuple[list[float], list[float]]:
    """(floor click times, debugger step times): `rounds` x (n floor clicks, then n Steps)."""
    floor: list[float] = []
    steps: list[float] = []
    for _ in range(rounds):
        floor += measure_floor(n)
        steps += measure_debugger(n, layout)
    return floor, steps


def layout_program(layout: str) -> str:
    """Which program the app will lay the graph out with, under this PATH and `layout`."""
    old = os.environ.get(LAYOUT_ENV)
    os.environ[LAYOUT_ENV] = layout
    try:
        layout_programs.cache_clear()
        programs = layout_programs()
    finally:
        if old is None:
            os.environ.pop(LAYOUT_ENV, None)
        else:
            os.environ[LAYOUT_ENV] = old
        layout_programs.cache_clear()
    return f"{programs[0][0]} ({programs[0][1]})" if programs else "none: an HTML list of the nodes"


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--layout", default="auto", choices=["auto", "graphviz-pure", "dot", "html"])
    args = parser.parse_args(argv)
    print(f"graph layout: {layout_program(args.layout)}; `dot` on PATH: {shutil.which('dot') or 'no'}")
    floor, debugger = measure(args.steps, args.rounds, args.layout)
    f, d = statistics.median(floor), statistics.median(debugger)
    print(f"floor (one-button Streamlit page): median {f * 1000:.0f} ms over {len(floor)} clicks")
    print(f"debugger Step (complex demo):      median {d * 1000:.0f} ms over {len(debugger)} steps")
    print(f"step_vs_floor: {d / f:.2f}")
    return d / f


if __name__ == "__main__":
    main()
