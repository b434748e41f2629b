"""What a run as one HTML file costs (rag_debugger/exports/run_file.py), each figure against a baseline in the same run.

- `complex_demo_kb`: the size of the complex fan-out demo's file (goal ≤ 1,024 KB).
- `open_vs_empty`: open the file from disk in Debian's Chromium until it is drawn (load, then one
  animation frame), vs an empty HTML page the same way (goal ≤ 1.5).
- `travel_file_vs_app`: a time-travel click (a timeline row) in the file until its diff shows, vs the
  same click in the app on the same run (goal ≤ 0.5).
- `write_300_vs_10`: write the file for a 300-step Your-graph run vs for a 10-step run of the same graph,
  their steps' diffs already worked out (goal ≤ 10); the first write of a run, which diffs every step,
  is printed beside it.

    python -m bench.report [--repeat 9]
"""
from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
import time
from functools import partial
from pathlib import Path

from rag.runs.demo_pack import DEMO_RUNS_DIR

COMPLEX = DEMO_RUNS_DIR / "14_en_complex_two_products.json"
EMPTY = '<!DOCTYPE html><html><head><meta charset="utf-8"><title>empty</title></head><body></body></html>\n'
DRAWN = "() => new Promise(r => requestAnimationFrame(() => r(true)))"


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def write_complex(folder: Path) -> Path:
    from rag_debugger.run_to_html import main as report_main

    out = folder / "complex.html"
    assert report_main([str(COMPLEX), "-o", str(out)]) == 0
    return out


def open_figure(report: Path, folder: Path, repeat: int) -> float:
    from tests.support.browser import chromium_page

    empty = folder / "empty.html"
    empty.write_text(EMPTY, encoding="utf-8")

    def load(page, path: Path) -> float:
        start = time.perf_counter()
        page.goto(path.as_uri(), wait_until="load")
        page.evaluate(DRAWN)
        return time.perf_counter() - start

    with chromium_page() as page:
        load(page, empty), load(page, report)  # warm
        a, b = [], []
        for _ in range(repeat):
            a.append(load(page, empty))
            b.append(load(page, report))
    print(f"open an empty page:               {median_ms(a):.1f} ms")
    print(f"open the complex demo's file:     {median_ms(b):.1f} ms")
    return statistics.median(b) / statistics.median(a)


def travel_in_file(report: Path, repeat: int) -> float:
    from tests.support.browser import chromium_page

    samples = []
    with chromium_page() as page:
        page.goto(report.as_uri(), wait_until="load")
        for i in range(repeat + 1):
            row = i % 2
            time.sleep(0.1)
            start = time.perf_counter()
            page.locator(f'tr[data-travel="{row}"]').click()
            page.wait_for_function(f"document.body.dataset.position === '{row}'", polling="raf")
            page.evaluate(DRAWN)
            if i:
                samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def travel_in_app(repeat: int) -> float:
    from tests.support.browser import ROOT, chromium_page, open_demo, streamlit_server, wait_idle

    samples = []
    with tempfile.TemporaryDirectory() as tmp, \
            streamlit_server(ROOT / "app.py", env={"RAG_HISTORY_DB": str(Path(tmp) / "h.db")}) as url, \
            chromium_page() as page:
        open_demo(page, url, "en_complex_two_products")
        page.locator('button[data-action="continue"]').first.click()
        page.get_by_text("finished").first.wait_for(timeout=60_000)
        wait_idle(page)
        for i in range(repeat + 1):
            row = i % 2
            time.sleep(0.3)
            start = time.perf_counter()
            page.locator(f'tr[data-travel="{row}"]').first.click()
            page.get_by_text(f"Viewing the state after step {row + 1} ").first.wait_for(timeout=30_000)
            if i:
                samples.append(time.perf_counter() - start)
            wait_idle(page)
    return statistics.median(samples)


def write_figure(repeat: int) -> float:
    """The writer's own cost: each run's step diffs are worked out before the timing (the debugger works
    them out as it shows them, and they are kept with the step). The first write of a run nobody looked at
    also diffs every step; that figure is printed beside it."""
    from bench.compare import loop_graph
    from rag_debugger.debugger.session import GraphSession
    from rag_debugger.exports.run_file import graph_report

    def session(steps: int):
        s = GraphSession(spec="bench.compare:loop_graph", graph=loop_graph(steps))
        s.start({"n": 0})
        while not s.done:  # run_to_end stops every 200 steps
            s.run_to_end()
        assert len(s.all_steps()) == steps
        return s

    graph_report(session(10))  # warm: the graph's layout, the catalogue
    first = {n: [_timed(partial(graph_report, session(n))) for _ in range(3)] for n in (10, 300)}
    short, long = session(10), session(300)
    graph_report(short), graph_report(long)  # the steps' diffs
    a = [_timed(lambda: graph_report(short)) for _ in range(max(3, repeat // 2))]
    b = [_timed(lambda: graph_report(long)) for _ in range(max(3, repeat // 3))]
    print(f"write a 10-step run:              {median_ms(a):.1f} ms (first write, diffing its steps: "
          f"{median_ms(first[10]):.1f} ms)")
    print(f"write a 300-step run:             {median_ms(b):.1f} ms (first write, diffing its steps: "
          f"{median_ms(first[300]):.1f} ms, {statistics.median(first[300]) / statistics.median(first[10]):.1f}x)")
    return statistics.median(b) / statistics.median(a)


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args(argv)
    logging.getLogger("streamlit").setLevel(logging.ERROR)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        report = write_complex(Path(tmp))
        out["complex_demo_kb"] = report.stat().st_size / 1024
        print(f"complex_demo_kb: {out['complex_demo_kb']:.0f}")
        out["open_vs_empty"] = open_figure(report, Path(tmp), args.repeat)
        print(f"open_vs_empty: {out['open_vs_empty']:.2f}")
        in_file, in_app = travel_in_file(report, args.repeat), travel_in_app(args.repeat)
        print(f"time travel in the file:          {in_file * 1000:.1f} ms")
        print(f"time travel in the app:           {in_app * 1000:.1f} ms")
        out["travel_file_vs_app"] = in_file / in_app
        print(f"travel_file_vs_app: {out['travel_file_vs_app']:.2f}")
    out["write_300_vs_10"] = write_figure(args.repeat)
    print(f"write_300_vs_10: {out['write_300_vs_10']:.2f}")
    return out


if __name__ == "__main__":
    main()
