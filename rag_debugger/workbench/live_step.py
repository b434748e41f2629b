"""A Step that calls a real model, run off the page: the calls as they happen, and Stop.

Why a worker thread: with a model on the person's own machine a Step takes 20-70 s. Run inside the
Streamlit script, the page only fades for that long (no role, no tokens, no way to stop), a second
Step click queues another step behind it, and leaving the page leaves no sign that a call is still
running. Here the session owns at most one job at a time; the page polls it (`snapshot()`), draws the
calls as they grow, and Stop sets the job's cancel event. The model client checks that event between
stream chunks and raises `CallCancelled` (rag/models/calls.py), which the nodes let through and the
stepper does not record (`GraphStepper.abort_on`): LangGraph writes no checkpoint for a superstep that
raised, so the run stays paused before the same node, as if the step had not run.

Streamlit-free: tests drive it with a fake model that honours the same observer contract.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Optional

from pydantic import BaseModel

from rag.errors import UserInputError
from rag.i18n import _
from rag.models.calls import CallCancelled, current_task_id, live_calls
from rag.redaction import error_line
from rag_debugger.debugger.live import JobKind, LaneView

log = logging.getLogger("rag_debugger.live_step")

JobState = Literal["running", "done", "stopped", "failed"]


def lane_task_id() -> Optional[str]:
    """The Send lane (LangGraph task of the step) a call is made in: the OUTERMOST task of the
    checkpoint namespace. A lane that runs a subgraph makes its calls from a nested task, whose own id
    (`current_task_id`) names no lane of the step."""
    try:
        from langgraph.config import get_config

        ns = get_config().get("metadata", {}).get("langgraph_checkpoint_ns") or ""
    except Exception:  # noqa: BLE001 - outside a graph run there is no lane
        return None
    return ns.partition("|")[0].partition(":")[2] or None


class LiveCallView(BaseModel):
    """One model call as the page shows it while (and after) it runs."""

    call_id: str
    role: str
    model: str
    lane: Optional[int] = None
    """1-based lane of a fan-out step (None: the step has one task)."""
    lane_label: str = ""
    elapsed_s: float
    tokens: int
    """Stream chunks received so far (one token each with the OpenAI-compatible servers)."""
    text: str
    state: Literal["running", "done", "failed", "cancelled"] = "running"
    error_kind: Optional[str] = None


@dataclass
class _Call:
    call_id: str
    role: str
    model: str
    task_id: Optional[str]
    started: float
    parts: list[str] = field(default_factory=list)
    ended: Optional[float] = None
    ok: Optional[bool] = None
    error_kind: Optional[str] = None


class LiveCallLog:
    """A `LiveCallObserver`: collects every call of one job, from whichever lane's thread reports it."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._calls: dict[str, _Call] = {}
        self._clock = clock

    def call_started(self, call_id: str, role: str, model: str, task_id: Optional[str]) -> None:
        lane = lane_task_id() or task_id or current_task_id()
        with self._lock:
            self._calls[call_id] = _Call(call_id, role, model, lane, self._clock())

    def call_token(self, call_id: str, text: str) -> None:
        with self._lock:
            call = self._calls.get(call_id)
            if call is not None and text:
                call.parts.append(text)

    def call_ended(self, call_id: str, ok: bool, error_kind: Optional[str]) -> None:
        with self._lock:
            call = self._calls.get(call_id)
            if call is not None:
                call.ended, call.ok, call.error_kind = self._clock(), ok, error_kind

    def views(self, lanes: list[LaneView]) -> list[LiveCallView]:
        """The calls, oldest first, each placed in its lane of `lanes` (the step's tasks)."""
        index = {lane.task_id: (i, lane) for i, lane in enumerate(lanes, start=1)}
        now = self._clock()
        with self._lock:
            calls = [(c, "".join(c.parts)) for c in self._calls.values()]
        out = []
        for c, text in calls:
            place = index.get(c.task_id or "") if len(lanes) > 1 else None
            state = ("running" if c.ended is None else "done" if c.ok
                     else "cancelled" if c.error_kind == "cancelled" else "failed")
            out.append(LiveCallView(
                call_id=c.call_id, role=c.role, model=c.model, lane=place[0] if place else None,
                lane_label=place[1].label if place else "", elapsed_s=round((c.ended or now) - c.started, 1),
                tokens=len(c.parts), text=text, state=state, error_kind=c.error_kind))
        return out

    def running_call(self) -> Optional[tuple[str, float]]:
        """(role, seconds) of the call that ran longest among those still running, for the Stop message."""
        now = self._clock()
        with self._lock:
            running = [c for c in self._calls.values() if c.ended is None] or list(self._calls.values())
        if not running:
            return None
        first = min(running, key=lambda c: c.started)
        return first.role, round((first.ended or now) - first.started, 1)


