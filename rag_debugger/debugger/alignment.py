"""Two runs of a graph, aligned step by step, and the first place where they differ.

Why align rather than zip: two runs of the same graph rarely take the same number of steps (one
rewrites, the other answers; one fans out to three lanes, the other to two). Steps are matched by
their segment (main run, resume, fork) and the nodes they ran, with the longest common
subsequence (`difflib.SequenceMatcher`), so a step only one run has shows as such instead of
shifting every later pair out of line. Nothing here knows the RAG state: a caller adds its own
reading of a field (`field_order`, `lane_key`).
"""
from __future__ import annotations

from difflib import SequenceMatcher
from typing import Any, Callable, Iterable, Literal, Mapping, Optional, Sequence

from pydantic import BaseModel, ConfigDict

from rag_debugger.debugger.records import LaneRecord, StepRecord
from rag_debugger.debugger.state_diff import same_value

RowKind = Literal["same", "differs", "only_a", "only_b"]


class Segment(BaseModel):
    """One thread of a run: the main run, a resume after a HITL answer, or a fork."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    label: str
    steps: list[StepRecord]


class AlignedStep(BaseModel):
    """One row of the comparison. `a` / `b`: 1-based step numbers across each run's segments (None
    when that run has no such step)."""

    row: int
    kind: RowKind
    a: Optional[int] = None
    b: Optional[int] = None
    segment: str = ""
    nodes_a: tuple[str, ...] = ()
    nodes_b: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()
    """The step's own fields (written or changed by it in either run, `step_fields`) whose value after
    it differs between the runs, in write order; with the segment's differing inputs first."""
    inputs: tuple[str, ...] = ()
    """Fields that differ already in the input of this step's segment (the state before its first step)."""
    lanes: tuple[tuple[str, Optional[int], Optional[int]], ...] = ()
    """`Send` lanes matched by key: (key, lane index in A, lane index in B); None where one run lacks it."""

    @property
    def node(self) -> str:
        return ", ".join(dict.fromkeys(self.nodes_a or self.nodes_b))


class Divergence(BaseModel):
    """Where the runs first part: the step (1-based, in run A when it has the step), the node, the
    field (None when only one run has the step or the steps ran different nodes)."""

    row: int
    step: int
    node: str
    field: Optional[str] = None
    kind: RowKind
    from_input: bool = False
    """The field differs already in the input of the step's segment (question, HITL answer)."""


class Comparison(BaseModel):
    rows: list[AlignedStep]
    first: Optional[Divergence] = None

    @property
    def differing_rows(self) -> list[AlignedStep]:
        return [r for r in self.rows if r.kind != "same"]


_MESSAGE_TYPES = frozenset({"human", "ai", "tool", "system", "function", "chat", "remove"})


def without_run_ids(value: Any) -> Any:
    """`value` with the identifiers each run makes anew replaced by their order of appearance: a message's
    `id` (random unless the node set one), and the tool-call ids a model invents (`call_…`, paired with
    its `ToolMessage.tool_call_id`). Two runs that said the same things then read the same; a message that
    differs in content still differs."""
    names: dict[str, str] = {}

    def call_id(raw: Any) -> Any:
        if not isinstance(raw, str):
            return raw
        return names.setdefault(raw, f"call#{len(names) + 1}")

    def walk(v: Any) -> Any:
        if hasattr(v, "model_dump") and hasattr(v, "content") and hasattr(v, "type"):  # a LangChain message
            v = {**v.model_dump(), "type": v.type}
        if isinstance(v, Mapping):
            is_message = v.get("type") in _MESSAGE_TYPES and "content" in v
            out = {}
            for k, item in v.items():
                if is_message and k == "id":
                    continue
                if k == "tool_call_id" or (k == "id" and v.get("type") == "tool_call"):
                    out[k] = call_id(item)
                    continue
                out[k] = walk(item)
            return out
        if isinstance(v, (list, tuple)):
            return [walk(x) for x in v]
        return v

    return walk(value)


def same_meaning(a: Any, b: Any, *, run_ids: bool = True) -> bool:
    """Equal values (`same_value`), or equal once per-run identifiers are set aside (`without_run_ids`)."""
    if same_value(a, b):
        return True
    return run_ids and same_value(without_run_ids(a), without_run_ids(b))


def differing_fields(a: Mapping[str, Any], b: Mapping[str, Any], *, first: Iterable[str] = (),
                     ignore: Iterable[str] = (), run_ids: bool = True) -> tuple[str, ...]:
    """The fields whose values differ (a field one side lacks counts), `first` ones first in order.
    `run_ids`: set per-run identifiers aside (`same_meaning`); False compares them too."""
    skip = set(ignore)
    keys = [k for k in dict.fromkeys([*first, *sorted(set(a) | set(b), key=str)]) if k not in skip]
    return tuple(k for k in keys
                 if (k in a) != (k in b) or (k in a and not same_meaning(a[k], b[k], run_ids=run_ids)))


