"""One harness, LangGraph as the oracle: each corpus graph is run by LangGraph alone and through the
debugger's `GraphSession`, and the two are compared superstep by superstep; then the session's other
features are checked against LangGraph's own answer (breakpoint, time travel, what-if, export → replay,
the HTML file, comparing two identical runs, lint).

Why per superstep and not per call: a superstep that pauses in `interrupt()` and is resumed is one step
of the graph in LangGraph's checkpoints (the resumed task's writes land in the same step), while a session
shows the pause and the answer as two of its records. Records that started from the same checkpoint are
one superstep; their last one carries every task's final writes.

Values are compared as plain data with per-run identifiers normalised: a message's `id` (random per run
unless the node set it) and the ids LangChain puts into AI messages; everything else must be equal.
"""
from __future__ import annotations

import dataclasses
import importlib
import json
import uuid
from typing import Any, Callable, Iterable, Optional

from langchain_core.callbacks import BaseCallbackHandler
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import StateGraph
from langgraph.types import Command
from pydantic import BaseModel

from tests.conformance.case import Case

MODULES = ("graphs_states", "graphs_control", "graphs_interrupts", "graphs_policies", "graphs_functional",
           "graphs_agents", "graphs_more")

CHECKS = ("steps", "final", "breakpoint", "time_travel", "what_if", "export_replay", "html", "compare", "lint",
          "marks")

#: Checks expected to fail while the work that makes them pass is in progress, each with the reason. A listed
#: pair is expected to fail; when it starts passing the test fails too, so the entry is removed with the fix
#: that made it pass. Empty: every corpus graph passes every check.
KNOWN_GAPS: dict[tuple[str, str], str] = {}

MAX_ROUNDS = 20
UNREADABLE: Any = object()
"""The final state where LangGraph's own `get_state` raises (a failed step whose writes conflict)."""


def all_cases() -> list[Case]:
    out: list[Case] = []
    for name in MODULES:
        out.extend(importlib.import_module(f"tests.conformance.{name}").CASES)
    return out


# ----- values as plain data ----------------------------------------------------------------------------

RETURN_KEYS = ("__return__", "__end__", "__root__")
"""What a task's return value is filed under: `__return__` (an `@task`, a node's non-dict return),
`__end__` (an `@entrypoint`'s), `__root__` (a root-value state)."""
MESSAGE_TYPES = ("human", "ai", "tool", "system", "function", "chat")


def plain(value: Any) -> Any:
    """A value as JSON-like data, per-run identifiers dropped (message ids, LangChain run ids)."""
    from langchain_core.messages import BaseMessage

    if isinstance(value, BaseMessage):
        data = value.model_dump()
        data["type"] = value.type
        return plain(data)
    if isinstance(value, BaseModel):
        return plain(value.model_dump())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return plain(dataclasses.asdict(value))
    if isinstance(value, dict):
        if len(value) == 1 and next(iter(value)) in RETURN_KEYS:  # a task's return value, by any channel name
            return {"return": plain(next(iter(value.values())))}
        if value.get("type") in MESSAGE_TYPES and "content" in value:  # a message as an export holds it
            return {str(k): plain(v) for k, v in value.items()
                    if k not in ("id", "response_metadata", "usage_metadata", "additional_kwargs")
                    and v not in (None, [], {}, "")}
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)



def fields_of(values: Any) -> Any:
    """A LangGraph state as fields: a state that is one value is the one field `__root__` (LangGraph's own
    name for that channel); no state yet is no field."""
    if values is None:
        return {}
    return values if isinstance(values, dict) else {"__root__": values}


def same(a: Any, b: Any) -> bool:
    return json.dumps(plain(a), sort_keys=True, default=str) == json.dumps(plain(b), sort_keys=True, default=str)


# ----- what each side saw ----------------------------------------------------------------------------------

@dataclasses.dataclass
class StepView:
    """One superstep: the tasks that ran (sorted), each with its final writes; the state after; what runs next."""

    lanes: list[tuple[str, Any, bool]]
    values: Any
    next: list[str]
    failed: bool = False

    def key(self) -> str:
        return json.dumps(plain([self.lanes, self.values, self.next, self.failed]), sort_keys=True, default=str)