class LiveJobView(BaseModel):
    """What the page draws of a job: polled while it runs, once more when it ended."""

    job_id: int
    kind: str
    state: JobState
    node_label: str
    elapsed_s: float
    lanes: list[LaneView]
    calls: list[LiveCallView]
    stopping: bool = False
    message: str = ""
    steps_done: int = 0
    """Continue / Run: the steps finished so far in this job."""


class LiveJob:
    """One Step / Continue / Run in its worker thread."""

    def __init__(self, job_id: int, kind: JobKind, lanes: list[LaneView], clock: Callable[[], float]) -> None:
        self.job_id = job_id
        self.kind = kind
        self.lanes = lanes
        self.cancel = threading.Event()
        self.log = LiveCallLog(clock)
        self.state: JobState = "running"
        self.message = ""
        self.started = clock()
        self.ended: Optional[float] = None
        self._clock = clock
        self.thread: Optional[threading.Thread] = None
        self.steps_done = 0

    def view(self) -> LiveJobView:
        nodes = ", ".join(dict.fromkeys(lane.node for lane in self.lanes))
        return LiveJobView(job_id=self.job_id, kind=self.kind, state=self.state, node_label=nodes,
                           elapsed_s=round((self.ended or self._clock()) - self.started, 1), lanes=self.lanes,
                           calls=self.log.views(self.lanes), stopping=self.cancel.is_set() and self.state == "running",
                           message=self.message, steps_done=self.steps_done)

    # the observer contract (rag/models/calls.py): handed on to the log of the step running now
    def call_started(self, call_id: str, role: str, model: str, task_id: Optional[str]) -> None:
        self.log.call_started(call_id, role, model, task_id)

    def call_token(self, call_id: str, text: str) -> None:
        self.log.call_token(call_id, text)

    def call_ended(self, call_id: str, ok: bool, error_kind: Optional[str]) -> None:
        self.log.call_ended(call_id, ok, error_kind)

    def next_step(self, lanes: list[LaneView]) -> None:
        """Continue moved on to another step: the view shows that step's tasks and calls."""
        self.lanes = lanes
        self.steps_done += 1
        self.log = LiveCallLog(self._clock)

    def join(self, timeout: Optional[float] = None) -> bool:
        if self.thread is not None:
            self.thread.join(timeout)
        return self.state != "running"


def stopped_message(log_: LiveCallLog, clock_elapsed: float) -> str:
    running = log_.running_call()
    if running is None:
        return _("Stopped after {s} s: the step did not run; the run is paused where it was.").format(s=clock_elapsed)
    role, seconds = running
    return _("Stopped: {role} call cancelled after {s} s. The step did not run; the run is paused where it "
             "was.").format(role=role, s=seconds)


class LiveStepRunner:
    """The session's one worker: at most one job at a time, the last one kept until the page took its end. A
    `rag_debugger.debugger.live.LiveRunner`: the session (`GraphSession.start_live`) hands it its step."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._job: Optional[LiveJob] = None
        self._jobs = 0
        self._clock = clock

    @property
    def job(self) -> Optional[LiveJob]:
        return self._job

    @property
    def running(self) -> bool:
        job = self._job
        return job is not None and job.state == "running"

    def refuse_if_busy(self) -> None:
        """Anything that would move the run while a job moves it is refused (the job's own thread may)."""
        job = self._job
        if job is not None and job.state == "running" and threading.current_thread() is not job.thread:
            raise UserInputError(_("a step is still running: wait for it or press Stop"))

    def start(self, kind: JobKind, work: Callable[[], Any], lanes: list[LaneView]) -> LiveJob:
        """Run `work` (the session's step / continue) in a worker thread under a live-call observer and
        a cancel event. A second start while one runs is refused: two clicks never queue two steps."""
        with self._lock:
            if self.running:
                raise UserInputError(_("a step is still running: wait for it or press Stop"))
            self._jobs += 1
            job = LiveJob(self._jobs, kind, lanes, self._clock)
            self._job = job
        job.thread = threading.Thread(target=self._run, args=(job, work), name=f"live-step-{job.job_id}", daemon=True)
        job.thread.start()
        return job

    def _run(self, job: LiveJob, work: Callable[[], Any]) -> None:
        try:
            with live_calls(job, job.cancel):
                work()
            state: JobState = "done"
        except CallCancelled:
            state = "stopped"
            job.message = stopped_message(job.log, round(self._clock() - job.started, 1))
        except Exception as exc:  # noqa: BLE001 - the page says it; never a traceback
            from rag.errors import UserFixableError

            if not isinstance(exc, UserFixableError):
                log.exception("a live step failed")
            state = "failed"
            job.message = error_line(exc)
        job.ended = self._clock()
        job.state = state

    def stop(self) -> bool:
        """Ask the running job to stop (the model call closes its stream); False when none runs."""
        job = self._job
        if job is None or job.state != "running":
            return False
        job.cancel.set()
        return True

    def take_ended(self) -> Optional[LiveJob]:
        """The job that ended since the page last looked, once (its end is then drawn as the new position)."""
        with self._lock:
            job = self._job
            if job is None or job.state == "running":
                return None
            self._job = None
            return job
