"""A finished segment's outcome, worked out once, when the step that finished it ran.

Why at step time: the result (rag/api `build_result`) and the answering agent's answer (a model call
of seconds with a live model) used to be built while the page was drawn, so drawing reached into the
API, the HITL rules, the answering agent and the model client, and a page that drew twice asked
twice. Now a Step (or Continue, a seek in a replay, a fork) settles the segment it moved, and every
reader (the inspector, the HITL panel, the recorder, the HTML report) reads `GraphSegment.outcome`.

Working it out never raises: a result or an answer that cannot be built (a model client that fails
outside the graph, a state the result cannot be read from) is kept as the outcome's `error`. It used
to escape from the step's move and again from every reader, so the page drew nothing but the error,
not even Restart."""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Optional

from rag.api import build_result
from rag.models.calls import CallCancelled
from rag.redaction import error_line
from rag_debugger.debugger.segment_chain import Segment

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outcome:
    """A finished position's client-facing result and, after an `answer` route, what the answering
    agent said (rag/answering.py). `key` says which position it belongs to: (thread, steps)
    (`GraphSegment.position_key`)."""

    key: tuple
    result: Optional[dict]
    answer: Any = None
    error: str = ""
    """Why the result or the answer could not be worked out (one line, "" when both were): the run
    still finished, and the page says so next to Restart."""


def cut_short(seg: Optional[Segment]) -> bool:
    """A replayed run whose recording stops before the graph's end (it never finished)."""
    return bool(seg and seg.replay and getattr(seg.stepper, "cut_short", False))


def result_and_answer(seg: Segment, settings: Any) -> Optional[Outcome]:
    """The outcome of where `seg` is now (None while it has not finished): the result, and the answering
    agent's answer after an `answer` route (a model call with a live model), kept on the segment and built
    again only when its position changed. Named for both jobs: it was `settle`, which hid the model call."""
    if not seg.stepper.done or cut_short(seg):
        seg.outcome = None
        return None
    key = seg.position_key
    if seg.outcome is not None and seg.outcome.key == key:
        return seg.outcome
    result: Optional[dict[str, Any]] = None
    try:
        result = dict(build_result(seg.stepper.current_values(), seg.ctx))
        if seg.replay and seg.info is not None:
            result["provider"] = seg.info.provider
            result["retriever"] = "recorded (replay)"
        seg.outcome = Outcome(key=key, result=result, answer=_answer(seg, result, settings))
    except CallCancelled:  # Stop during the answer's model call: the step's own handling
        raise
    except Exception as exc:  # noqa: BLE001 - kept on the outcome: the session and its Restart live on
        log.exception("could not work out the result of a finished run")
        seg.outcome = Outcome(key=key, result=result, error=error_line(exc, settings.secret_strings()))
    return seg.outcome


def _answer(seg: Segment, result: dict, settings: Any) -> Any:
    """What the answering agent says after an `answer` route, outside the graph: a replay shows the
    recorded one; a live run asks the connected model, or quotes the evidence offline."""
    if result.get("route") != "answer":
        return None
    from rag.answering import Answer, answer_for, model_completer

    recorded = ((seg.info.result or {}).get("answer") if seg.replay and seg.info is not None else None)
    if recorded:
        return Answer.model_validate(recorded)
    live_model = seg.ctx is not None and str(seg.ctx.roles.provider).startswith("openai")
    complete, model = model_completer(settings) if live_model else (None, None)
    return answer_for(seg.stepper.current_values(), complete, model, template=seg.answerer_prompt)
