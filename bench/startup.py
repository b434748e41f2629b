"""The first seconds a user sees, in a real browser, as ratios against baselines measured in the same run.

Three figures:

- **cold start**: from `streamlit run` being launched to the page's heading in Chromium, for the app
  (the debugger is its default page) against a one-line Streamlit app (`bench/hello_app.py`). Both
  start as new processes in turns (`--rounds`), so a drift in the machine's load hits both.
- **time to interactive**: in the same launches of the app, from launch to the first demo button
  visible and enabled (what a new user clicks first), against the one-line app's heading.
- **first click**: on a freshly started app, in its first browser session, the first demo question
  loaded with its button and then run with Continue to its end, against the same Continue after a
  Restart of that run (everything the run needs is loaded by then). The first pays for whatever the
  app loads lazily (the tokenizer's dictionary, the embedder, the compiled graph, the modules of the
  panels a finished run shows) unless it was warmed up after the first paint. Every click comes
  READING_PAUSE_S after the page has finished drawing: a person reads the page before clicking, and
  that pause is what the warm-up uses.

The machine's load average is printed with the figures: on a shared machine the absolute times move
with it, the ratios much less (both sides of a ratio run in turns).

    python -m bench.startup [--rounds 3]

Ends with `cold_start_vs_hello: X`, `interactive_vs_hello: Z` and `first_continue_vs_restart: Y`
(medians over the rounds).
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from tests.support.browser import ROOT, chromium_page, streamlit_server, wait_idle

HEADING = "h1"
DEBUGGER_POSITION = ".rdi-position"
DEBUGGER_CONTINUE = '.rdi-controls button[data-action="continue"]'
DEBUGGER_RESTART = '.rdi-controls button[data-action="restart"]'
FINISHED = "finished"
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


def _position_says(page, text: str) -> None:
    """Until the debugger's position line says `text` (polled every frame: this is the clock's stop)."""
    page.wait_for_function(
        "([sel, want]) => [...document.querySelectorAll(sel)].some(e => e.textContent.includes(want))",
        arg=[DEBUGGER_POSITION, text], timeout=60_000, polling="raf")


def _continue_to_end(page) -> float:
    """A reading pause, then Continue → the position line says the run finished."""
    wait_idle(page)
    time.sleep(READING_PAUSE_S)
    start = time.perf_counter()
    page.locator(DEBUGGER_CONTINUE).first.click()
    _position_says(page, FINISHED)
    elapsed = time.perf_counter() - start
    wait_idle(page)
    return elapsed


def _first_and_restarted_continue(url: str, demo_id: str) -> tuple[float, float]:
    """In a new browser session of a freshly started server: the demo's button, then Continue; then
    Restart and Continue again."""
    with chromium_page() as page:
        page.goto(url)
        wait_idle(page)
        time.sleep(READING_PAUSE_S)
        page.locator(f".st-key-demo_{demo_id} button").first.click()
        _position_says(page, PAUSED_AT_START)
        first = _continue_to_end(page)
        page.locator(DEBUGGER_RESTART).first.click()
        _position_says(page, PAUSED_AT_START)
        return first, _continue_to_end(page)


def measure_first_click(rounds: int) -> tuple[list[float], list[float]]:
    from rag.demo import load_demo_questions

    demo = next(d for d in load_demo_questions() if d.expected_route in SIMPLE_ROUTES)
    first: list[float] = []
    again: list[float] = []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as tmp, \
                streamlit_server(ROOT / "app.py", env={"RAG_HISTORY_DB": str(Path(tmp) / "h.db")}) as url:
            f, a = _first_and_restarted_continue(url, demo.id)
            first.append(f)
            again.append(a)
    return first, again


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def main(argv=None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    load_before = load_average()
    hello, app, interactive = measure_cold_start(args.rounds)
    first, again = measure_first_click(args.rounds)
    h, a, i = statistics.median(hello), statistics.median(app), statistics.median(interactive)
    f, r = statistics.median(first), statistics.median(again)
    print(f"load average (1, 5, 15 min) before: {load_before}; after: {load_average()}")
    print(f"cold start, one-line app (bench/hello_app.py): median {h * 1000:.0f} ms over {len(hello)} starts "
          f"({_ms(hello)})")
    print(f"cold start, the app (debugger heading):       median {a * 1000:.0f} ms over {len(app)} starts ({_ms(app)})")
    print(f"time to interactive (first demo button):      median {i * 1000:.0f} ms over {len(interactive)} starts "
          f"({_ms(interactive)})")
    print(f"first demo's Continue to its end:             median {f * 1000:.0f} ms over {len(first)} servers "
          f"({_ms(first)})")
    print(f"the same Continue after Restart:              median {r * 1000:.0f} ms over {len(again)} servers "
          f"({_ms(again)})")
    print(f"cold_start_vs_hello: {a / h:.2f}")
    print(f"interactive_vs_hello: {i / h:.2f}")
    print(f"first_continue_vs_restart: {f / r:.2f}")
    return {"cold_start_vs_hello": a / h, "interactive_vs_hello": i / h, "first_continue_vs_restart": f / r}


def _ms(values: list[float]) -> str:
    return ", ".join(f"{v * 1000:.0f}" for v in values) + " ms"


if __name__ == "__main__":
    main()
