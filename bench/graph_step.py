"""What a Step costs on Your graph: late in a long run vs early, and against the RAG debugger.

Two figures, each a ratio of medians measured in the same run, in a real browser (Debian's chromium,
Playwright) on `streamlit run app.py` on loopback, a click timed until the inspector's position line
shows the new step count (the graph, timeline, diff and position update together):

- `late_vs_early`: Step at steps 290-300 of a 300-step loop graph whose state grows every step (a
  reducer appends a line per step; `bench.compare.loop_graph`), vs Step at steps 3-12 of the same run.
  Goal ≤ 1.3: a Step must not cost more because the run is long (the marks, the timeline, the list diff).
- `your_graph_vs_rag`: Step on Your graph (the loop's early steps: a small node, a small state) vs Step
  on the RAG debugger at its first node (`classify_complexity` of a demo: a small rule, a small state),
  each click after a Restart. Goal ≤ 1.1: the generic page is as quick as the RAG one.

    python -m bench.graph_step [--early 10] [--rounds 2]
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

from bench.compare import loop_graph
from bench.ui_step import DEBUGGER_POSITION, DEBUGGER_RESTART, DEBUGGER_STEP, PAUSED_AT_START, STEP_TEXT, _timed_click
from rag.demo import load_demo_questions
from tests.support.browser import ROOT, chromium_page, streamlit_server, wait_idle

LIMIT = 300
graph = loop_graph(LIMIT)
"""The graph the page loads (`--graph bench.graph_step:graph`)."""


def _step(page, button, n: int, timed: bool) -> float:
    if timed:
        return _timed_click(page, button, DEBUGGER_POSITION, STEP_TEXT, f"{n} {STEP_TEXT}")
    button.click()
    page.wait_for_function(
        "([selector, expected]) => [...document.querySelectorAll(selector)].some(e => e.textContent.includes(expected))",
        arg=[DEBUGGER_POSITION, f"{n} {STEP_TEXT}"], timeout=30_000, polling="raf")
    return 0.0


def your_graph_steps(early: range, late: range) -> tuple[list[float], list[float]]:
    """(Step times at `early` steps, at `late` steps) of one live run of the loop graph."""
    with tempfile.TemporaryDirectory() as tmp:
        inp = Path(tmp) / "input.json"
        inp.write_text(json.dumps({"n": 0}), encoding="utf-8")
        with streamlit_server(ROOT / "app.py", env={"RAG_HISTORY_DB": str(Path(tmp) / "h.db")},
                              args=["--graph", "bench.graph_step:graph", "--input", str(inp)]) as url, \
                chromium_page() as page:
            page.goto(url)
            wait_idle(page)
            button = page.locator(DEBUGGER_STEP).first
            button.wait_for(timeout=60_000)
            a, b = [], []
            for n in range(1, max(late) + 1):
                took = _step(page, button, n, timed=n in early or n in late)
                if n in early:
                    a.append(took)
                elif n in late:
                    b.append(took)
            return a, b


def rag_first_steps(n: int) -> list[float]:
    """Step at the RAG debugger's first node, n times (a Restart, not timed, before each)."""
    demo = next(d for d in load_demo_questions() if d.expected_route == "complex")
    with tempfile.TemporaryDirectory() as tmp, \
            streamlit_server(ROOT / "app.py", env={"RAG_HISTORY_DB": str(Path(tmp) / "h.db")}) as url, \
            chromium_page() as page:
        page.goto(url)
        wait_idle(page)
        page.locator(f".st-key-demo_{demo.id} button").first.click()
        page.get_by_text(PAUSED_AT_START).first.wait_for(timeout=30_000)
        wait_idle(page)
        step = page.locator(DEBUGGER_STEP).first
        out = []
        for i in range(n + 1):
            if i:
                page.locator(DEBUGGER_RESTART).first.click()
                page.get_by_text(PAUSED_AT_START).first.wait_for(timeout=30_000)
                wait_idle(page)
            took = _timed_click(page, step, DEBUGGER_POSITION, STEP_TEXT, f"1 {STEP_TEXT}")
            if i:  # the first is a warm-up
                out.append(took)
        return out


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--early", type=int, default=10, help="how many steps are timed at each end")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    early, late = range(3, 3 + args.early), range(LIMIT - args.early, LIMIT)
    a: list[float] = []
    b: list[float] = []
    rag: list[float] = []
    for _ in range(args.rounds):
        x, y = your_graph_steps(early, late)
        a += x
        b += y
        rag += rag_first_steps(args.early)
    med = {name: statistics.median(v) * 1000 for name, v in (("early", a), ("late", b), ("rag", rag))}
    print(f"Your graph Step at steps {early.start}-{early.stop - 1}:     median {med['early']:.0f} ms ({len(a)} clicks)")
    print(f"Your graph Step at steps {late.start}-{late.stop - 1}: median {med['late']:.0f} ms ({len(b)} clicks)")
    print(f"RAG debugger Step at its first node: median {med['rag']:.0f} ms ({len(rag)} clicks)")
    out = {"late_vs_early": med["late"] / med["early"], "your_graph_vs_rag": med["early"] / med["rag"]}
    for name, value in out.items():
        print(f"{name}: {value:.2f}")
    return out


if __name__ == "__main__":
    main()
