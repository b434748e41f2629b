"""Compare two runs from a shell or CI: where they diverged, and whether their outcome differs.

    python -m rag.runs.diff A B

A and B are export files (a run export, or a bundle written by `python -m rag.runs.record_bundle`) or run
ids of the configured history (`RAG_HISTORY_URL`, else `RAG_HISTORY_DB`). The first line is
`first_divergence: step=<n> node=<name> field=<field>` (or `first_divergence: none`), then the cause
and a line per differing step. Exit status: 0 when route and answer (without a recorded answer: the
evidence handed to the answerer) are the same, 1 when they differ, 2 for bad input.
"""
from __future__ import annotations

import argparse
import sys
from typing import Optional

from rag_debugger.debugger.terminal import one_line


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rag.runs.diff", description=__doc__.splitlines()[0])
    parser.add_argument("a", help="run id or export file")
    parser.add_argument("b", help="run id or export file")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code else 0
    from rag.runs.divergence import CompareError, compare_sides, load_side, summary_lines

    history = None
    try:
        needs_history = [ref for ref in (args.a, args.b) if not ref.lower().endswith(".json")]
        if needs_history:
            from rag.runs.location import configured_history

            target = configured_history()
            if target is not None:
                from rag.runs.history import RunHistory

                history = RunHistory(target)
        side_a, side_b = load_side(args.a, history), load_side(args.b, history)
        rc = compare_sides(side_a, side_b)
    except CompareError as exc:
        print(one_line(f"error: {exc}"), file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - a history that cannot be read: said, not a traceback
        print(one_line(f"error: {type(exc).__name__}: {exc}"), file=sys.stderr)
        return 2
    finally:
        if history is not None:
            history.close()
    for line in summary_lines(rc, side_a, side_b):
        print(one_line(line))
    return 0 if rc.same_outcome else 1


if __name__ == "__main__":
    raise SystemExit(main())
