"""What a step emitted besides its state: the progress events of its nodes and the model calls they
made, gathered while it ran (in whichever lane's thread) and written onto its `StepRecord` when it
ends, for the timeline, the waterfall and OpenTelemetry."""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Iterator, Optional

from rag.i18n import _
from rag.models.calls import model_call_sink
from rag.schemas import ProgressStep
from rag_debugger.debugger import StepRecord


def telemetry_on() -> bool:
    from rag.telemetry.runs import active

    return active() is not None


def model_call_span(call: dict, step_t0: float) -> dict:
    """A model call as a waterfall span: when in its step it started, how long, tokens if reported."""
    tokens = ""
    if call.get("tokens_in") is not None or call.get("tokens_out") is not None:
        tokens = _("{tokens_in} → {tokens_out} tokens").format(tokens_in=call.get("tokens_in", "?"),
                                                               tokens_out=call.get("tokens_out", "?"))
    detail = tokens if call.get("ok", True) else _("failed: {kind}").format(kind=call.get("error_kind"))
    return {"label": f"{call.get('role')} · {call.get('model')}", "start_ms": round((call["started"] - step_t0) * 1000.0, 3),
            "ms": call.get("elapsed_ms", 0.0), "detail": detail, "ok": call.get("ok", True)}


#: The progress icon of a plausibility warning: the warnings travel with the run's progress (recorded with
#: it, replayed with it); the step's `plausibility` annotation holds them as data for the inspector's panel.
PLAUSIBILITY_ICON = "🤔"
PLAUSIBILITY_LABEL = "Plausibility warning"


def plausibility_warnings(record: StepRecord) -> list[dict]:
    """The warnings of `rag.rules.plausibility` on the step's lanes, each with the node it is about."""
    from rag.rules.plausibility import check_writes

    out: list[dict] = []
    for lane in record.lanes:
        if not lane.writes:
            continue
        try:
            found = check_writes(lane.writes, record.values_before)
        except Exception:  # noqa: BLE001 - a check must never fail a step
            continue
        out += [w.model_dump() | {"node": lane.node} for w in found]
    return out


def plausibility_steps(warnings: list[dict]) -> list[ProgressStep]:
    from rag.rules.plausibility import PlausibilityWarning, describe

    return [ProgressStep(icon=PLAUSIBILITY_ICON, label=PLAUSIBILITY_LABEL, node=w.get("node"),
                         detail=describe(PlausibilityWarning.model_validate({k: v for k, v in w.items() if k != "node"})))
            for w in warnings]


class StepEvents:
    """The sink a run's context reports progress to (`sink`), the model-call sink (`timed`), and the
    stepper's `on_step` hook that files both onto the step that produced them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._progress: list[ProgressStep] = []
        self._calls: list[dict] = []
        self._step_t0: Optional[float] = None

    def sink(self, step: ProgressStep) -> None:
        with self._lock:
            self._progress.append(step)

    def _on_call(self, call: dict) -> None:
        """A model call finished (rag/models/calls.py), in whichever lane's thread made it."""
        with self._lock:
            self._calls.append(call)

    def clear(self) -> None:
        """A new run starts: nothing left over from a run that was replaced belongs to it."""
        with self._lock:
            self._progress, self._calls = [], []

    def on_step(self, record: StepRecord) -> None:
        with self._lock:
            steps, self._progress = self._progress, []
            calls, self._calls = self._calls, []
        if calls:  # a model wrote this step's output: look for signs of guessing (never changes the route)
            warnings = plausibility_warnings(record)
            if warnings:
                record.annotations["plausibility"] = warnings
                steps += plausibility_steps(warnings)
        record.annotations["progress"] = [s.model_dump() for s in steps]
        t0 = self._step_t0 if self._step_t0 is not None else time.perf_counter() - record.duration_ms / 1000.0
        record.annotations["spans"] = [model_call_span(c, t0) for c in calls]  # the waterfall's model calls
        record.annotations["wall_end_ns"] = time.time_ns()  # where the step sits in an OpenTelemetry trace
        if calls and telemetry_on():
            record.annotations["model_calls"] = calls  # the trace's LLM spans (rag_debugger.workbench.telemetry)
        self._step_t0 = time.perf_counter()  # run_to_end: the next step starts now

    @contextmanager
    def timed(self) -> Iterator[None]:
        """Around the steps of one command: their clock starts now, and model calls are collected."""
        self._step_t0 = time.perf_counter()
        with model_call_sink(self._on_call):
            yield
