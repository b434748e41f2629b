"""Does a long stored thread open as fast as a short one? (the history is read a window at a time)

Two threads are written into one SQLite checkpointer by a loop graph, one of 1,000 checkpoints and one
of 10. Opening one is what the Your graph page does on "Open thread": `GraphSession.open_thread`
(read the newest window, decode it, build the steps, position at the end). Baseline, measured in the same
run: opening the thread of 10. Reading the whole long thread would be ~100x.

    python -m bench.threads [--repeat 7]

Ends with `open_1000_vs_10: X` (goal ≤ 3).
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

from langgraph.checkpoint.sqlite import SqliteSaver

from rag_debugger.debugger.session import GraphSession
from rag_debugger.debugger.threads import open_store, parse_checkpointer_url
from tests.debugger.thread_graphs import loop_builder, write_long_thread


def timed_open(session: GraphSession, store, thread_id: str) -> float:
    start = time.perf_counter()
    session.open_thread(store, thread_id)
    return time.perf_counter() - start


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "bench.db")
        with SqliteSaver.from_conn_string(path) as saver:
            write_long_thread(saver, "long", 1000)
            write_long_thread(saver, "short", 10)
        store = open_store(parse_checkpointer_url("sqlite:///" + path))
        counts = {t: store.count(t) for t in ("long", "short")}
        session = GraphSession(spec="bench", graph=loop_builder().compile())
        timed_open(session, store, "long")  # warm up imports and the graph's first decode
        timed_open(session, store, "short")
        short = statistics.median(timed_open(session, store, "short") for _ in range(args.repeat))
        long = statistics.median(timed_open(session, store, "long") for _ in range(args.repeat))
        store.close()
    ratio = long / short
    print(f"thread of {counts['short']} checkpoints:   {short * 1000:.1f} ms (median of {args.repeat})")
    print(f"thread of {counts['long']} checkpoints: {long * 1000:.1f} ms (median of {args.repeat})")
    print(f"open_1000_vs_10: {ratio:.2f}")
    return ratio


if __name__ == "__main__":
    main()
