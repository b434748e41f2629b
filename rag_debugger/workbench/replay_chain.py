"""Opening a recorded run for replay: the run with the runs it continues (a resume's main run, a
fork's parent), as segments of `ReplayStepper`s that walk the recording; nothing executes."""
from __future__ import annotations

import logging
from typing import Any, Callable, cast

from rag_debugger.debugger.replay import ReplayStepper
from rag_debugger.debugger.segment_chain import GraphSegment, Segment
from rag_debugger.workbench import run_names

log = logging.getLogger("rag_debugger.session")


def run_chain(history: Any, run_id: str) -> list:
    """The run and its parent runs, oldest first (a resume run's main run comes first; a what-if fork
    comes after the run it forked from)."""
    chain = [history.get_run(run_id)]
    seen = {run_id}
    while chain[0].parent_run_id and chain[0].parent_run_id not in seen and history.has_run(chain[0].parent_run_id):
        seen.add(chain[0].parent_run_id)
        chain.insert(0, history.get_run(chain[0].parent_run_id))
    return chain


def starts_at_an_edit(stepper: Any) -> bool:
    """A replayed fork whose recording starts at the edit (a fork of a replay, on a thread of its own),
    not at its parent's input (a live fork, on its parent's thread)."""
    path = getattr(stepper, "path", None) or []
    return bool(path) and path[0].source == "update"


def cut_replay(stepper: Any, steps: int) -> None:
    """Keep only the first `steps` steps of a replay (a fork's parent, shown up to where it forked)."""
    if 0 <= steps < stepper.total_steps:
        stepper.all_steps = stepper.all_steps[:steps]
        stepper.restart()


class ReplayOpener:
    """Builds replay segments from a history; `graph_for(kind)` gives the graph drawn for a kind."""

    def __init__(self, history: Any, graph_for: Callable[[str], Any]):
        from rag.runs.export import open_replay

        self.history = history
        self.graph_for = graph_for
        self._open = open_replay

    def segment(self, info: Any, rounds: int) -> Segment:
        """`rounds`: how many resume segments come before this one."""
        stepper = self._open(self.history, info.run_id, with_graph=False)
        stepper.graph = self.graph_for(info.kind)  # structure only, for drawing
        answer = ((info.result or {}).get("rag_trace") or {}).get("hitl_answer")
        label = run_names.MAIN_RUN_RECORDED if info.kind == "main" else run_names.HITL_RESUME_RECORDED.format(n=rounds + 1)
        if info.fork is not None:
            label = run_names.WHAT_IF_RECORDED
        return GraphSegment(kind=info.kind, stepper=stepper, ctx=None, label=label, answer=answer,
                       run_id=info.run_id, prompt_version=info.prompt_version, replay=True, info=info)

    def chain(self, run_id: str) -> tuple[list, list[Segment]]:
        """(the run chain's infos, its segments as the timeline shows them). Raises the history's
        UnknownRunError, StepperError or ValueError when the run cannot be replayed."""
        chain = run_chain(self.history, run_id)
        built: list[Segment] = []
        for info in chain:
            built.append(self.segment(info, sum(1 for seg in built if seg.kind == "resume")))
        segments = []
        for i, segment in enumerate(built):
            child = built[i + 1] if i + 1 < len(built) else None
            if child is not None and child.info.fork is not None:
                if not starts_at_an_edit(child.stepper):
                    continue  # a live fork's branch starts with its parent's steps: not twice
                cut_replay(segment.stepper, child.info.fork.step)  # a fork of a replay: the parent up to it
            if segment.info.fork is not None and i > 0:
                self._link_fork(segment, chain[i - 1])
            segments.append(segment)
        return chain, segments

    def _link_fork(self, segment: Segment, parent: Any) -> None:
        """A replayed fork compares with its parent's whole recording, as a live fork does (the
        parent's replay, run to its end, is kept out of the timeline)."""
        try:
            origin = self.segment(parent, 0)
            origin.stepper.run_to_end()
        except Exception:  # noqa: BLE001 - the fork still replays without the comparison
            log.warning("could not open the parent of a recorded fork", exc_info=True)
            return
        index = max(0, min(segment.info.fork.step, cast(ReplayStepper, origin.stepper).total_steps) - 1)
        segment.fork_of = (origin, index, segment.info.fork.field, segment.info.fork.new)
