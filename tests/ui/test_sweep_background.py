"""The Evaluate page's sweep runs on a worker thread that yields to the server's other threads: progress
comes back to the page's thread, a stop from the page ends it, an error in it reaches the page, and it
pauses only when another thread wants the interpreter."""
from __future__ import annotations

import threading
import time

import pytest

from rag.eval.cases import EvalCase
from rag.eval.sweep import SweepError, grid
from rag.settings import RagSettings
from rag_debugger.ui.retrieval_tuning_view import sweep_in_background, yield_when_contended

CASES = [EvalCase(id="temp", question="What is the operating temperature range of the Lumen X2?",
                  expected_sources=["lumen_x2_manual.md"])]


@pytest.fixture
def base():
    return RagSettings(model_provider="offline", dense_enabled=False, rerank_model=None, rerank_api_key=None)


def test_points_come_back_in_the_callers_thread(base):
    seen = []
    result = sweep_in_background(CASES, base, grid(["RAG_TOP_K=1,2,4"], base),
                                 on_point=lambda i, row: seen.append((i, row["settings"], threading.get_ident())))
    assert [(i, s) for i, s, _t in seen] == [(0, {"RAG_TOP_K": 1}), (1, {"RAG_TOP_K": 2}), (2, {"RAG_TOP_K": 4})]
    assert {t for _i, _s, t in seen} == {threading.get_ident()}
    assert len(result.points) == 3 and not result.interrupted


def test_a_stop_from_the_page_ends_the_sweep_and_is_raised(base):
    class Stop(Exception):
        pass

    seen = []

    def on_point(i, _row):
        seen.append(i)
        raise Stop

    with pytest.raises(Stop):
        sweep_in_background(CASES, base, grid(["RAG_TOP_K=1,2,3,4,5,6"], base), on_point=on_point)
    assert seen == [0]
    assert not [t for t in threading.enumerate() if t.name == "rag-sweep"]  # the worker is gone


def test_an_error_in_the_sweep_reaches_the_page(base):
    with pytest.raises(SweepError, match="RAG_TOP_K"):
        sweep_in_background(CASES, base, [{"RAG_TOP_K": 0}])


def test_the_sweep_pauses_only_while_another_thread_wants_the_interpreter():
    import statistics

    # nobody else: full speed (a median, as a loaded machine may delay a single call)
    assert statistics.median(yield_when_contended() for _ in range(21)) == 0.0
    stop = threading.Event()

    def busy():
        while not stop.is_set():
            sum(range(1000))

    other = threading.Thread(target=busy)
    other.start()
    try:
        time.sleep(0.02)
        assert max(yield_when_contended() for _ in range(5)) > 0.0
    finally:
        stop.set()
        other.join()