@dataclasses.dataclass
class Observed:
    steps: list[StepView]
    pauses: list[list[Any]]
    """The values of the interrupts pending at each pause, in order."""
    final: Any
    failed: bool


def _lane(name: str, writes: Any, error: Any) -> tuple[str, Any, bool]:
    return (name, plain(writes or {}), error is not None)


def _sorted_lanes(lanes: Iterable[tuple[str, Any, bool]]) -> list[tuple[str, Any, bool]]:
    return sorted(lanes, key=lambda lane: json.dumps(plain(lane), sort_keys=True, default=str))


def _answer_for(pending: list[Any], answer: Any) -> Any:
    """What LangGraph is resumed with: the answer itself for one pending interrupt, else a map by id
    answering the first (the others stay pending, as a person answers one at a time)."""
    if len(pending) <= 1:
        return answer if isinstance(answer, Command) else Command(resume=answer)
    if isinstance(answer, Command):
        return Command(resume={pending[0].id: answer.resume}, update=answer.update)
    return Command(resume={pending[0].id: answer})


# ----- LangGraph alone --------------------------------------------------------------------------------------

def oracle_graph(spec: str) -> Any:
    """The graph as a LangGraph user compiles it, with an in-memory checkpointer (a copy: the module's stays)."""
    module, _, attr = spec.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    if callable(obj) and not hasattr(obj, "invoke") and not isinstance(obj, StateGraph):
        obj = obj()
    if isinstance(obj, StateGraph):
        return obj.compile(checkpointer=InMemorySaver())
    return obj.copy(update={"checkpointer": InMemorySaver()})


def context_of(case: Case) -> Any:
    if case.context is None:
        return None
    module, _, attr = case.context.partition(":")
    obj = getattr(importlib.import_module(module), attr)
    return obj() if callable(obj) else obj


class Oracle:
    """A run by LangGraph alone: `stream_mode="debug"` for the steps, `get_state` at every pause."""

    def __init__(self, case: Case) -> None:
        self.case = case
        self.graph = oracle_graph(case.spec)
        self.config = {"configurable": {"thread_id": f"oracle-{uuid.uuid4().hex[:8]}"}}
        self.kwargs: dict[str, Any] = {}
        ctx = context_of(case)
        if ctx is not None:
            self.kwargs["context"] = ctx

    def events(self, inp: Any, config: Optional[dict] = None, **kwargs: Any) -> Iterable[Any]:
        """LangGraph's stream, through `astream` for a graph with async-only nodes (as its user runs it)."""
        config = config or self.config
        if "async" not in self.case.tags:
            return self.graph.stream(inp, config, **self.kwargs, **kwargs)
        import asyncio

        async def collect() -> list[Any]:
            return [ev async for ev in self.graph.astream(inp, config, **self.kwargs, **kwargs)]

        return asyncio.run(collect())

    def stream(self, inp: Any, **extra: Any) -> tuple[dict[int, dict], dict[int, dict], bool]:
        tasks: dict[int, dict] = {}
        checkpoints: dict[int, dict] = {}
        failed = False
        try:
            for ev in self.events(inp, stream_mode="debug", **extra):
                payload = ev["payload"]
                if ev["type"] == "task_result":
                    tasks.setdefault(ev["step"], {})[payload["id"]] = payload
                elif ev["type"] == "checkpoint":
                    checkpoints[ev["step"]] = payload
        except Exception:  # noqa: BLE001 - a node's error ends the run, as it does for a user
            failed = True
        return tasks, checkpoints, failed

    def run(self) -> Observed:
        inp: Any = self.case.input
        answers = list(self.case.answers)
        tasks: dict[int, dict] = {}
        checkpoints: dict[int, dict] = {}
        pauses: list[list[Any]] = []
        failed = False
        for _round in range(MAX_ROUNDS):
            t, c, failed = self.stream(inp)
            for step, found in t.items():
                tasks.setdefault(step, {}).update(found)
            checkpoints.update(c)
            if failed:
                break
            try:
                snap = self.graph.get_state(self.config)
            except Exception:  # noqa: BLE001 - the step's writes conflict: LangGraph's run has failed
                failed = True
                break
            pending = list(snap.interrupts)
            if pending:
                pauses.append([i.value for i in pending])
                if not answers:
                    break
                inp = _answer_for(pending, answers.pop(0))
            elif snap.next:  # a breakpoint compiled into the graph: go on, as `invoke(None)` does
                pauses.append([])
                inp = None
            else:
                break
        try:
            final = fields_of(self.graph.get_state(self.config).values)
        except Exception:  # noqa: BLE001 - LangGraph cannot read the state back after this failure either
            final, failed = UNREADABLE, True
        steps = []
        for step in sorted(tasks):
            after = checkpoints.get(step)
            lanes = _sorted_lanes(_lane(p["name"], p["result"], p["error"]) for p in tasks[step].values())
            refused = failed and after is None and step == max(tasks)  # the run failed on this step as a whole
            steps.append(StepView(lanes=lanes, values=None if after is None else fields_of(after["values"]),
                                  next=sorted(after["next"]) if after else [],
                                  failed=refused or any(p["error"] is not None for p in tasks[step].values())))
        return Observed(steps=steps, pauses=pauses, final=final, failed=failed)


