"""A run record (`rag.telemetry.trace_records.TracedRun`) as OpenInference spans.

The tree: one CHAIN span for the run; under it a CHAIN span per superstep; under that one span per
lane (a `Send` fan-out gives sibling lanes that overlap in time); under a lane its RETRIEVER span (the
documents it found) and its LLM spans (each model call). A HITL resume carries the `session.id` of the
run that asked (both derive it from the snapshot), and when that run was traced by this process the
resume hangs under it in the same trace, with a span link too.

Every text attribute passes through `rag.redaction.redact_text` with the configured secrets, exactly as
exports do, and long texts are cut: a trace is for finding a run, not for storing it.
"""
from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from typing import Any, Iterable, Optional

from rag.redaction import redact_text
from rag.telemetry.trace_records import TracedCall, TracedLane, TracedRun

MASK = "[redacted]"
TEXT_LIMIT = 4000
DOC_CONTENT_LIMIT = 500
SUMMARY_LIMIT = 1000
#: Nodes whose update carries a fresh retrieval in `rag_trace.retrieved_chunks`.
RETRIEVAL_NODES = frozenset({"retrieve_initial", "retrieve_rewritten", "retrieve_targeted"})
RUN_NAMES = {"main": "rag.run", "resume": "rag.hitl_resume", "graph": "graph.run"}

# OpenInference names, as in openinference.semconv (checked by the tests); kept literal so that building
# spans imports nothing when export is off.
KIND = "openinference.span.kind"
INPUT, OUTPUT = "input.value", "output.value"
INPUT_MIME, OUTPUT_MIME = "input.mime_type", "output.mime_type"
SESSION_ID, METADATA = "session.id", "metadata"


class _Text:
    """Redaction and truncation with one run's secrets."""

    def __init__(self, secrets: Iterable[str]):
        self.secrets = [s for s in secrets if s and len(s) >= 4]

    def __call__(self, value: Any, limit: int = TEXT_LIMIT) -> str:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        if len(text) > limit:
            text = text[:limit] + "…"
        return redact_text(text, self.secrets, MASK)


def snapshot_session_id(snapshot: Any) -> Optional[str]:
    """The session id a HITL run and its resume share: a digest of the snapshot the user answered."""
    if not isinstance(snapshot, dict) or not snapshot:
        return None
    blob = json.dumps(snapshot, sort_keys=True, ensure_ascii=False, default=str)
    return "hitl-" + hashlib.sha256(blob.encode("utf-8")).hexdigest()[:24]


class _Parents:
    """The span context of recent runs that asked the user, by session id (bounded, per process)."""

    def __init__(self, size: int = 512):
        self._items: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        self._size = size

    def put(self, key: str, ctx: Any) -> None:
        with self._lock:
            self._items[key] = ctx
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def get(self, key: Optional[str]) -> Any:
        with self._lock:
            return self._items.get(key) if key else None


PARENTS = _Parents()


def state_summary(writes: Any, text: _Text) -> Optional[str]:
    """What a lane changed, short: the fields it wrote, with scalar values and the size of lists."""
    if not isinstance(writes, dict):
        return None
    out = {}
    for key, value in writes.items():
        if isinstance(value, (str, int, float, bool)) or value is None:
            out[key] = value if not isinstance(value, str) else value[:200]
        elif isinstance(value, (list, tuple)):
            out[key] = f"[{len(value)} items]"
        elif isinstance(value, dict):
            out[key] = "{" + ", ".join(list(value)[:12]) + "}"
        else:
            out[key] = type(value).__name__
    return text(out, SUMMARY_LIMIT)


def retrieval_of(lane: TracedLane) -> Optional[dict]:
    """The retrieval trace a lane produced, if it retrieved (a retrieve node, or a sub-question lane)."""
    writes = lane.writes if isinstance(lane.writes, dict) else {}
    if lane.node in RETRIEVAL_NODES and isinstance(writes.get("rag_trace"), dict):
        return writes["rag_trace"]
    subs = writes.get("sub_results")
    if isinstance(subs, list) and subs and isinstance(subs[0], dict) and isinstance(subs[0].get("rag_trace"), dict):
        return subs[0]["rag_trace"]
    return None


