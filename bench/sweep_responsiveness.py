"""Does the debugger stay responsive while the Evaluate page runs a retrieval sweep?

One offline run of a demo question (`run_rag_graph`, the work behind the debugger's Step and Run in
another tab) is timed with the server idle and while a sweep runs in another thread of the same
process, the way the Evaluate page runs it (`rag_debugger.ui.retrieval_tuning_view.sweep_in_background`: the
page's `rag.eval.sweep.run_sweep` on one opened knowledge base, the bundled set, hybrid retrieval,
a grid long enough to outlast the measurement). Idle and busy runs alternate, so a drift of the
machine hits both.

    python -m bench.sweep_responsiveness [--runs 10] [--nice N]

Ends with `run_during_sweep_vs_idle: X` (median busy / median idle; 1.0 = no slowdown; goal ≤ 1.5).
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from bench.busy_vs_idle import busy_vs_idle, demo_run


class _Stop(Exception):
    """Raised from the sweep's progress callback to end it once the busy run is measured."""


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--nice", type=int, default=None,
                        help="the sweep thread's niceness increment (default: the page's; 0 = normal priority)")
    args = parser.parse_args(argv)
    cache = tempfile.mkdtemp(prefix="bench-sweep-")
    os.environ["RAG_CACHE_DIR"] = cache
    from rag.eval.cases import load_cases
    from rag.eval.retrieval_eval import Workbench
    from rag.eval.sweep import grid
    from rag.settings import DATA_DIR, RagSettings
    from rag_debugger.ui.retrieval_tuning_view import SWEEP_NICE, sweep_in_background

    settings = RagSettings(model_provider="offline", rerank_model=None, rerank_api_key=None, rerank_host=None,
                           retriever_backend="embedded", dense_enabled=True)
    one_run = demo_run(settings)
    args.nice = SWEEP_NICE if args.nice is None else args.nice
    cases = load_cases(DATA_DIR / "eval" / "bundled.jsonl")
    points = grid(["RAG_TOP_K=1,2,3,4,5,6,7,8", "RAG_RRF_K=10,20,40,60,80,100"], settings)
    bench = Workbench(settings, dense=True)

    @contextmanager
    def sweeping(_n: int) -> Iterator[None]:
        stop = threading.Event()
        started = threading.Event()
        done_points: list[int] = []

        def on_point(i, _row):
            done_points.append(i)
            started.set()
            if stop.is_set():
                raise _Stop

        worker = threading.Thread(target=_sweep, args=(sweep_in_background, cases, settings, points, on_point,
                                                       bench, args.nice), daemon=True)
        worker.start()
        started.wait(60)  # into the sweep: its first point is done, the next is running
        yield
        stop.set()
        worker.join(120)
        if len(done_points) >= len(points):
            raise SystemExit("the sweep ended before the run: make the grid longer")

    try:
        ratio = busy_vs_idle(one_run, sweeping, args.runs, "sweep")
    finally:
        shutil.rmtree(Path(cache), ignore_errors=True)
    print(f"run_during_sweep_vs_idle: {ratio:.2f}")
    return ratio


def _sweep(run, cases, settings, points, on_point, bench, nice) -> None:
    try:
        run(cases, settings, points, on_point=on_point, bench=bench, nice=nice)
    except _Stop:
        pass


if __name__ == "__main__":
    main()
