"""The first seconds a user sees, in a real browser, as ratios against baselines measured in the same run.

Three figures:

- **cold start**: from `streamlit run` being launched to the page's heading in Chromium, for the app
  (the debugger is its default page) against a one-line Streamlit app (`bench/hello_app.py`). Both
  start as new processes in turns (`--rounds`), so a drift in the machine's load hits both.
- **time to interactive**: in the same launches of the app, from launch to the first demo button
  visible and enabled (what a new user clicks first), against the one-line app's heading.
- **first click**: on a freshly started app, the first demo question from its button to the evidence
  (the demo click, then Step until retrieval has run), against the same for a second demo question
  in a new browser session of the same server. The first pays for whatever the app loads lazily
  (the tokenizer's dictionary, the embedder, the compiled graph) unless it was warmed up after the
  first paint. Both clicks come READING_PAUSE_S after the page has finished drawing: a person reads
  the page before clicking, and that pause is what the warm-up uses.

    python -m bench.startup [--rounds 3]

Ends with `cold_start_vs_hello: X`, `interactive_vs_hello: Z` and `first_vs_second_click: Y`
(medians over the rounds).
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from tests.support.browser import ROOT, chromium_page, streamlit_server, wait_idle

HEADING = "h1"
DEBUGGER_POSITION = ".rdi-position"
DEBUGGER_STEP = 'button[data-action="step"]'
PAUSED_AT_START = "0 steps · paused before"
SIMPLE_ROUTES = ("answer",)
READING_PAUSE_S = 2.0
DEMO_BUTTON_READY = """() => [...document.querySelectorAll('[class*="st-key-demo_"] button')].some(
  b => !b.disabled && b.getClientRects().length > 0)"""


def _time_to_heading(script: Path, text: str, env: dict, *, demo: bool = False) -> tuple[float, float]:
    """Launch → heading visible (and, with `demo`, → a demo button visible and enabled; else 0).
    The clock starts before the process is spawned."""
    start = time.perf_counter()
    with streamlit_server(script, env=env, poll_s=0.02) as url, chromium_page() as page:
        page.goto(url)
        page.locator(HEADING, has_text=text).first.wait_for(timeout=60_000)
        heading = time.perf_counter() - start
        if not demo:
            return heading, 0.0
        page.wait_for_function(DEMO_BUTTON_READY, timeout=60_000, polling="raf")
        return heading, time.perf_counter() - start


def measure_cold_start(rounds: int) -> tuple[list[float], list[float], list[float]]:
    """Per round: the one-line app's heading, the app's heading, the app's first demo button."""
    hello: list[float] = []
    app: list[float] = []
    interactive: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {"RAG_HISTORY_DB": str(Path(tmp) / "history.db")}
        for _ in range(rounds):
            hello.append(_time_to_heading(ROOT / "bench" / "hello_app.py", "Hello", env)[0])
            heading, ready = _time_to_heading(ROOT / "app.py", "Step debugger", env, demo=True)
            app.append(heading)
            interactive.append(ready)
    return hello, app, interactive


def _to_evidence(page, url: str, demo_id: str) -> float:
    """Demo button → paused → Step → Step (classification, then the first retrieval)."""
    page.goto(url)
    wait_idle(page)
    button = page.locator(f".st-key-demo_{demo_id} button").first
    button.wait_for(timeout=60_000)
    time.sleep(READING_PAUSE_S)
    start = time.perf_counter()
    button.click()
    page.get_by_text(PAUSED_AT_START).first.wait_for(timeout=60_000)
    step = page.locator(DEBUGGER_STEP).first
    for n in (1, 2):
        step.click()
        page.wait_for_function(
            "([sel, want]) => [...document.querySelectorAll(sel)].some(e => e.textContent.includes(want))",
            arg=[DEBUGGER_POSITION, f"{n} step"], timeout=60_000, polling="raf")
    elapsed = time.perf_counter() - start
    wait_idle(page)
    return elapsed


def measure_first_click(rounds: int) -> tuple[list[float], list[float]]:
    from rag.demo import load_demo_questions

    simple = [d for d in load_demo_questions() if d.expected_route in SIMPLE_ROUTES]
    first_demo, second_demo = simple[0], simple[1]
    first: list[float] = []
    second: list[float] = []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as tmp, \
                streamlit_server(ROOT / "app.py", env={"RAG_HISTORY_DB": str(Path(tmp) / "h.db")}) as url:
            with chromium_page() as page:
                first.append(_to_evidence(page, url, first_demo.id))
            with chromium_page() as page:
                second.append(_to_evidence(page, url, second_demo.id))
    return first, second


def main(argv=None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    hello, app, interactive = measure_cold_start(args.rounds)
    first, second = measure_first_click(args.rounds)
    h, a, i = statistics.median(hello), statistics.median(app), statistics.median(interactive)
    f, s = statistics.median(first), statistics.median(second)
    print(f"cold start, one-line app (bench/hello_app.py): median {h * 1000:.0f} ms over {len(hello)} starts")
    print(f"cold start, the app (debugger heading):       median {a * 1000:.0f} ms over {len(app)} starts")
    print(f"time to interactive (first demo button):      median {i * 1000:.0f} ms over {len(interactive)} starts")
    print(f"first demo question to evidence:              median {f * 1000:.0f} ms over {len(first)} runs")
    print(f"second demo question to evidence:             median {s * 1000:.0f} ms over {len(second)} runs")
    print(f"cold_start_vs_hello: {a / h:.2f}")
    print(f"interactive_vs_hello: {i / h:.2f}")
    print(f"first_vs_second_click: {f / s:.2f}")
    return {"cold_start_vs_hello": a / h, "interactive_vs_hello": i / h, "first_vs_second_click": f / s}


if __name__ == "__main__":
    main()
