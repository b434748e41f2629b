"""One offline demo run timed with the server idle and under a load in the same process, alternating, so a
drift of the machine hits both (the responsiveness benchmarks: an ingestion, a retrieval sweep)."""
from __future__ import annotations

import statistics
import time
from typing import Any, Callable, ContextManager


def demo_run(settings: Any) -> Callable[[], float]:
    """A timer of one `run_rag_graph` of the first demo question (the work behind the debugger's Step and
    Run), warmed once: the bundled index and the graph are loaded before anything is timed."""
    from rag.api import make_context, run_rag_graph
    from rag.demo import load_demo_questions

    question = load_demo_questions()[0].question
    ctx = make_context(settings=settings)
    run_rag_graph(question, ctx)

    def one_run() -> float:
        start = time.perf_counter()
        run_rag_graph(question, ctx)
        return time.perf_counter() - start

    return one_run


def busy_vs_idle(one_run: Callable[[], float], load: Callable[[int], ContextManager[Any]], runs: int,
                 during: str) -> float:
    """Median run under `load(n)` / median idle run, printed with both medians (`during`: what the load is,
    for the printout)."""
    idle: list[float] = []
    busy: list[float] = []
    for n in range(runs):
        idle.append(one_run())
        with load(n):
            busy.append(one_run())
    i, b = statistics.median(idle), statistics.median(busy)
    print(f"demo run, idle:{' ' * (len(during) + 1)}median {i * 1000:.0f} ms over {len(idle)}")
    print(f"demo run, during {during}: median {b * 1000:.0f} ms over {len(busy)}")
    return b / i
