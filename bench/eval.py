"""What does the evaluator cost on top of the runs it makes?

The bundled evaluation set, offline, through `rag.eval.runner.run_cases` at concurrency 1 and 4,
against the floor: `run_rag_graph` (and `resume_rag_from_hitl` for the cases with a HITL answer)
called in a plain loop on one context, nothing recorded. Rounds alternate between the three so a
drift of the machine's speed hits all of them; each figure is the median over the rounds.

    python -m bench.eval [--rounds 5]

Ends with `eval_vs_loop_c1: X` and `eval_vs_loop_c4: Y` (cases/s of the evaluator ÷ cases/s of the
loop; 1.0 = no overhead; target ≥ 0.9), then what recording every case's run in a run history costs
(the Evaluate page, `--record`): the evaluator at concurrency 1 recording into an SQLite history file,
`recorded_vs_plain_c1: Z` (cases/s recorded ÷ cases/s not) and `record_ms_per_case: W`.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from rag.api import make_context, resume_rag_from_hitl, run_rag_graph
from rag.eval.cases import load_cases
from rag.eval.runner import run_cases, settings_for_kb
from rag.settings import DATA_DIR

SET = DATA_DIR / "eval" / "bundled.jsonl"
OFFLINE = dict(model_provider="offline", rerank_model=None, rerank_api_key=None, rerank_host=None,
               candidate_k=None, min_score=None, retriever_backend="embedded", local_rescore=False)


def loop(cases, ctx) -> float:
    start = time.perf_counter()
    for case in cases:
        result = run_rag_graph(case.question, ctx)
        if case.hitl_answer and result.get("hitl_resume_state"):
            resume_rag_from_hitl(result["hitl_resume_state"], case.hitl_answer, ctx)
    return len(cases) / (time.perf_counter() - start)


def evaluator(cases, settings, ctx, concurrency: int) -> float:
    start = time.perf_counter()
    results = run_cases(cases, settings, concurrency=concurrency, ctx=ctx)
    rate = len(cases) / (time.perf_counter() - start)
    assert all(r.error is None for r in results), [r.error for r in results if r.error]
    return rate


def recorded(cases, settings, ctx, folder: Path) -> float:
    """The evaluator at concurrency 1 recording every case into a new SQLite history."""
    from rag.runs.history import RunHistory

    with RunHistory(folder / f"history-{time.perf_counter_ns()}.db") as history:
        start = time.perf_counter()
        results = run_cases(cases, settings, ctx=ctx, history=history, eval_id="bench")
        rate = len(cases) / (time.perf_counter() - start)
    assert all(r.error is None and r.run_id for r in results), [r.error for r in results if r.error]
    return rate


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    cases = load_cases(SET)
    settings = settings_for_kb("bundled", **OFFLINE)
    ctx = make_context(settings=settings)
    loop(cases, ctx)  # warm-up: tokenizer, indexes, embedder, graphs
    rates: dict[str, list[float]] = {"loop": [], "c1": [], "c4": [], "rec": []}
    folder = Path(tempfile.mkdtemp(prefix="bench-eval-"))
    try:
        recorded(cases, settings, ctx, folder)  # warm-up: the checkpointer's tables, the recording code
        for _ in range(args.rounds):
            rates["loop"].append(loop(cases, ctx))
            rates["c1"].append(evaluator(cases, settings, ctx, 1))
            rates["c4"].append(evaluator(cases, settings, ctx, 4))
            rates["rec"].append(recorded(cases, settings, ctx, folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    med = {k: statistics.median(v) for k, v in rates.items()}
    print(f"set: {SET.name} ({len(cases)} cases, offline), rounds: {args.rounds}")
    for key, label in (("loop", "run_rag_graph loop"), ("c1", "evaluator, concurrency 1"),
                       ("c4", "evaluator, concurrency 4"), ("rec", "evaluator, c1, recorded")):
        spread = f"{min(rates[key]):.1f}–{max(rates[key]):.1f}"
        print(f"{label:28s} {med[key]:6.1f} cases/s (rounds {spread})")
    out = {"eval_vs_loop_c1": med["c1"] / med["loop"], "eval_vs_loop_c4": med["c4"] / med["loop"],
           "recorded_vs_plain_c1": med["rec"] / med["c1"],
           "record_ms_per_case": (1 / med["rec"] - 1 / med["c1"]) * 1000}
    for key, value in out.items():
        print(f"{key}: {value:.1f}" if key.endswith("_ms_per_case") else f"{key}: {value:.2f}")
    return out


if __name__ == "__main__":
    main()
