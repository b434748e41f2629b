"""The two doors runs come through: `traced_invoke` for `run_rag_graph` / resume / evaluations, and
`send_run` for runs recorded elsewhere (the debugger's stepped segments, Your graph).

Never breaks a run: any failure while building or queueing spans is logged once and dropped.
"""
from __future__ import annotations

import logging
import time
from typing import Any, Iterable, Optional

from rag.telemetry import exporter
from rag.telemetry.trace_records import TaskStream, TracedCall, TracedRun

log = logging.getLogger("rag_debugger.telemetry")
_failed_once = False


def active() -> Any:
    """The tracer when export is on, else None (cheap: no SDK import while off)."""
    try:
        return exporter.tracer()
    except Exception:  # noqa: BLE001 - a broken exporter setup means no export, not a broken run
        _log_once("could not set up OpenTelemetry export")
        return None


def _log_once(message: str) -> None:
    global _failed_once
    if not _failed_once:
        _failed_once = True
        log.warning(message, exc_info=True)


def send_run(run: TracedRun, secrets: Iterable[str] = (), tracer: Any = None) -> None:
    """Queue the spans of a finished run (returns at once; the batch processor exports them)."""
    tracer = tracer or active()
    if tracer is None:
        return
    from rag.telemetry.spans import emit_run

    try:
        emit_run(tracer, run, secrets)
    except Exception:  # noqa: BLE001
        _log_once("could not build the OpenTelemetry spans of a run")


def send_stepped_run(records: list, *, kind: str, values: Optional[dict], secrets: Iterable[str] = (),
                     tracer: Any = None, question: Optional[str] = None, error: Optional[str] = None,
                     **run: Any) -> None:
    """A run that was stepped (the debugger's segments, Your graph), sent after it finished or failed,
    from its step records: the step and lane spans, and the model calls its steps noted. `run`: the
    rest of `TracedRun` (run_id, parent_run_id, prompt_version, snapshot, graph_name)."""
    tracer = tracer or active()
    if tracer is None:
        return
    from rag.telemetry.trace_records import steps_from_stepper

    steps = steps_from_stepper(records)
    calls = [TracedCall.from_sink(c) for rec in records for c in rec.annotations.get("model_calls") or []]
    start = steps[0].start_ns if steps else time.time_ns()
    send_run(TracedRun(kind=kind, start_ns=start, end_ns=steps[-1].end_ns if steps else start, question=question,
                       values=dict(values or {}), steps=steps, calls=calls, error=error, **run), secrets, tracer)


def traced_invoke(graph: Any, inp: dict, *, context: Any, kind: str, tracer: Any,
                  secrets: Iterable[str] = (), prompt_version: Optional[str] = None,
                  snapshot: Optional[dict] = None) -> dict:
    """`graph.invoke(inp, context=context)`, streamed instead so each task's start and end and each
    model call are seen, then sent as one trace. Same result and same exceptions as `invoke`."""
    from rag.models.calls import model_call_sink

    stream = TaskStream()
    calls: list[Any] = []  # what the model-call sink hands over (`rag.models.calls`)
    start = time.time_ns()
    error: Optional[BaseException] = None
    try:
        with model_call_sink(calls.append):
            for mode, event in graph.stream(inp, context=context, stream_mode=["debug", "values"]):
                stream.feed(mode, event)
    except BaseException as exc:  # re-raised below, after the failed run is sent
        error = exc
    stream.finish(type(error).__name__ if error else None)
    run = TracedRun(kind=kind, start_ns=start, end_ns=time.time_ns(), question=inp.get("question"),
                    values=stream.values, steps=stream.steps, calls=[TracedCall.from_sink(c) for c in calls],
                    prompt_version=prompt_version, snapshot=snapshot,
                    error=f"{type(error).__name__}" if error else None)
    send_run(run, secrets, tracer)
    if error is not None:
        raise error
    return stream.values
