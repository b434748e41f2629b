"""`python -m rag.eval SET.jsonl [--kb bundled|pydoc|DIR] [--quiet]`

Prints one line per case that missed its route, the per-route confusion table, and ends with
`route_accuracy: X`, `source_hit_rate: Y`, `cases: N` (machine-readable last lines).
"""
from __future__ import annotations

import argparse
import sys

from rag.eval.cases import EvalSetError, load_cases
from rag.eval.runner import run_cases, settings_for_kb
from rag.eval.scoring import confusion, fmt_rate, format_confusion, route_accuracy, source_hit, source_hit_rate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rag.eval", description=__doc__.strip().splitlines()[0])
    parser.add_argument("set", help="evaluation set, JSON Lines")
    parser.add_argument("--kb", default="bundled", help="bundled (default), pydoc, or a knowledge-base folder")
    parser.add_argument("--quiet", action="store_true", help="no per-case lines")
    args = parser.parse_args(argv)
    try:
        cases = load_cases(args.set)
        settings = settings_for_kb(args.kb)
    except (EvalSetError, ValueError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    def report(res):
        if args.quiet:
            return
        ok = res.route == res.expected_route or res.expected_route is None
        hit = source_hit(res.expected_sources, res.sources)
        mark = "ok  " if ok else "MISS"
        extra = f"  error: {res.error}" if res.error else ""
        src = "" if hit is None else ("  sources: hit" if hit else "  sources: miss")
        print(f"{mark} {res.id}: expected {res.expected_route}, got {res.route}{src}{extra}", flush=True)

    print(f"kb: {args.kb}  provider: {settings.provider_label()}  cases: {len(cases)}", flush=True)
    results = run_cases(cases, settings, on_result=report)
    print()
    print(format_confusion(confusion(results)))
    print()
    print(f"route_accuracy: {fmt_rate(route_accuracy(results))}")
    print(f"source_hit_rate: {fmt_rate(source_hit_rate(results))}")
    print(f"cases: {len(results)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
