"""What if, for the RAG session: a new segment that carries an edited field from a past step forward
(rag_debugger/debugger/fork.py does the LangGraph part). A live run forks inside its own thread (LangGraph branches
there); a recorded replay has no checkpoints in this saver, so it forks onto a new live thread seeded
with the recorded state, with this session's models and retriever."""
from __future__ import annotations

from typing import Any, Callable, Optional

from rag.context import RagContext
from rag.errors import UserInputError
from rag_debugger.debugger import GraphStepper, StepRecord
from rag_debugger.debugger.errors import StepperError
from rag_debugger.debugger.fork import fork_after
from rag_debugger.debugger.segment_chain import GraphSegment, Segment
from rag_debugger.workbench import run_names


def fork_segment(seg: Segment, record: StepRecord, field: str, value: Any, *, number: int,
                 graph_for: Callable[[str], Any], new_context: Callable[[], RagContext],
                 new_thread: Callable[[], str], on_step: Callable[[StepRecord], None]) -> Segment:
    """The fork of `seg` after `record` with `field` set to `value`, paused where the edit leaves it
    (`number`: how many what-ifs this one makes). Raises UserInputError when it cannot fork there."""
    live = not seg.replay and isinstance(seg.stepper, GraphStepper)
    ctx: Optional[RagContext] = seg.ctx if live else new_context()  # a replay's fork runs with this session's models
    try:
        stepper = fork_after(seg, record, field, value, graph=graph_for(seg.kind), new_thread=new_thread, context=ctx,
                             nested_fields={"rag_trace"}, on_step=on_step)
    except StepperError as exc:
        raise UserInputError(str(exc)) from None
    index = seg.stepper.steps.index(record)
    return GraphSegment(kind=seg.kind, stepper=stepper, ctx=ctx, label=run_names.WHAT_IF.format(n=number),
                   fork_of=(seg, index, field, value), prompt_version=seg.prompt_version,
                   answerer_prompt=seg.answerer_prompt)
