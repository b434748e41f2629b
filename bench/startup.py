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
with it, the ratios less (both sides of a ratio run in turns). Beside the wall times it prints the
server process's CPU time at the heading and at the first demo button, against the one-line app's at
its heading: what the start costs, which a busy machine stretches far less than wall time. `--app`
starts another checkout's app.py (the same benchmark on two versions).

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
from typing import Iterable, NamedTuple

from tests.support.browser import ROOT, SERVER_PROCESSES, chromium_page, streamlit_server, wait_idle

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


class Launch(NamedTuple):
    """One start: seconds from launch to the heading and to the first demo button (0 when not asked), and
    the server process's CPU seconds at those moments (what the start itself cost, which a busy machine
    stretches in wall time far more than in CPU time)."""

    heading: float
    ready: float
    heading_cpu: float
    ready_cpu: float


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a running process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _time_to_heading(script: Path, text: str, env: dict, *, demo: bool = False) -> Launch:
    """Launch → heading visible (and, with `demo`, → a demo button visible and enabled).
    The clock starts before the process is spawned."""
    start = time.perf_counter()
    checkout = script.parent.parent if script.parent.name == "bench" else script.parent
    with streamlit_server(script, env=env, poll_s=0.02, cwd=checkout) as url, chromium_page() as page:
        pid = SERVER_PROCESSES[url].pid
        page.goto(url)
        page.locator(HEADING, has_text=text).first.wait_for(timeout=60_000)
        heading, heading_cpu = time.perf_counter() - start, process_cpu_s(pid)
        if not demo:
            return Launch(heading, 0.0, heading_cpu, 0.0)
        page.wait_for_function(DEMO_BUTTON_READY, timeout=60_000, polling="raf")
        return Launch(heading, time.perf_counter() - start, heading_cpu, process_cpu_s(pid))


def measure_cold_start(rounds: int, app: Path = ROOT / "app.py") -> tuple[list[Launch], list[Launch]]:
    """Per round, in turns: the one-line app's start, the app's start (to its first demo button)."""
    hello: list[Launch] = []
    starts: list[Launch] = []
    with tempfile.TemporaryDirectory() as tmp:
        env = {"RAG_HISTORY_DB": str(Path(tmp) / "history.db")}
        for _ in range(rounds):
            hello.append(_time_to_heading(ROOT / "bench" / "hello_app.py", "Hello", env))
            starts.append(_time_to_heading(app, "Step debugger", env, demo=True))
    return hello, starts


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


def measure_first_click(rounds: int, app: Path = ROOT / "app.py") -> tuple[list[float], list[float]]:
    from rag.demo import load_demo_questions

    demo = next(d for d in load_demo_questions() if d.expected_route in SIMPLE_ROUTES)
    first: list[float] = []
    again: list[float] = []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as tmp, \
                streamlit_server(app, env={"RAG_HISTORY_DB": str(Path(tmp) / "h.db")}, cwd=app.parent) as url:
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
    parser.add_argument("--app", type=Path, default=ROOT / "app.py",
                        help="the app script to start (another checkout's app.py, to compare two versions)")
    args = parser.parse_args(argv)
    load_before = load_average()
    hello, starts = measure_cold_start(args.rounds, args.app)
    first, again = measure_first_click(args.rounds, args.app)
    h = statistics.median(x.heading for x in hello)
    a = statistics.median(x.heading for x in starts)
    i = statistics.median(x.ready for x in starts)
    hc = statistics.median(x.heading_cpu for x in hello)
    ac = statistics.median(x.heading_cpu for x in starts)
    ic = statistics.median(x.ready_cpu for x in starts)
    f, r = statistics.median(first), statistics.median(again)
    print(f"load average (1, 5, 15 min) before: {load_before}; after: {load_average()}")
    print(f"cold start, one-line app (bench/hello_app.py): median {h * 1000:.0f} ms over {len(hello)} starts "
          f"({_ms(x.heading for x in hello)}); server CPU {hc * 1000:.0f} ms")
    print(f"cold start, the app (debugger heading):       median {a * 1000:.0f} ms over {len(starts)} starts "
          f"({_ms(x.heading for x in starts)}); server CPU {ac * 1000:.0f} ms")
    print(f"time to interactive (first demo button):      median {i * 1000:.0f} ms over {len(starts)} starts "
          f"({_ms(x.ready for x in starts)}); server CPU {ic * 1000:.0f} ms")
    print(f"first demo's Continue to its end:             median {f * 1000:.0f} ms over {len(first)} servers "
          f"({_ms(first)})")
    print(f"the same Continue after Restart:              median {r * 1000:.0f} ms over {len(again)} servers "
          f"({_ms(again)})")
    print(f"server CPU to the heading vs the one-line app's: {ac / hc:.2f}; to the first demo button: {ic / hc:.2f}")
    print(f"cold_start_vs_hello: {a / h:.2f}")
    print(f"interactive_vs_hello: {i / h:.2f}")
    print(f"first_continue_vs_restart: {f / r:.2f}")
    return {"cold_start_vs_hello": a / h, "interactive_vs_hello": i / h, "first_continue_vs_restart": f / r,
            "cold_start_cpu_vs_hello": ac / hc, "interactive_cpu_vs_hello": ic / hc}


def _ms(values: Iterable[float]) -> str:
    return ", ".join(f"{v * 1000:.0f}" for v in values) + " ms"


if __name__ == "__main__":
    main()