# ----- through the debugger's session --------------------------------------------------------------------

def saved_input(value: Any) -> Any:
    """The input as a JSON file holds it (`--input file.json`): tuples become lists."""
    return json.loads(json.dumps(value, default=str))


def session_input(session: Any, value: Any) -> Any:
    """The input as the page builds it from a saved input: the form's fields seeded from it, then parsed."""
    from rag_debugger.debugger.input_form import form_input

    return form_input(session.graph, session.input_fields(), saved_input(value))


def open_session(case: Case) -> Any:
    from rag_debugger.debugger.session import GraphSession

    return GraphSession.open(case.spec, context_spec=case.context)


def answer_in_session(session: Any, pending: list[Any], answer: Any) -> None:
    """Answer as a person does on the page: the first pending interrupt (by id when several wait); an
    answer given as `Command(resume=..., update=...)` is the answer plus "Also update the state"."""
    target = pending[0].interrupt_id if len(pending) > 1 else None
    if isinstance(answer, Command):
        session.resume(answer.resume, target, update=answer.update)
    else:
        session.resume(answer, target)


def drive(session: Any, case: Case, *, breakpoints: Iterable[str] = ()) -> list[list[Any]]:
    """Start and run to the end as a person does with Run: answering each `interrupt()` with the case's
    next answer (the first pending one, by id, when several wait). Returns the pending values at each pause."""
    session.start(session_input(session, case.input))
    answers = list(case.answers)
    pauses: list[list[Any]] = []
    for _round in range(MAX_ROUNDS):
        session.run_to_end(from_input=not session.all_steps())  # Run, as `invoke(input)`, then Continue
        seg = session.current
        if seg.stepper.error or seg.stepper.done:
            break
        pending = list(session.pending_interrupts())
        if pending:
            pauses.append([p.value for p in pending])
            if not answers:
                break
            answer_in_session(session, pending, answers.pop(0))
            continue
        pauses.append([])  # paused with no interrupt: a compiled breakpoint
    return pauses


def observed(session: Any, pauses: list[list[Any]]) -> Observed:
    """The session's records, grouped into supersteps (records from one checkpoint are one superstep)."""
    groups: dict[Any, list[Any]] = {}
    for _seg, record in session.all_steps():
        groups.setdefault(record.before_checkpoint_id, []).append(record)
    steps = []
    for records in groups.values():
        last = records[-1]
        completed = last.after_checkpoint_id != last.before_checkpoint_id and not last.error
        by_task: dict[str, Any] = {}
        for record in records:  # a task that finished before a pause keeps its writes; a rerun's replace them
            by_task.update({lane.task_id: lane for lane in record.lanes})
        lanes = _sorted_lanes(_lane(lane.node, lane.writes, lane.error) for lane in by_task.values())
        steps.append(StepView(lanes=lanes, values=last.values_after if completed else None,
                              next=sorted(last.next_nodes) if completed else [],
                              failed=any(lane.error for lane in last.lanes) or bool(last.error)))
    seg = session.current
    return Observed(steps=steps, pauses=pauses, final=seg.stepper.current_values() if seg else None,
                    failed=bool(seg and seg.stepper.error))


