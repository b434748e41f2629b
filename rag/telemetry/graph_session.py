"""A stepped run (either debugger page's session, `rag_debugger.debugger.session.GraphSession`) sent to
OpenTelemetry when it ends.

A session hook: the generic session in `debugger/` knows nothing of telemetry; Your graph's page and the RAG
session (`rag_debugger.workbench.session.DebugSession`) hand it this hook, so both send their runs one way
(`rag.telemetry.runs.send_stepped_run`), built after the run from its step records, once per segment. A RAG
run carries what its steps noted besides (the model calls, its question, prompt version and HITL snapshot).
"""
from __future__ import annotations

from typing import Callable, Iterable, Optional

from rag_debugger.debugger.segment_chain import Segment
from rag_debugger.debugger.session import GraphSession, SessionHooks


def _app_secrets() -> list[str]:
    """The app's configured keys, should a graph's state carry one."""
    try:
        from rag.settings import load_settings

        return load_settings().secret_strings()
    except Exception:  # noqa: BLE001 - settings that do not load hold no secret to hide
        return []


class TelemetryHook(SessionHooks):
    """Sends a finished or failed live segment when OpenTelemetry export is on. `secrets`: the strings to
    hide in the spans (default: the app's configured keys)."""

    def __init__(self, secrets: Optional[Callable[[], Iterable[str]]] = None) -> None:
        self._secrets = secrets or _app_secrets

    def ended(self, session: GraphSession, seg: Segment) -> None:
        stepper = seg.stepper
        if seg.replay or seg.traced or not (stepper.done or stepper.error):
            return
        from rag.telemetry.runs import active, send_stepped_run

        tracer = active()
        if tracer is None:
            return
        seg.traced = True
        steps = stepper.steps
        values = stepper.current_values() if stepper.done else (steps[-1].values_after if steps else {})
        first = steps[0] if steps else None
        parent = None
        if seg.kind == "resume":  # the run whose question it answers
            parent = next((s.run_id for s in reversed(session.segments) if s is not seg and s.run_id), None)
        send_stepped_run(steps, kind=seg.kind, values=values, secrets=list(self._secrets()), tracer=tracer,
                         question=session.question or None, error=stepper.error, run_id=seg.run_id,
                         parent_run_id=parent, prompt_version=seg.prompt_version,
                         graph_name=session.spec if seg.kind == "graph" else None,
                         snapshot=first.values_before.get("hitl_snapshot") if first is not None and seg.kind != "graph"
                         else None)