def document_attributes(trace: dict, text: _Text) -> dict[str, Any]:
    attrs: dict[str, Any] = {KIND: "RETRIEVER", INPUT: text(trace.get("query") or "")}
    for key in ("retrieval_mode", "retrieval_stage", "retrieval_pipeline", "retrieval_backend", "retrieval_error"):
        if trace.get(key) not in (None, ""):
            attrs[f"rag.{key}"] = text(trace[key], SUMMARY_LIMIT)
    for i, doc in enumerate(trace.get("retrieved_chunks") or []):
        if not isinstance(doc, dict):
            continue
        prefix = f"retrieval.documents.{i}.document."
        attrs[prefix + "id"] = text(str(doc.get("chunk_id") or doc.get("id") or f"{doc.get('filename') or 'doc'}#{i}"), 200)
        score = doc.get("score")
        if isinstance(score, (int, float)):
            attrs[prefix + "score"] = float(score)
        attrs[prefix + "content"] = text(doc.get("text") or doc.get("content") or "", DOC_CONTENT_LIMIT)
        meta = {k: doc.get(k) for k in ("source", "filename", "title", "page", "page_number") if doc.get(k) not in (None, "")}
        if meta:
            attrs[prefix + "metadata"] = text(meta, SUMMARY_LIMIT)
    return attrs


def llm_attributes(call: TracedCall, text: _Text) -> dict[str, Any]:
    attrs: dict[str, Any] = {KIND: "LLM", "llm.model_name": text(call.model, 200), "rag.model.role": call.role}
    if call.method:
        attrs["llm.invocation_parameters"] = json.dumps({"structured_output_method": call.method})
    if call.prompt is not None:
        prompt = text(call.prompt)
        attrs[INPUT] = prompt
        attrs["llm.input_messages.0.message.role"] = "user"
        attrs["llm.input_messages.0.message.content"] = prompt
    if call.output is not None:
        output = text(call.output)
        attrs[OUTPUT] = output
        attrs["llm.output_messages.0.message.role"] = "assistant"
        attrs["llm.output_messages.0.message.content"] = output
    if call.tokens_in is not None:
        attrs["llm.token_count.prompt"] = int(call.tokens_in)
    if call.tokens_out is not None:
        attrs["llm.token_count.completion"] = int(call.tokens_out)
    if call.tokens_in is not None and call.tokens_out is not None:
        attrs["llm.token_count.total"] = int(call.tokens_in) + int(call.tokens_out)
    attrs["rag.model.latency_ms"] = round((call.end_ns - call.start_ns) / 1e6, 3)
    if call.error_kind:
        attrs["rag.model.error_kind"] = call.error_kind
    return attrs


def run_attributes(run: TracedRun, text: _Text, session_id: Optional[str]) -> dict[str, Any]:
    values = run.values or {}
    attrs: dict[str, Any] = {KIND: "CHAIN", "rag.run.kind": run.kind}
    question = run.question or values.get("question")
    if question:
        attrs[INPUT] = text(question)
    outcome = {k: values.get(k) for k in ("route", "retrieval_status", "complexity") if values.get(k) is not None}
    if run.kind != "graph":
        outcome["docs"] = len(values.get("docs") or [])
        attrs[OUTPUT] = text(outcome, SUMMARY_LIMIT)
        attrs[OUTPUT_MIME] = "application/json"
    else:
        attrs[OUTPUT] = state_summary(values, text) or ""
    for key in ("route", "retrieval_status", "complexity"):
        if values.get(key) is not None:
            attrs[f"rag.{key}"] = str(values[key])
    for key, value in (("rag.run_id", run.run_id), ("rag.parent_run_id", run.parent_run_id),
                       ("rag.prompt_version", run.prompt_version), ("rag.graph", run.graph_name)):
        if value:
            attrs[key] = text(value, 200)
    if session_id:
        attrs[SESSION_ID] = session_id
    if run.error:
        attrs["rag.error"] = text(run.error, SUMMARY_LIMIT)
    return attrs


