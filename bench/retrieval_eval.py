"""What does retrieval-only evaluation save, and what does a sweep cost per point?

    python -m bench.retrieval_eval [--points 12]

In one run, offline, on the pydoc set and corpus (54 cases):
  - `full`: the full offline evaluation (`rag.eval.runner.run_cases`, the whole workflow per case);
  - `retrieval_only`: `rag.eval.retrieval_eval.run_retrieval` of the same cases, the index already
    open (as the CLI opens it once);
  - `sweep`: a `--points`-point sweep (RAG_TOP_K x RAG_RRF_K) against `points` single
    retrieval-only passes, each of which opens its own Workbench (the factory's knowledge-base cache
    is shared, so this measures the per-point overhead of the sweep, not a reload).
Every figure is taken after a warm-up pass (tokenizer, index, graphs). Ends with
`retrieval_only_speedup: X` (full ÷ retrieval-only time; target ≥ 20) and `sweep_vs_passes: Y`
(sweep time ÷ the single passes' time; target ≤ 1.2).
"""
from __future__ import annotations

import argparse
import time

from rag.eval.cases import load_cases
from rag.eval.retrieval_eval import Workbench, run_retrieval
from rag.eval.runner import run_cases, settings_for_kb
from rag.eval.sweep import grid, run_sweep, settings_for
from rag.settings import DATA_DIR

SET = DATA_DIR / "eval" / "pydoc.jsonl"
OFFLINE = dict(model_provider="offline", rerank_model=None, rerank_api_key=None, rerank_host=None,
               candidate_k=None, min_score=None, retriever_backend="embedded", local_rescore=False)


def timed(fn, *args, **kwargs) -> float:
    start = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - start


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=12, help="points of the sweep (a multiple of 2)")
    args = parser.parse_args(argv)
    cases = load_cases(SET)
    settings = settings_for_kb("pydoc", **OFFLINE)
    bench = Workbench(settings)
    run_retrieval(cases, settings, bench)  # warm-up: index, tokenizer
    full = timed(run_cases, cases, settings, cache=False)
    retrieval = timed(run_retrieval, cases, settings, bench)
    tops = list(range(2, 2 + args.points // 2))
    points = grid([f"RAG_TOP_K={','.join(map(str, tops))}", "RAG_RRF_K=20,60"], settings)
    sweep = timed(run_sweep, cases, settings, points, bench=bench)
    passes = 0.0
    for point in points:
        passes += timed(lambda p=point: run_retrieval(cases, settings_for(settings, p), Workbench(settings)))
    out = {"retrieval_only_speedup": full / retrieval, "sweep_vs_passes": sweep / passes}
    print(f"set: {SET.name} ({len(cases)} cases, offline)")
    print(f"full evaluation      {full:8.2f} s")
    print(f"retrieval only       {retrieval:8.2f} s")
    print(f"sweep, {len(points)} points     {sweep:8.2f} s")
    print(f"{len(points)} single passes     {passes:8.2f} s")
    for key, value in out.items():
        print(f"{key}: {value:.2f}")
    return out


if __name__ == "__main__":
    main()
