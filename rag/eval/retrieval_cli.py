"""The `--retrieval-only` and `--sweep` paths of `python -m rag.eval` (kept apart from the route
evaluation so each stays short). Lines for scripts end the output, as in the full evaluation."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from rag.errors import HistoryDamagedError, UserFixableError
from rag.eval.lost_at import format_funnel
from rag.eval.question_sets import cli_cases
from rag.eval.retrieval_eval import RetrievalCase, Workbench, metric_lines, run_retrieval, summarize
from rag.eval.runner import settings_for_kb
from rag.eval.sweep import format_table, grid, run_sweep, to_csv, to_json
from rag_debugger.debugger.terminal import one_line


def case_line(res: RetrievalCase) -> str:
    return one_line(_case_line(res))


def _case_line(res: RetrievalCase) -> str:
    if res.error:
        return f"ERR  {res.id}: {res.error}"
    if res.lost_at is None:
        return f"--   {res.id}: no gold named"
    where = f"kept at rank {res.rank}" if res.lost_at == "kept" else f"lost at {res.lost_at}"
    missing = f"  (not in the knowledge base: {', '.join(res.missing)})" if res.missing else ""
    return f"{'ok  ' if res.lost_at == 'kept' else 'LOST'} {res.id}: {where}{missing}"


def main_retrieval(args) -> int:
    try:
        cases = cli_cases(args.set, getattr(args, "set_name", None))
        base = settings_for_kb(args.kb)
        points = grid(args.sweep, base) if args.sweep else None
        print(f"kb: {args.kb}  retrieval only  cases: {len(cases)}" + (f"  points: {len(points)}" if points else ""),
              flush=True)
        if points is not None:
            return _sweep(args, cases, base, points)
        results = run_retrieval(cases, base, Workbench(base),
                                on_case=None if args.quiet else (lambda r: print(case_line(r), flush=True)))
    except (UserFixableError, HistoryDamagedError) as exc:
        print(one_line(f"error: {exc}"), file=sys.stderr)
        return 2
    summary = summarize(results, base.top_k)
    if args.out:
        doc = {"set": str(args.set or args.set_name), "kb": args.kb, "retrieval_only": True, "summary": summary,
               "cases": [r.to_dict() for r in results]}
        Path(args.out).write_text(json.dumps(doc, ensure_ascii=False, indent=2) + "\n", "utf-8")
    print()
    print(format_funnel(summary["lost_at"]))
    for line in metric_lines(summary):
        print(line)
    print(f"cases: {len(results)}")
    return 0


def _sweep(args, cases, base, points) -> int:
    def progress(i, row):
        if not args.quiet:
            print(f"point {i + 1}/{len(points)}: {row['settings']}", file=sys.stderr, flush=True)

    result = run_sweep(cases, base, points, on_point=progress)
    print()
    print(format_table(result))
    if args.out:
        out = Path(args.out)
        out.write_text(to_csv(result) if out.suffix.lower() == ".csv" else to_json(result), "utf-8")
    print(f"points: {len(result.points)}")
    if result.interrupted:
        print(f"interrupted: {len(result.points)} of {result.total} points done (kept)", file=sys.stderr)
        return 130
    return 0