# ----- the checks ---------------------------------------------------------------------------------------

class CheckFailed(AssertionError):
    pass


class NotApplicable(Exception):
    """The check says nothing about this graph (no breakpoint named, no what-if, no step to travel to)."""


def _expect(ok: bool, message: str) -> None:
    if not ok:
        raise CheckFailed(message)


def _show(value: Any) -> str:
    text = json.dumps(plain(value), sort_keys=True, default=str)
    return text if len(text) < 600 else text[:600] + "…"


class Run:
    """One case, run by both sides once; each check reads these runs (and runs more where it must)."""

    def __init__(self, case: Case) -> None:
        self.case = case
        self.oracle = Oracle(case)
        self.expected = self.oracle.run()
        self.session = open_session(case)
        pauses = drive(self.session, case)
        self.got = observed(self.session, pauses)

    # steps: nodes, each task's writes, values after, next, interrupts
    def check_steps(self) -> None:
        exp, got = self.expected.steps, self.got.steps
        for i, (a, b) in enumerate(zip(exp, got, strict=False)):
            _expect(a.lanes == b.lanes, f"step {i + 1}: tasks and writes differ:\n langgraph {_show(a.lanes)}\n "
                                        f"session   {_show(b.lanes)}")
            _expect(same(a.values, b.values), f"step {i + 1}: values after differ:\n langgraph {_show(a.values)}\n "
                                              f"session   {_show(b.values)}")
            _expect(a.next == b.next, f"step {i + 1}: next differs: langgraph {a.next}, session {b.next}")
            _expect(a.failed == b.failed, f"step {i + 1}: failed: langgraph {a.failed}, session {b.failed}")
        _expect(len(exp) == len(got), f"langgraph ran {len(exp)} supersteps, the session {len(got)}")
        _expect(same(self.expected.pauses, self.got.pauses),
                f"interrupts differ: langgraph {_show(self.expected.pauses)}, session {_show(self.got.pauses)}")

    def check_final(self) -> None:
        _expect(self.expected.failed == self.got.failed,
                f"the run failed: langgraph {self.expected.failed}, session {self.got.failed}")
        if self.expected.final is UNREADABLE:  # nothing to compare: the session must only have failed too
            return
        _expect(same(self.expected.final, self.got.final),
                f"final state differs:\n langgraph {_show(self.expected.final)}\n session   {_show(self.got.final)}")

    def check_breakpoint(self) -> None:
        node = self.case.breakpoint
        if node is None:
            raise NotApplicable
        oracle = Oracle(self.case)
        oracle.stream(self.case.input, interrupt_before=[node])
        session = open_session(self.case)
        session.start(session_input(session, self.case.input))
        if node in session.current.stepper.next_nodes:  # Continue moves past where it stands: the next stop
            oracle.stream(None, interrupt_before=[node])
        snap = oracle.graph.get_state(oracle.config)
        hit = session.continue_([node]).hit
        _expect(hit == node, f"Continue with a breakpoint on {node!r} stopped at {hit!r}")
        _expect(node in session.current.stepper.next_nodes, f"{node!r} is not next: {session.current.stepper.next_nodes}")
        _expect(same(fields_of(snap.values), session.current.stepper.current_values()),
                f"state at the breakpoint differs:\n langgraph {_show(snap.values)}\n session   "
                f"{_show(session.current.stepper.current_values())}")

    def check_time_travel(self) -> None:
        history = {(s.metadata or {}).get("step"): s for s in self.oracle.graph.get_state_history(self.oracle.config)}
        records = [r for _seg, r in self.session.all_steps()]
        if not records:
            raise NotApplicable
        checked = 0
        for i, record in enumerate(records):
            if record.after_checkpoint_id == record.before_checkpoint_id or record.error:
                continue
            seg, count = self.session.viewed(i)
            travelled = seg.stepper.state_at(count - 1)
            step = seg.stepper.snapshot_at(count - 1).metadata.get("step")
            _expect(step in history, f"time travel to step {i + 1}: LangGraph has no checkpoint at superstep {step}")
            _expect(same(fields_of(history[step].values), travelled),
                    f"time travel to step {i + 1} differs:\n langgraph {_show(history[step].values)}\n "
                    f"session   {_show(travelled)}")
            _expect(same(record.values_after, travelled), f"step {i + 1}: the diff and time travel read different states")
            checked += 1
        if not checked:
            raise NotApplicable

    def check_what_if(self) -> None:
        if self.case.what_if is None:
            raise NotApplicable
        step, field, value = self.case.what_if
        oracle = Oracle(self.case)
        oracle.run()
        session = open_session(self.case)
        drive(session, self.case)
        records = [r for _seg, r in session.all_steps()]
        record = records[step]
        as_node = next(n for n in reversed(record.nodes) if n in oracle.graph.nodes)
        # LangGraph: the checkpoint after that superstep, edited as the node that ran, then run on
        target = None
        for snap in oracle.graph.get_state_history(oracle.config):
            if (snap.metadata or {}).get("step") == _oracle_step(session, step):
                target = snap
                break
        _expect(target is not None, f"LangGraph has no checkpoint after step {step + 1}")
        assert target is not None
        forked = oracle.graph.update_state(target.config, {field: value}, as_node=as_node)
        answers = list(self.case.answers)
        inp: Any = None
        cfg = forked
        for _round in range(MAX_ROUNDS):
            try:
                for _ev in oracle.events(inp, cfg, stream_mode="values"):
                    pass
            except Exception:  # noqa: BLE001
                break
            snap = oracle.graph.get_state(oracle.config)
            cfg = oracle.config
            if snap.interrupts and answers:
                inp = _answer_for(list(snap.interrupts), answers.pop(0))
                continue
            break
        expected = fields_of(oracle.graph.get_state(oracle.config).values)
        answers = list(self.case.answers)
        seg = session.fork(step, field, value)
        for _round in range(MAX_ROUNDS):
            pending = list(session.pending_interrupts())
            if not pending or not answers:
                break
            answer_in_session(session, pending, answers.pop(0))
            session.run_to_end()
        got = seg.stepper.current_values()
        _expect(same(expected, got), f"what-if {field}={value!r} after step {step + 1}:\n langgraph "
                                     f"{_show(expected)}\n session   {_show(got)}")

    def check_export_replay(self) -> None:
        from rag_debugger.debugger.session import GraphSession

        data = json.loads(json.dumps(self.session.export_run(), ensure_ascii=False, default=str))
        replay = GraphSession.open(self.case.spec, context_spec=self.case.context)
        replay.open_replay(data)
        replay.current.stepper.run_to_end(max_steps=500)
        groups: dict[Any, list[Any]] = {}  # a paused superstep and its resume are one step of a recording
        for _seg, r in self.session.all_steps():
            groups.setdefault(r.before_checkpoint_id, []).append(r)
        def recorded(g: list[Any]) -> bool:
            """A step a recording holds: one that completed, or one a task of it failed (a step LangGraph
            refused as a whole, its writes conflicting, left no trace in the checkpoints)."""
            last = g[-1]
            return last.after_checkpoint_id != last.before_checkpoint_id or any(lane.error for lane in last.lanes)

        live = [g[-1] for g in groups.values() if recorded(g)]
        replayed = [r for _seg, r in replay.all_steps()]
        got_nodes = [sorted(r.nodes) for r in replayed]
        want_nodes = [sorted({n for r in g for n in r.nodes}) for g in groups.values() if recorded(g)]
        _expect(got_nodes == want_nodes, f"the replay ran {got_nodes}, the run {want_nodes}")
        for i, (a, b) in enumerate(zip(live, replayed, strict=False)):
            if a.error:  # a failed step's state after is a view of pending writes; the checkpoint has none
                continue
            _expect(same(saved_input(plain(a.values_after)), b.values_after),
                    f"replayed step {i + 1} differs:\n run    {_show(a.values_after)}\n replay {_show(b.values_after)}")

    def check_html(self) -> None:
        from rag_debugger.exports.run_file import graph_report

        text = graph_report(self.session)
        _expect(text.lstrip().lower().startswith("<!doctype html"), "the HTML file is not an HTML document")
        for _seg, record in self.session.all_steps():
            for node in record.nodes:
                _expect(node in text, f"the HTML file does not name node {node!r}")

    def check_compare(self) -> None:
        from rag_debugger.debugger.alignment import Segment, compare_runs

        other = open_session(self.case)
        drive(other, self.case)
        a = [Segment(label=str(s.label), steps=list(s.stepper.steps)) for s in self.session.segments if not s.fork_of]
        b = [Segment(label=str(s.label), steps=list(s.stepper.steps)) for s in other.segments]
        result = compare_runs(a, b)
        _expect(result.first is None, f"two identical runs differ: {result.first}")

    def check_marks(self) -> None:
        """Retry attempts and cache hits as LangGraph reports them: its callbacks see every attempt of a node
        (one `on_chain_start` each), its `updates` stream marks a task served from the cache. Each side runs
        the input twice from an empty cache, so the second run is the one that hits it."""
        graph = self.oracle.graph
        cache = getattr(graph, "cache", None)
        retried = any(getattr(node, "retry_policy", None) for node in graph.builder.nodes.values()) \
            if getattr(graph, "builder", None) is not None else False
        if (cache is None and not retried) or self.case.answers:
            raise NotApplicable
        runs = 2 if cache is not None else 1
        if cache is not None:
            cache.clear()
        expected = []
        for _run in range(runs):
            expected.append(_oracle_marks(Oracle(self.case), self.case.input))
        if cache is not None:
            cache.clear()
        session = open_session(self.case)
        session_cache = getattr(session.graph, "cache", None)
        if session_cache is not None and session_cache is not cache:
            session_cache.clear()
        got = []
        for _run in range(runs):
            drive(session, self.case)
            got.append(_session_marks(session))
        for n, (a, b) in enumerate(zip(expected, got, strict=True), start=1):
            _expect(a == b, f"run {n}: (step, node, attempts, cached):\n langgraph {a}\n session   {b}")
        _expect(any(attempts > 1 or hit for run in got for _s, _n, attempts, hit in run) or not retried,
                "a node with a retry policy: no run showed a retry")

    def check_lint(self) -> None:
        from rag_debugger.debugger.lint import lint_graph

        findings = lint_graph(self.session.graph)
        _expect(not findings, "lint finds: " + "; ".join(str(f) for f in findings))


