"""Where a stepping session stands after any number of its steps: what the graph highlights.

Why a function of the records and not of the stepper: time travel shows a past step, and the
graph must show that step (what had run, what ran next), not where the stepper is now. Every
`StepRecord` keeps the tasks it ran and the tasks scheduled after it, so the marks of any past
step come from the records alone, with no checkpointer read. Pure and cheap (one pass over the
records of one run). Nothing here knows about RAG.
"""
from __future__ import annotations

from typing import Iterator, NamedTuple, Optional, Sequence

from rag_debugger.debugger.prefix_fold import PrefixFold
from rag_debugger.debugger.records import StepRecord

START_ID = "__start__"
END_ID = "__end__"


class Marks(NamedTuple):
    """The graph's highlight after `steps` steps of one run."""

    steps: int
    current: tuple[str, ...]
    """Tasks about to run (a `Send` fan-out repeats its node once per task); empty when finished."""
    done: frozenset[str]
    """Nodes run so far (START once anything was fed in; END once finished)."""
    finished: bool
    lanes: int
    """The most parallel tasks of one node seen in a step so far, or about to run (0: no fan-out)."""


def _most_lanes(names: Sequence[str]) -> int:
    if len(names) < 2:
        return 0
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    best = max(counts.values(), default=0)
    return best if best > 1 else 0


def _add_step(state: tuple[frozenset, int], rec: StepRecord) -> tuple[frozenset, int]:
    ran, lanes = state
    more = _most_lanes([lane.node for lane in rec.lanes])
    if more <= lanes and ran.issuperset(rec.nodes):  # a loop's steps: nothing new (kept, not rebuilt)
        return state
    return ran | frozenset(rec.nodes), max(lanes, more)


_STARTED = frozenset({START_ID})
_ENDED = frozenset({END_ID})

_ran = PrefixFold(lambda: (frozenset(), 0), _add_step)
"""(nodes run, most lanes of one node in a step) after the first n records; remembered per run."""


def marks_after(records: Sequence[StepRecord], steps: Optional[int] = None, *,
                next_now: Optional[Sequence[str]] = None, finished_now: Optional[bool] = None) -> Marks:
    """The marks after the first `steps` records (default: all of them).

    `next_now` / `finished_now`: what the stepper says about its head, used only when `steps` is
    the last record (the head may differ from the last record's view, e.g. a retried step).
    Before the first step, the first record's tasks are what runs next.
    """
    total = len(records)
    n = total if steps is None else steps
    if not 0 <= n <= total:
        raise ValueError(f"no position after {n} steps: the run has {total} step(s)")
    if n < total:
        next_now = finished_now = None
    return _marks(records, n, _ran(records, n), next_now, finished_now)


def marks_along(records: Sequence[StepRecord]) -> Iterator[Marks]:
    """`marks_after(records, n)` for n = 1, 2, ... in one pass (a run's HTML file asks for every one)."""
    for n, ran in enumerate(_ran.along(records), start=1):
        yield _marks(records, n, ran, None, None)


def _marks(records: Sequence[StepRecord], n: int, ran_most: tuple[frozenset, int],
           next_now: Optional[Sequence[str]], finished_now: Optional[bool]) -> Marks:
    if next_now is not None:
        current = tuple(next_now)
    elif n == 0:
        current = (tuple(lane.node for lane in records[0].lanes) or records[0].nodes) if records else ()
    else:
        current = tuple(records[n - 1].next_nodes)
    last_error = records[n - 1].error if n else None
    if finished_now is not None:
        finished = bool(finished_now)
    else:
        finished = n > 0 and not current and not last_error
    ran, most = ran_most
    done = ran | _STARTED
    lanes = max(_most_lanes(current), most)
    if finished:
        done |= _ENDED
        current = ()
    return Marks(steps=n, current=current, done=done, finished=finished, lanes=lanes)