def written_fields(step: StepRecord) -> list[str]:
    """The fields a step's tasks wrote, in the order they wrote them."""
    out: list[str] = []
    for lane in step.lanes:
        out.extend(k for k in (lane.writes or {}) if k not in out)
    return out


def changed_keys(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """The keys whose value a step changed (added, removed or different)."""
    return [k for k in dict.fromkeys([*before, *after])
            if k not in before or k not in after or not same_value(before[k], after[k])]


def step_fields(step: StepRecord) -> list[str]:
    """A step's own fields: what its tasks wrote, then what else changed during it. A difference the
    runs carry from an earlier step is not this step's: only its own fields are compared."""
    written = written_fields(step)
    return written + [k for k in changed_keys(step.values_before, step.values_after) if k not in written]


def _flatten(segments: Sequence[Segment]) -> list[tuple[int, str, StepRecord]]:
    return [(i, seg.label, step) for i, seg in enumerate(segments) for step in seg.steps]


def _segment_starts(flat: list[tuple[int, str, StepRecord]]) -> dict[int, bool]:
    return {k: k == 0 or flat[k - 1][0] != flat[k][0] for k in range(len(flat))}


def _key(segment_index: int, step: StepRecord) -> tuple:
    return (segment_index, tuple(sorted(step.nodes)))


def match_lanes(a: Sequence[LaneRecord], b: Sequence[LaneRecord],
                lane_key: Callable[[LaneRecord], str]) -> tuple[tuple[str, Optional[int], Optional[int]], ...]:
    """Lanes of one step paired by key (the node; a sub-question, for the RAG graph), in A's order then B's
    extras. Lanes with the same key (the `Send`s of one node) pair in their order: the first with the first."""
    keys_a, keys_b = _numbered([lane_key(lane) for lane in a]), _numbered([lane_key(lane) for lane in b])
    where_b = {key: j for j, key in enumerate(keys_b)}
    out: list[tuple[str, Optional[int], Optional[int]]] = []
    used: set[int] = set()
    for i, key in enumerate(keys_a):
        match = where_b.get(key)
        if match is not None:
            used.add(match)
        out.append((key, i, match))
    out.extend((key, None, j) for j, key in enumerate(keys_b) if j not in used)
    return tuple(out)


def pair_lanes(a: Sequence[LaneRecord], b: Sequence[LaneRecord], *, run_ids: bool = True
               ) -> tuple[tuple[str, Optional[int], Optional[int]], ...]:
    """Lanes of one step paired the way a person reads two fan-outs: a lane of A with the lane of B of the
    same node that was sent the same argument (`LaneRecord.sent`), then one that wrote the same (both by
    meaning: `same_meaning`), then the rest of each node's lanes in their order. So when B sent its `Send`s
    in another order, or one fewer, each lane still pairs with its twin in A and the one B lacks shows as
    missing, instead of every later lane pairing with its neighbour."""
    keys_a = _numbered([lane.node for lane in a])
    match: dict[int, int] = {}
    used: set[int] = set()

    def twin_by(same: Callable[[LaneRecord, LaneRecord], bool]) -> None:
        for i, lane in enumerate(a):
            if i in match:
                continue
            for j, other in enumerate(b):
                if j not in used and other.node == lane.node and same(lane, other):
                    match[i] = j
                    used.add(j)
                    break

    twin_by(lambda x, y: x.sent is not None and y.sent is not None
            and same_meaning({"sent": x.sent}, {"sent": y.sent}, run_ids=run_ids))
    twin_by(lambda x, y: same_meaning(x.writes or {}, y.writes or {}, run_ids=run_ids))
    for i, lane in enumerate(a):
        if i in match:
            continue
        twin = next((k for k, other in enumerate(b) if k not in used and other.node == lane.node), None)
        if twin is not None:
            match[i] = twin
            used.add(twin)
    out: list[tuple[str, Optional[int], Optional[int]]] = [(keys_a[i], i, match.get(i)) for i in range(len(a))]
    extra = _numbered([lane.node for lane in a] + [lane.node for j, lane in enumerate(b) if j not in used])[len(a):]
    out.extend(zip(extra, (None for _ in extra), (j for j in range(len(b)) if j not in used), strict=True))
    return tuple(out)


def _numbered(keys: Sequence[str]) -> list[str]:
    """Keys made unique by their order: the second lane keyed `work` is `work #2`."""
    seen: dict[str, int] = {}
    out = []
    for key in keys:
        seen[key] = seen.get(key, 0) + 1
        out.append(key if seen[key] == 1 else f"{key} #{seen[key]}")
    return out


def align_keys(a: Sequence[Any], b: Sequence[Any]) -> list[tuple[str, int, int, int, int]]:
    """`SequenceMatcher` opcodes, with the common head and tail matched first: a loop graph's steps all
    have one key, and the matcher alone is quadratic on such a run (300 steps: 30 ms)."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    out: list[tuple[str, int, int, int, int]] = [("equal", 0, head, 0, head)] if head else []
    mid_a, mid_b = a[head:len(a) - tail], b[head:len(b) - tail]
    if mid_a or mid_b:
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, mid_a, mid_b, autojunk=False).get_opcodes():
            out.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        out.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    return out


def default_lane_key(lane: LaneRecord) -> str:
    return lane.node


def compare_runs(a: Sequence[Segment], b: Sequence[Segment], *,
                 lane_key: Callable[[LaneRecord], str] = default_lane_key,
                 ignore: Iterable[str] = (),
                 refine: Optional[Callable[[StepRecord, StepRecord, tuple[str, ...]], tuple[str, ...]]] = None,
                 run_ids: bool = True) -> Comparison:
    """Align two runs and find where they first part. `ignore`: fields that always differ between two
    runs and say nothing (run ids, timestamps). `refine`: the caller's reading of a pair's differing
    fields (open a nested field, put the telling one first). `run_ids`: identifiers each run makes anew
    (message ids, tool-call ids) are not differences (`without_run_ids`); False compares them too."""
    ignore = tuple(ignore)
    flat_a, flat_b = _flatten(a), _flatten(b)
    starts = (_segment_starts(flat_a), _segment_starts(flat_b))
    keys_a, keys_b = [_key(i, s) for i, _, s in flat_a], [_key(i, s) for i, _, s in flat_b]
    rows: list[AlignedStep] = []

    def add(kind: RowKind, ia: Optional[int], ib: Optional[int]) -> None:
        sa = flat_a[ia] if ia is not None else None
        sb = flat_b[ib] if ib is not None else None
        fields: tuple[str, ...] = ()
        lanes: tuple = ()
        inputs: tuple[str, ...] = ()
        if sa is not None and sb is not None and ia is not None and ib is not None:
            if starts[0].get(ia) and starts[1].get(ib):  # a segment's input: question, HITL answer, edit
                inputs = differing_fields(sa[2].values_before, sb[2].values_before, ignore=ignore, run_ids=run_ids)
                inputs = refine(sa[2], sb[2], inputs) if refine is not None and inputs else inputs
            own_a, own_b = step_fields(sa[2]), step_fields(sb[2])
            own = own_a + [f for f in own_b if f not in own_a]
            fields = tuple(f for f in differing_fields(sa[2].values_after, sb[2].values_after, first=own,
                                                       ignore=ignore, run_ids=run_ids) if f in own)
            if refine is not None:
                fields = refine(sa[2], sb[2], fields)
            fields = tuple(dict.fromkeys([*inputs, *fields]))
            if len(sa[2].lanes) > 1 or len(sb[2].lanes) > 1:
                lanes = pair_lanes(sa[2].lanes, sb[2].lanes, run_ids=run_ids) if lane_key is default_lane_key \
                    else match_lanes(sa[2].lanes, sb[2].lanes, lane_key)
            lane_mismatch = any(x is None or y is None for _, x, y in lanes)
            kind = "differs" if fields or lane_mismatch else "same"
        either = sa or sb
        assert either is not None  # a row has a step on one side at least
        rows.append(AlignedStep(
            row=len(rows) + 1, kind=kind, a=None if ia is None else ia + 1, b=None if ib is None else ib + 1,
            segment=either[1], nodes_a=sa[2].nodes if sa else (), nodes_b=sb[2].nodes if sb else (),
            fields=fields, inputs=inputs, lanes=lanes))

    for tag, i1, i2, j1, j2 in align_keys(keys_a, keys_b):
        if tag == "equal":
            for k in range(i2 - i1):
                add("same", i1 + k, j1 + k)
            continue
        for ia in range(i1, i2):
            add("only_a", ia, None)
        for ib in range(j1, j2):
            add("only_b", None, ib)
    return Comparison(rows=rows, first=first_divergence(rows))


def first_divergence(rows: Sequence[AlignedStep]) -> Optional[Divergence]:
    """The first row that is not the same. A difference in a segment's input (the question, a HITL
    answer) is named at the first step that reads it, with the input field."""
    for row in rows:
        if row.kind == "same":
            continue
        step = row.a if row.a is not None else (row.b or 0)
        return Divergence(row=row.row, step=step, node=row.node, field=row.fields[0] if row.fields else None,
                          kind=row.kind, from_input=bool(row.inputs))
    return None