def _oracle_step(session: Any, index: int) -> Optional[int]:
    """LangGraph's superstep number of the checkpoint after session step `index`."""
    seg, count = session.viewed(index)
    return seg.stepper.snapshot_at(count - 1).metadata.get("step")


# ----- running the corpus ----------------------------------------------------------------------------------

@dataclasses.dataclass
class Outcome:
    case: str
    check: str
    status: str
    """"pass", "fail", "n/a" (the check says nothing about this graph), "error" (the harness could not run it)."""
    detail: str = ""


_RUNS: dict[str, Any] = {}
OUTCOMES: list[Outcome] = []
"""Every check made in this process, for the figure printed at the end of a pytest run."""


class _Starts(BaseCallbackHandler):
    """LangChain callbacks that count each task's starts (a retried attempt starts again), by task id."""

    def __init__(self) -> None:
        self.starts: dict[str, int] = {}

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: Any, parent_run_id: Any = None,
                       tags: Any = None, metadata: Any = None, **kwargs: Any) -> None:
        meta = metadata or {}
        node, step = meta.get("langgraph_node"), meta.get("langgraph_step")
        task = str(meta.get("langgraph_checkpoint_ns") or "").rpartition(":")[2]
        if node is not None and kwargs.get("name") == node and f"graph:step:{step}" in (tags or ()):
            self.starts[task] = self.starts.get(task, 0) + 1


