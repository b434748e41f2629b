"""A run document as a `ReplayStepper`: its checkpoints stepped through as recorded, with the progress
events and the measured step timings the run kept. Nothing is executed."""
from __future__ import annotations

from typing import Any, Mapping

from rag.runs.document_limits import parse_document
from rag.runs.run_document import STEP_TIMINGS, RunDocument
from rag.schemas import ProgressStep
from rag_debugger.debugger.replay import ReplayStepper, apply_timings

#: How the RAG state is diffed in a replay (same as a live RAG session).
APPEND_FIELDS = ("sub_results",)
NESTED_FIELDS = ("rag_trace",)


def progress_by_step(steps: list, progress: list[ProgressStep]) -> list[dict]:
    """Attach the progress events to the steps that emitted them, in order (by node name)."""
    notes: list[dict] = [{} for _ in steps]
    pending = list(progress)
    for i, step in enumerate(steps):
        nodes = set(step.nodes)
        taken = []
        while pending and pending[0].node in nodes:
            taken.append(pending.pop(0).model_dump(mode="json"))
        if taken:
            notes[i]["progress"] = taken
    return notes


def replay_from_document(doc: RunDocument | Mapping[str, Any], *, graph: Any = None) -> ReplayStepper:
    """A ReplayStepper over an export, with its progress events as step annotations and the steps'
    recorded timings (model calls included) when the run kept them (see `STEP_TIMINGS`)."""
    parsed = doc if isinstance(doc, RunDocument) else parse_document(doc)
    plain = ReplayStepper(parsed.checkpoints, head=parsed.head_checkpoint_id)
    notes = progress_by_step(plain.all_steps, parsed.progress)
    stepper = ReplayStepper(
        parsed.checkpoints, head=parsed.head_checkpoint_id, append_fields=APPEND_FIELDS,
        nested_fields=NESTED_FIELDS, annotations=notes, thread_id=f"replay-{parsed.run.run_id}", graph=graph,
    )
    timings = (parsed.result or {}).get(STEP_TIMINGS)
    if not isinstance(timings, list):
        # no timings kept: unknown model calls, except on the offline rules, which never call a model
        # (the shipped demo pack is such a recording)
        timings = [] if str(parsed.run.provider or "").startswith("offline") else None
    apply_timings(stepper.all_steps, timings)
    return stepper
