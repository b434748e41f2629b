"""A run of your own graph (`rag_debugger.debugger.session.GraphSession`) sent to OpenTelemetry when it ends.

A session hook: the generic session in `debugger/` knows nothing of telemetry; the Your graph page hands
it this hook. Only the run and node spans (the RAG-specific spans need the workflow's own records), built
after the run, once per segment.
"""
from __future__ import annotations

import time
from typing import Any

from rag_debugger.debugger.session import SessionHooks


class TelemetryHook(SessionHooks):
    """Sends a finished or failed live segment when OpenTelemetry export is on."""

    def ended(self, session: Any, seg: Any) -> None:
        stepper = seg.stepper
        if seg.replay or seg.traced or not (stepper.done or stepper.error):
            return
        from rag.telemetry.runs import active, send_run

        tracer = active()
        if tracer is None:
            return
        seg.traced = True
        from rag.telemetry.trace_records import RunRecord, steps_from_stepper

        steps = steps_from_stepper(stepper.steps)
        start = steps[0].start_ns if steps else time.time_ns()
        values = stepper.steps[-1].values_after if stepper.steps else {}
        try:  # the app's configured keys, should your graph's state carry one
            from rag.settings import load_settings

            secrets = load_settings().secret_strings()
        except Exception:  # noqa: BLE001 - settings that do not load hold no secret to hide
            secrets = []
        send_run(RunRecord(kind="graph", start_ns=start, end_ns=steps[-1].end_ns if steps else start,
                           values=dict(values or {}), steps=steps, graph_name=session.spec, error=stepper.error),
                 secrets, tracer)