def _oracle_marks(oracle: Oracle, inp: Any) -> list[tuple[int, str, int, bool]]:
    """(superstep order, node, attempts, served from the cache) for one run by LangGraph alone."""
    starts = _Starts()
    config = {**oracle.config, "callbacks": [starts]}
    tasks: list[tuple[int, str, str]] = []
    hits: set[tuple[int, str]] = set()
    step = 0
    try:
        for mode, ev in oracle.events(inp, config, stream_mode=["debug", "updates"]):
            if mode == "debug" and ev["type"] == "task":
                step = ev["step"]
                tasks.append((step, ev["payload"]["name"], ev["payload"]["id"]))
            elif mode == "updates" and (ev.get("__metadata__") or {}).get("cached"):
                hits.update((step, name) for name in ev if name != "__metadata__")
    except Exception:  # noqa: BLE001 - a node's error ends the run; its attempts are counted all the same
        pass
    order = {s: i for i, s in enumerate(sorted({s for s, _n, _t in tasks}))}
    return sorted((order[s], name, starts.starts.get(task, 0) if (s, name) not in hits else 0, (s, name) in hits)
                  for s, name, task in tasks)


def _session_marks(session: Any) -> list[tuple[int, str, int, bool]]:
    """The same for the session's current run: each lane's attempts and cache mark, as the page shows them."""
    out = []
    for i, (_seg, record) in enumerate(session.all_steps()):
        for lane in record.lanes:
            out.append((i, lane.node, 0 if lane.cached else lane.attempts, bool(lane.cached)))
    return sorted(out)


