"""What if, for the RAG session: a new segment that carries an edited field from a past step forward
(debugger/fork.py does the LangGraph part). A live run forks inside its own thread (LangGraph branches
there); a recorded replay has no checkpoints in this saver, so it forks onto a new live thread seeded
with the recorded state, with this session's models and retriever."""
from __future__ import annotations

from typing import Any, Callable, Optional

from debugger import GraphStepper, StepRecord
from debugger.errors import StepperError
from debugger.fork import fork_from_values, fork_stepper
from rag.context import RagContext
from rag.errors import UserInputError
from rag.i18n import _
from rag.workbench import run_names
from rag.workbench.segments import Segment


def fork_segment(seg: Segment, record: StepRecord, field: str, value: Any, *, number: int,
                 graph_for: Callable[[str], Any], new_context: Callable[[], RagContext],
                 new_thread: Callable[[], str], on_step: Callable[[StepRecord], None]) -> Segment:
    """The fork of `seg` after `record` with `field` set to `value`, paused where the edit leaves it
    (`number`: how many what-ifs this one makes). Raises UserInputError when it cannot fork there."""
    as_node = record.nodes[-1]
    ctx: Optional[RagContext]
    try:
        if seg.replay or not isinstance(seg.stepper, GraphStepper):
            # a new thread starts every appending list empty, so the full state written once is exact
            ctx = new_context()
            stepper = fork_from_values(graph_for(seg.kind), {**record.values_after, field: value}, as_node=as_node,
                                       thread_id=new_thread(), context=ctx, nested_fields={"rag_trace"},
                                       on_step=on_step)
        else:
            if record.after_checkpoint_id is None:
                raise UserInputError(_("this step has no checkpoint to fork from"))
            ctx = seg.ctx
            stepper = fork_stepper(seg.stepper, record.after_checkpoint_id, {field: value}, as_node=as_node,
                                   on_step=on_step)
    except StepperError as exc:
        raise UserInputError(str(exc)) from None
    index = seg.stepper.steps.index(record)
    return Segment(kind=seg.kind, stepper=stepper, ctx=ctx, label=run_names.WHAT_IF.format(n=number),
                   fork_of=(seg, index, field, value), prompt_version=seg.prompt_version,
                   answerer_prompt=seg.answerer_prompt)
