"""What OpenTelemetry export costs a run: export on (spans built and queued to the SDK's batch
processor, exported by its thread to a no-op receiver in this process) vs off, measured in the same run.

Two measures, the sides alternating so a drift in the machine's load hits both:
- `step_on_vs_off`: the debugger session (rag_debugger/workbench/session.py) stepping the bundled complex demo
  (parallel lanes), median Step time with export on / off (target ≤ 1.05);
- `runs_on_vs_off`: `--runs` offline `run_rag_graph` calls over the demo questions, total time
  on / off (target ≤ 1.1).

    python -m bench.telemetry [--runs 500] [--sessions 20]
"""
from __future__ import annotations

import argparse
import statistics
import time

from rag import run_rag_graph
from rag.demo import load_demo_questions
from rag.settings import RagSettings
from rag.telemetry import exporter
from rag_debugger.workbench.session import DebugSession

SETTINGS = RagSettings(model_provider="offline")


def _noop_exporter():
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    class Noop(SpanExporter):
        spans = 0

        def export(self, spans):
            Noop.spans += len(spans)
            return SpanExportResult.SUCCESS

    return Noop()


def _set(on: bool, noop) -> None:
    if on:
        exporter.use_exporter(noop, batch=True, service_name="bench")
    else:
        exporter.reset()


def step_times(question: str) -> list[float]:
    session = DebugSession(SETTINGS)
    session.start(question)
    out = []
    while not session.done:
        start = time.perf_counter()
        session.step()
        out.append(time.perf_counter() - start)
    return out


def main(argv=None) -> tuple[float, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--sessions", type=int, default=20)
    args = parser.parse_args(argv)
    noop = _noop_exporter()
    demos = load_demo_questions()
    complex_q = next(d.question for d in demos if d.expected_route == "complex")
    questions = [d.question for d in demos]
    for on in (False, True):  # warm: index, graphs, SDK import
        _set(on, noop)
        step_times(complex_q)
        run_rag_graph(questions[0], settings=SETTINGS)

    steps: dict[bool, list[list[float]]] = {False: [], True: []}
    for i in range(args.sessions):
        for on in ((False, True) if i % 2 == 0 else (True, False)):
            _set(on, noop)
            steps[on].append(step_times(complex_q))

    totals = {False: 0.0, True: 0.0}
    chunk = 25
    done = 0
    while done < args.runs:
        n = min(chunk, args.runs - done)
        for on in ((False, True) if (done // chunk) % 2 == 0 else (True, False)):
            _set(on, noop)
            start = time.perf_counter()
            for k in range(n):
                run_rag_graph(questions[(done + k) % len(questions)], settings=SETTINGS)
            totals[on] += time.perf_counter() - start
        done += n
    exporter.flush()
    exporter.reset()
    # Steps differ (a lane step costs more than the planner's), so each step index is compared with
    # itself: the median of each index over the sessions, summed.
    per_step = {on: [statistics.median(col) for col in zip(*steps[on], strict=True)] for on in (False, True)}
    step_ratio = sum(per_step[True]) / sum(per_step[False])
    runs_ratio = totals[True] / totals[False]
    print(f"a run's Steps, export off / on: {sum(per_step[False]) * 1000:.1f} ms / {sum(per_step[True]) * 1000:.1f} ms "
          f"({len(per_step[False])} steps, median of {args.sessions} sessions each)")
    print(f"{args.runs} runs, export off / on:  {totals[False]:.2f} s / {totals[True]:.2f} s "
          f"({noop.spans} spans exported)")
    print(f"step_on_vs_off: {step_ratio:.3f}")
    print(f"runs_on_vs_off: {runs_ratio:.3f}")
    return step_ratio, runs_ratio


if __name__ == "__main__":
    main()