def run_of(case: Case) -> Any:
    """The case's runs, made once per process (every check of a case reads the same runs)."""
    if case.name not in _RUNS:
        try:
            _RUNS[case.name] = Run(case)
        except Exception as exc:  # noqa: BLE001 - the session refused or crashed: every check fails with it
            _RUNS[case.name] = exc
    return _RUNS[case.name]


def check(case: Case, name: str) -> Outcome:
    outcome = _check(case, name)
    OUTCOMES.append(outcome)
    return outcome


def _check(case: Case, name: str) -> Outcome:
    run = run_of(case)
    if isinstance(run, Exception):
        return Outcome(case.name, name, "fail", f"could not run: {type(run).__name__}: {run}")
    try:
        getattr(run, f"check_{name}")()
    except NotApplicable:
        return Outcome(case.name, name, "n/a")
    except CheckFailed as exc:
        return Outcome(case.name, name, "fail", str(exc))
    except Exception as exc:  # noqa: BLE001 - a crash in the session is a failure of the check
        return Outcome(case.name, name, "fail", f"{type(exc).__name__}: {exc}")
    return Outcome(case.name, name, "pass")


def run_corpus(cases: Optional[list[Case]] = None, *, progress: Optional[Callable[[Outcome], None]] = None
               ) -> list[Outcome]:
    out = []
    for case in cases or all_cases():
        for name in CHECKS:
            outcome = check(case, name)
            out.append(outcome)
            if progress is not None:
                progress(outcome)
    return out


def summary(outcomes: list[Outcome]) -> str:
    """The corpus's figure: how many graphs pass every check that applies to them."""
    by_case: dict[str, bool] = {}
    for o in outcomes:
        by_case[o.case] = by_case.get(o.case, True) and o.status in ("pass", "n/a")
    passed = sum(by_case.values())
    checks = [o for o in outcomes if o.status != "n/a"]
    ok = sum(1 for o in checks if o.status == "pass")
    return (f"conformance: {passed}/{len(by_case)} graphs pass every check ({ok}/{len(checks)} checks; "
            f"{len(KNOWN_GAPS)} known gaps listed)")
