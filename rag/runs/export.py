"""Export a recorded run as one run document (`rag.runs.run_document`), and open any run of the
history as a replay through its document.

Secrets: settings go out only as `RagSettings.public_dict()` (keys replaced by set/unset), and as a
second line of defence every string in the document that contains a configured key is replaced by
`[redacted]` before the document is returned.
"""
from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping, Optional

from rag.errors import RunImportError
from rag.i18n import _
from rag.runs.document_replay import replay_from_document
from rag.runs.feedback import export_list
from rag.runs.history import RunHistory
from rag.runs.run_document import (
    FORMAT,
    FORMAT_VERSION,
    checksum,
)
from rag.trace import normalize_rag_trace
from rag_debugger.debugger.replay import ReplayStepper, linear_path, record_thread
from rag_debugger.debugger.state_diff import jsonable

REDACTED = "[redacted]"



def secret_values(settings: Any) -> list[str]:
    """The configured key strings of a RagSettings and the credentials in its URLs (for redaction);
    never logged."""
    if hasattr(settings, "secret_strings"):
        return [s for s in settings.secret_strings() if len(s) >= 4]
    out = []
    for name in ("openai_api_key", "rerank_api_key"):
        value = getattr(settings, name, None) if settings is not None else None
        if value is not None and hasattr(value, "get_secret_value"):
            value = value.get_secret_value()
        if isinstance(value, str) and len(value.strip()) >= 4:
            out.append(value.strip())
    return out


def redact(value: Any, secrets: Iterable[str]) -> Any:
    """Replace every secret, and any 8+ character piece of one (`rag.redaction.redact_text`), inside any
    string (keys or values) of a JSON tree."""
    from rag.redaction import redact_text

    secrets = [s for s in secrets if s]
    if not secrets:
        return value

    def walk(v: Any) -> Any:
        if isinstance(v, str):
            return redact_text(v, secrets, REDACTED)
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            return {walk(k): walk(x) for k, x in v.items()}
        return v

    return walk(value)


def _prompt_texts(version: Optional[str]) -> Optional[dict[str, str]]:
    """The prompt texts of the run's version, when they can still be loaded here."""
    from rag.prompts import load_prompts
    from rag.prompts.templates import ROLES

    try:
        prompts = load_prompts(None if version in (None, "default") else version)
    except Exception:  # noqa: BLE001 - a deleted version must not block an export
        return None
    return {role: prompts.get(role) for role in ROLES}


def export_run(
    history: RunHistory, run_id: str, graph: Any = None, *, settings: Any = None, label: Optional[str] = None
) -> dict:
    """One JSON-able document for a recorded run (see the module docstring).

    `graph` is the compiled graph whose checkpointer holds the run's thread (default: the
    history's graph of the run's kind). `settings`, when given, are used only to redact their
    keys from the document. An imported run exports its stored document again.
    """
    info = history.get_run(run_id)
    if info.origin == "imported" or info.kind == "graph":  # a Your-graph run keeps its recording with its row
        stored = history.get_document(run_id)
        if stored is not None:
            return _with_feedback(stored, export_list(history, run_id), settings)
    if info.kind == "graph":
        raise RunImportError(_("run {run_id} has not ended yet, so it has no recording to export").format(
            run_id=repr(run_id)))
    graph = graph if graph is not None else history.graph(info.kind)
    checkpoints = record_thread(graph, {"configurable": {"thread_id": info.thread_id}})
    if not checkpoints:
        raise RunImportError(_("run {run_id} has no checkpoints to export (was it deleted or never started?)")
                             .format(run_id=repr(run_id)))
    recorded_head = info.head_checkpoint_id
    head = recorded_head if any(c.checkpoint_id == recorded_head for c in checkpoints) else checkpoints[-1].checkpoint_id
    final_values = linear_path(checkpoints, head)[-1].values
    trace = (info.result or {}).get("rag_trace") if info.result else normalize_rag_trace(final_values.get("rag_trace"))
    doc: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "exported_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "run": info.model_dump(mode="json"),
        "graph": info.kind,
        "label": label,
        "head_checkpoint_id": head,
        "checkpoints": [c.model_dump(mode="json") for c in checkpoints],
        "progress": [p.model_dump(mode="json") for p in info.progress],
        "trace": trace,
        "result": info.result,
        "prompt_version": info.prompt_version,
        "prompts": _prompt_texts(info.prompt_version),
        "settings": dict(info.settings or {}),
        "feedback": export_list(history, run_id),
    }
    doc = redact(jsonable(doc), secret_values(settings))
    doc["sha256"] = checksum(doc)
    return doc


def _with_feedback(stored: Mapping[str, Any], feedback: list[dict], settings: Any) -> dict:
    """An imported run's stored document carrying the run's feedback as it is now (the history's rows,
    which include what the file brought); its checksum is made again when that changed the document."""
    if list(stored.get("feedback") or []) == feedback:
        return dict(stored)
    doc = {**stored, "feedback": redact(jsonable(feedback), secret_values(settings))}
    doc["sha256"] = checksum(doc)
    return doc


def export_run_json(
    history: RunHistory, run_id: str, graph: Any = None, *, settings: Any = None, label: Optional[str] = None
) -> str:
    """The export as pretty JSON text (what a download button serves)."""
    return json.dumps(export_run(history, run_id, graph, settings=settings, label=label), ensure_ascii=False, indent=1)


def open_replay(history: RunHistory, run_id: str, *, with_graph: bool = True) -> ReplayStepper:
    """Any run of the history as a replay: an imported run from its stored document, a live run
    from its checkpoints. Nothing is executed either way."""
    info = history.get_run(run_id)
    graph = None
    if with_graph and info.kind != "graph":  # a graph of your own is loaded by its page, through the allow-list
        from rag.graph.build import compiled_graph

        graph = compiled_graph(info.kind)  # structure only: nothing runs in a replay
    stored = history.get_document(run_id) if info.origin == "imported" or info.kind == "graph" else None
    doc = stored if stored is not None else export_run(history, run_id)
    return replay_from_document(doc, graph=graph)