def emit_run(tracer: Any, run: TracedRun, secrets: Iterable[str] = ()) -> None:
    """Start and end every span of `run` with its recorded times (ends go to the batch processor)."""
    from opentelemetry import trace as ot
    from opentelemetry.trace import Link, Status, StatusCode

    text = _Text(secrets)
    values = run.values or {}
    own_session = None
    if run.kind != "graph":
        from rag.rules.hitl import build_hitl_resume_state

        try:
            snap = build_hitl_resume_state(values)
            own_session = snapshot_session_id(snap.model_dump()) if snap is not None else None
        except Exception:  # noqa: BLE001 - a run that cannot be resumed has no session to share
            own_session = None
    parent_session = snapshot_session_id(run.snapshot) if run.snapshot else None
    session_id = parent_session or own_session
    parent_ctx = PARENTS.get(parent_session)
    links = [Link(parent_ctx)] if parent_ctx is not None else []
    context = ot.set_span_in_context(ot.NonRecordingSpan(parent_ctx)) if parent_ctx is not None else \
        ot.set_span_in_context(ot.INVALID_SPAN)

    root = tracer.start_span(RUN_NAMES.get(run.kind, "graph.run"), context=context, links=links,
                             start_time=run.start_ns, attributes=run_attributes(run, text, session_id))
    if own_session:
        PARENTS.put(own_session, root.get_span_context())
    root_ctx = ot.set_span_in_context(root)
    lane_ctx: dict[str, Any] = {}
    for step in run.steps:
        step_span = tracer.start_span(f"step {step.index}", context=root_ctx, start_time=step.start_ns, attributes={
            KIND: "CHAIN", "rag.step.index": step.index, "rag.step.nodes": [lane.node for lane in step.lanes]})
        step_ctx = ot.set_span_in_context(step_span)
        for i, lane in enumerate(step.lanes):
            attrs: dict[str, Any] = {KIND: "CHAIN", "rag.node": lane.node, "rag.lane": i}
            if lane.task_id:
                attrs["rag.task_id"] = lane.task_id
            summary = state_summary(lane.writes, text)
            if summary:
                attrs[OUTPUT], attrs[OUTPUT_MIME] = summary, "application/json"
            span = tracer.start_span(lane.node, context=step_ctx, start_time=lane.start_ns, attributes=attrs)
            if lane.task_id:
                lane_ctx[lane.task_id] = ot.set_span_in_context(span)
            found = retrieval_of(lane) if run.kind != "graph" else None
            if found is not None:
                first_call = min((c.start_ns for c in run.calls if c.task_id == lane.task_id), default=lane.end_ns)
                r_end = max(lane.start_ns, min(first_call, lane.end_ns))
                r_span = tracer.start_span("retrieve", context=ot.set_span_in_context(span), start_time=lane.start_ns,
                                           attributes=document_attributes(found, text))
                if found.get("retrieval_error"):
                    r_span.set_status(Status(StatusCode.ERROR, text(found["retrieval_error"], 200)))
                r_span.end(end_time=r_end)
            if lane.error:
                span.set_status(Status(StatusCode.ERROR, text(lane.error, 200)))
            span.end(end_time=lane.end_ns)
        if step.error:
            step_span.set_status(Status(StatusCode.ERROR, text(step.error, 200)))
        step_span.end(end_time=step.end_ns)
    for call in run.calls:
        ctx = lane_ctx.get(call.task_id or "", root_ctx)
        span = tracer.start_span(call.role, context=ctx, start_time=call.start_ns, attributes=llm_attributes(call, text))
        if call.error_kind:
            span.set_status(Status(StatusCode.ERROR, call.error_kind))
        span.end(end_time=call.end_ns)
    if run.error:
        root.set_status(Status(StatusCode.ERROR, text(run.error, 200)))
    root.end(end_time=run.end_ns)
