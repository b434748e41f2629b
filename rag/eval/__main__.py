"""`python -m rag.eval SET.jsonl|--set NAME [--kb bundled|pydoc|DIR] [--prompt-version NAME] [--compare NAME]
[--concurrency N] [--min-route-accuracy X] [--min-answer-accuracy X] [--out results.json] [--record] [--no-cache] [--quiet]`

Runs a question set (JSON Lines or CSV) through the public API and prints one line per case, the
per-route confusion table, and ends with `answer_accuracy: A` (share of the cases with `expected_answer_contains`
whose answer says every phrase; n/a when no case has any), `route_accuracy: X`, `source_hit_rate: Y`, `cases: N`
(machine-readable last lines). With `--compare NAME` the set also runs under prompt version NAME
(the baseline), both configurations are printed side by side with the cases that regressed or got
fixed; the last lines and the gate are those of `--prompt-version` (the configuration under test).
`--set NAME` runs a question set stored in the configured run history (made on the Evaluate page or with
"Add to a question set"; RAG_HISTORY_URL / RAG_HISTORY_DB) instead of a file.
Exit codes: 0 ok, 1 route accuracy under `--min-route-accuracy` or answer accuracy under
`--min-answer-accuracy`, 2 unusable input.

Each case in `--out` names where its gold was lost in the run's last retrieval (`lost_at`, see
rag.eval.lost_at; null when the case names no gold); when any case names gold, a `lost_at: ...` line
counts them before the last lines. `--record` records every case's run in the
configured run history (`RAG_HISTORY_URL`, else `RAG_HISTORY_DB`, else the default file), marked as a
run of this evaluation, and keeps the evaluation beside it, so the Evaluate page lists it with each
case linking to its run; `--out` then holds each case's `run_id`.

When cases carry a person's `verdict` (made from runs: "Add to a question set"), the judge's routes are
compared with people's (rag.eval.agreement): `agreement with people: A/N (X)`, a per-route table, the
cases they disagree on and `kappa: X` (or `kappa: n/a (why it is undefined)`), printed before the last
lines; `--out` holds it as `agreement` (null when no case carries a verdict).

`--retrieval-only` runs only retrieval (rag.eval.retrieval_eval) and prints, per case, where its
gold was lost, then `lost_at: not_in_kb=N ... kept=N` and one `<metric>@<k>: X` line per metric.
`--sweep NAME=V1,V2` (repeatable; implies --retrieval-only) runs the grid (rag.eval.sweep) and
prints a table; `--out FILE.json|FILE.csv` writes the points. Ctrl-C keeps the points done (exit 130).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Optional, TextIO

from rag.errors import UserFixableError
from rag.eval.agreement import agreement, format_agreement, to_dict
from rag.eval.lost_at import format_funnel, funnel
from rag.eval.question_sets import cli_cases
from rag.eval.runner import run_cases, settings_for_kb
from rag.eval.scoring import (
    CaseResult,
    answer_accuracy,
    compare_runs,
    confusion,
    degraded_kinds,
    fmt_rate,
    format_confusion,
    route_accuracy,
    source_hit,
    source_hit_rate,
    summary,
)
from rag.models.call_cache import CallCache
from rag_debugger.debugger.terminal import one_line


class ProgressBar:
    """`[#####-----] 5/14` on stderr, redrawn in place on a terminal; elsewhere (CI logs) a line at
    each quarter, so a log is not flooded."""

    def __init__(self, total: int, label: str, stream: Optional[TextIO] = None):
        self.total, self.label = max(total, 1), label
        self.stream = stream if stream is not None else sys.stderr  # looked up now: tests swap sys.stderr
        self.done = 0
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.started = time.perf_counter()
        self._last_quarter = -1

    def step(self) -> None:
        self.done += 1
        width = 24
        filled = int(width * self.done / self.total)
        rate = self.done / max(time.perf_counter() - self.started, 1e-9)
        text = f"{self.label} [{'#' * filled}{'-' * (width - filled)}] {self.done}/{self.total} {rate:.1f} cases/s"
        if self.tty:
            self.stream.write("\r\033[K" + text + ("\n" if self.done >= self.total else ""))
        else:
            quarter = 4 * self.done // self.total
            if quarter != self._last_quarter:
                self._last_quarter = quarter
                self.stream.write(text + "\n")
        self.stream.flush()

    def clear_line(self) -> None:
        if self.tty and self.done < self.total:
            self.stream.write("\r\033[K")


def print_lines(text: str) -> None:
    """A table of several lines (confusion, side by side, agreement, funnel), each line escaped: its cells
    are routes, case ids and labels from the question set's file. Split on newlines only: `splitlines` would
    also break at a CR or a separator inside a cell and turn it into a line of its own."""
    for line in text.split("\n"):
        print(one_line(line))


def case_line(res: CaseResult) -> str:
    hit = source_hit(res.expected_sources, res.sources)
    mark = "ok  " if res.correct in (True, None) else "MISS"
    asked = f" (asked {res.asked_route}, answered)" if res.asked_route else ""
    src = "" if hit is None else ("  sources: hit" if hit else "  sources: miss")
    said = res.answer_correct
    mark = "MISS" if said is False else mark
    answer = "" if said is None else ("  answer: says it" if said else "  answer: does not say " + ", ".join(
        repr(e) for e in res.expected_answer_contains))
    extra = f"  error: {res.error}" if res.error else ""
    extra += f"  degraded: {', '.join(res.degraded)}" if res.degraded else ""
    return one_line(f"{mark} {res.id}: expected {res.expected_route}, got {res.route}{asked}{src}{answer}{extra}")


def side_by_side(label_a: str, a: list[CaseResult], label_b: str, b: list[CaseResult]) -> str:
    sa, sb = summary(a), summary(b)
    width = max(16, len(label_a) + 2, len(label_b) + 2)
    lines = ["".ljust(18) + label_a.rjust(width) + label_b.rjust(width)]
    for key in ("route_accuracy", "answer_accuracy", "source_hit_rate", "mrr", "errors", "cases"):
        va, vb = sa[key], sb[key]
        fa = fmt_rate(va) if isinstance(va, float) or va is None else str(va)
        fb = fmt_rate(vb) if isinstance(vb, float) or vb is None else str(vb)
        lines.append(key.ljust(18) + fa.rjust(width) + fb.rjust(width))
    return "\n".join(lines)


def _run(cases, settings, label: str, args, cache: Optional[CallCache], recorder=None) -> list[CaseResult]:
    bar = ProgressBar(len(cases), label)

    def report(res: CaseResult) -> None:
        if not args.quiet:
            bar.clear_line()
            print(case_line(res), flush=True)
        bar.step()

    if recorder is None:
        return run_cases(cases, settings, on_result=report, concurrency=args.concurrency,
                         cache=cache if cache is not None else False)
    return recorder.run(label, cases, settings, on_result=report, concurrency=args.concurrency,
                        cache=cache if cache is not None else False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rag.eval", description=__doc__.strip().splitlines()[0])
    parser.add_argument("set", nargs="?", help="evaluation set, JSON Lines (.jsonl) or CSV (.csv)")
    parser.add_argument("--set", dest="set_name", default=None, metavar="NAME",
                        help="run the question set NAME stored in the run history instead of a file")
    parser.add_argument("--kb", default="bundled", help="bundled (default), pydoc, or a knowledge-base folder")
    parser.add_argument("--prompt-version", default=None, help="prompt version under test (default: RAG_PROMPT_VERSION)")
    parser.add_argument("--compare", default=None, metavar="NAME", help="also run prompt version NAME as the baseline")
    parser.add_argument("--concurrency", type=int, default=1, help="cases run at the same time (default 1)")
    parser.add_argument("--min-route-accuracy", type=float, default=None, metavar="X",
                        help="exit 1 when route accuracy is under X (0..1)")
    parser.add_argument("--min-answer-accuracy", type=float, default=None, metavar="X",
                        help="exit 1 when answer accuracy (cases with expected_answer_contains) is under X (0..1)")
    parser.add_argument("--out", default=None, help="write every case's result and the summary to this JSON file")
    parser.add_argument("--html", default=None, metavar="FILE",
                        help="also write the evaluation as one self-contained HTML file (opens with no server)")
    parser.add_argument("--record", action="store_true",
                        help="record every case's run in the configured run history (openable in the app)")
    parser.add_argument("--no-cache", action="store_true", help="always call the model (no disk cache of calls)")
    parser.add_argument("--quiet", action="store_true", help="no per-case lines")
    parser.add_argument("--retrieval-only", action="store_true",
                        help="run only retrieval (no planner, grader or rewriter) and say where the gold was lost")
    parser.add_argument("--sweep", action="append", default=[], metavar="NAME=V1,V2",
                        help="a retrieval setting and its values (repeatable; implies --retrieval-only)")
    args = parser.parse_args(argv)
    if (args.set is None) == (args.set_name is None):
        parser.error("give a set file or --set NAME (one of them)")
    if args.set_name:
        args.set_name = args.set_name.strip()
    if args.record and (args.retrieval_only or args.sweep):
        parser.error("--record records the full evaluation's runs; --retrieval-only and --sweep run no workflow")
    if args.retrieval_only or args.sweep:
        from rag.eval.retrieval_cli import main_retrieval

        return main_retrieval(args)
    if args.concurrency < 1:
        parser.error("--concurrency must be at least 1")
    if args.min_route_accuracy is not None and not 0 <= args.min_route_accuracy <= 1:
        parser.error("--min-route-accuracy must be between 0 and 1")
    if args.min_answer_accuracy is not None and not 0 <= args.min_answer_accuracy <= 1:
        parser.error("--min-answer-accuracy must be between 0 and 1")
    if args.html and not Path(args.html).resolve().parent.is_dir():
        parser.error(f"--html: {Path(args.html).parent} is not a folder")
    recorder = None
    try:
        cases = cli_cases(args.set, args.set_name)
        if args.record:
            from rag.eval.recorded import RecordedEvaluation

            recorder = RecordedEvaluation.open_configured(
                set_name=Path(args.set).name if args.set else args.set_name, kb=args.kb)
        extra = {"prompt_version": args.prompt_version} if args.prompt_version else {}
        settings = settings_for_kb(args.kb, **extra)
        baseline = settings_for_kb(args.kb, prompt_version=args.compare) if args.compare else None
        cache = None if args.no_cache else CallCache()
        label = settings.prompt_version or "default"
        print(one_line(f"kb: {args.kb}  provider: {settings.provider_label()}  prompt: {label}  cases: {len(cases)}"),
              flush=True)
        before: Optional[list[CaseResult]] = None
        if baseline is not None:
            before = _run(cases, baseline, f"{args.compare} (baseline)", args, cache, recorder)
            print()
        results = _run(cases, settings, label, args, cache, recorder)
        if recorder is not None:
            print(one_line(f"recorded: {recorder.runs} runs in {recorder.location} (evaluation {recorder.group_id})"))
    except (UserFixableError, RuntimeError) as exc:
        print(one_line(f"error: {exc}"), file=sys.stderr)
        return 2
    finally:
        if recorder is not None:
            recorder.close()
    if cache is not None and (cache.hits or cache.misses):
        print(one_line(f"model calls: {cache.misses} made, {cache.hits} from the cache ({cache.directory})"))
    kinds = degraded_kinds(results)
    if kinds:
        print(one_line("degraded calls: " + ", ".join(f"{item} x{n}" for item, n in kinds.items())))
    print()
    print_lines(format_confusion(confusion(results)))
    changes = []
    if before is not None:
        print()
        print_lines(side_by_side(f"{args.compare}", before, label, results))
        changes = compare_runs(before, results)
        for status in ("regressed", "fixed"):
            items = [c for c in changes if c.status == status]
            print(f"\n{status}: {len(items)}")
            for c in items:
                print(one_line(f"  {c.id}: expected {c.expected_route}; {args.compare}: {c.route_a}; {label}: {c.route_b}"))
    agreed = agreement(results)
    agreed_before = agreement(before) if before is not None else None
    for found, name in ((agreed_before, f"{args.compare}"), (agreed, label if before is not None else "")):
        if found is not None:
            print()
            print_lines(format_agreement(found, name))
    if args.out:
        doc = {"set": str(args.set or args.set_name), "kb": args.kb, "prompt_version": label,
               "provider": settings.provider_label(),
               "summary": summary(results), "cases": [r.to_dict() for r in results],
               "lost_at": funnel(r.lost_at for r in results), "agreement": to_dict(agreed)}
        if recorder is not None:
            doc["evaluation"] = recorder.group_id
        if before is not None:
            doc["compare"] = {"prompt_version": args.compare, "summary": summary(before),
                              "cases": [r.to_dict() for r in before],
                              "changes": [c.__dict__ for c in changes], "agreement": to_dict(agreed_before)}
        Path(args.out).write_text(json.dumps(doc, ensure_ascii=False, indent=2) + "\n", "utf-8")
    if args.html:
        from rag.eval.report import evaluation_html

        labels = [f"{args.compare}", label] if before is not None else [label]
        runs = [before, results] if before is not None else [results]
        try:
            Path(args.html).write_text(evaluation_html(labels, runs, set_name=args.set_name or Path(args.set).name,
                                                          kb=args.kb),
                                       "utf-8")
        except OSError as exc:
            print(one_line(f"error: cannot write {args.html}: {exc.strerror or exc}"), file=sys.stderr)
            return 2
    accuracy = route_accuracy(results)
    print()
    if any(r.lost_at for r in results):  # some case names its gold: where its run's retrieval lost it
        print_lines(format_funnel(funnel(r.lost_at for r in results)))
    said = answer_accuracy(results)
    print(f"answer_accuracy: {fmt_rate(said)}")
    print(f"route_accuracy: {fmt_rate(accuracy)}")
    print(f"source_hit_rate: {fmt_rate(source_hit_rate(results))}")
    print(f"cases: {len(results)}")
    if args.min_route_accuracy is not None and (accuracy is None or accuracy < args.min_route_accuracy):
        print(f"route accuracy {fmt_rate(accuracy)} is under --min-route-accuracy {args.min_route_accuracy:g}",
              file=sys.stderr)
        return 1
    if args.min_answer_accuracy is not None and (said is None or said < args.min_answer_accuracy):
        print(f"answer accuracy {fmt_rate(said)} is under --min-answer-accuracy {args.min_answer_accuracy:g}"
              + (" (no case names expected_answer_contains)" if said is None else ""), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
