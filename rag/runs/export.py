"""Export a recorded run as one JSON document, import it elsewhere, and replay it.

The document holds everything needed to step through the run "exactly as recorded" with no model
and no knowledge base: every checkpoint of the thread in order (values, next tasks, metadata and
each task's own writes), the progress steps, the normalized trace, the prompt version (and its
texts) and the public settings.

Secrets: settings go out only as `RagSettings.public_dict()` (keys replaced by set/unset), and as a
second line of defence every string in the document that contains a configured key is replaced by
`[redacted]` before the document is returned.

The SHA-256 over the canonical JSON of the content is an INTEGRITY CHECK against accidents (a truncated
download, a stray edit, a damaged disk), not a signature: anyone can recompute it, so it does not prove
who made a file. Exports are meant to travel between machines (the demo pack was recorded elsewhere),
which a per-installation key could not verify; and an import never executes anything, it only
replays what the file says. docs/decisions.md has the reasoning.

Hostile files: nesting deeper than `MAX_DOCUMENT_DEPTH` and run ids outside `RUN_ID_PATTERN` are
refused with a `RunImportError` like any other broken file.
"""
from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Literal, Mapping, Optional

from pydantic import BaseModel, Field, ValidationError

from debugger.diff import json_default
from debugger.replay import RecordedCheckpoint, ReplayStepper, apply_timings, linear_path, record_thread
from rag.errors import RunImportError  # noqa: F401 - re-exported from its old home
from rag.i18n import _
from rag.runs.history import RunHistory, RunInfo, new_run_id
from rag.schemas import ProgressStep
from rag.settings import DATA_DIR
from rag.trace import normalize_rag_trace

#: Real exports nest about 12 levels deep (state -> trace -> sub-traces -> chunks); far deeper input
#: is not an export, and nesting thousands deep would exhaust the parser's recursion instead.
MAX_DOCUMENT_DEPTH = 64
#: A run id names rows, threads ("replay-<run id>") and download files: letters, digits, "-", "_" and
#: ".", starting with a letter or digit, at most 128 characters (new_run_id makes "main-<16 hex>").
RUN_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}")

FORMAT = "rag-debugger-run"
FORMAT_VERSION = 1
REDACTED = "[redacted]"
DEMO_RUNS_DIR = DATA_DIR / "demo_runs"
#: How the RAG state is diffed in a replay (same as a live RAG session).
APPEND_FIELDS = ("sub_results",)
NESTED_FIELDS = ("rag_trace",)
#: Where a run recorded by the debugger keeps its steps' measured timings (`debugger.replay.StepTiming`:
#: duration, lanes, model calls) in its result, so a replay draws the same waterfall. Runs recorded before
#: (and runs that failed, which store no result) have none: their replay says so, unless the run used the
#: offline rules (no model calls to show).
STEP_TIMINGS = "step_timings"


class RunDocument(BaseModel):
    """The export format (version 1)."""

    format: Literal["rag-debugger-run"]
    format_version: int
    exported_at: str
    run: RunInfo
    graph: Literal["main", "resume", "graph"]
    """`graph`: a run of a graph of your own (`run.graph_spec`), recorded by `rag.runs.graph_runs`."""
    label: Optional[str] = None
    """A human title (the demo pack sets the demo's label)."""
    head_checkpoint_id: Optional[str] = None
    checkpoints: list[RecordedCheckpoint] = Field(min_length=1)
    progress: list[ProgressStep] = Field(default_factory=list)
    trace: Optional[dict[str, Any]] = None
    result: Optional[dict[str, Any]] = None
    prompt_version: Optional[str] = None
    prompts: Optional[dict[str, str]] = None
    settings: dict[str, Any] = Field(default_factory=dict)
    sha256: str


# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------

def _jsonable(value: Any) -> Any:
    """Plain JSON data (pydantic models dumped, tuples as lists), via one round trip."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=json_default))


def canonical_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def checksum(doc: Mapping[str, Any]) -> str:
    """SHA-256 of the document without its own `sha256` field."""
    body = {k: v for k, v in doc.items() if k != "sha256"}
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


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
    from rag.prompts import ROLES, load_prompts

    try:
        prompts = load_prompts(None if version in (None, "default") else version)
    except Exception:  # noqa: BLE001 - a deleted version must not block an export
        return None
    return {role: prompts.get(role) for role in ROLES}


# ----------------------------------------------------------------------------------------------
# export
# ----------------------------------------------------------------------------------------------

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
            return stored
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
    }
    doc = redact(_jsonable(doc), secret_values(settings))
    doc["sha256"] = checksum(doc)
    return doc


def export_run_json(
    history: RunHistory, run_id: str, graph: Any = None, *, settings: Any = None, label: Optional[str] = None
) -> str:
    """The export as pretty JSON text (what a download button serves)."""
    return json.dumps(export_run(history, run_id, graph, settings=settings, label=label), ensure_ascii=False, indent=1)


# ----------------------------------------------------------------------------------------------
# import
# ----------------------------------------------------------------------------------------------

def load_document(doc: Mapping[str, Any] | str | bytes | Path) -> dict:
    """The raw export dict from a dict, JSON text/bytes or a file path, checked for format and
    checksum (not yet for shape; see `parse_document`)."""
    if isinstance(doc, Path):
        try:
            doc = doc.read_text(encoding="utf-8")
        except OSError as exc:
            raise RunImportError(_("cannot read {path}: {error}").format(path=doc, error=exc.strerror or exc)) from exc
    if isinstance(doc, (bytes, bytearray)):
        try:
            doc = doc.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RunImportError(_("the file is not UTF-8 text; is it a run export?")) from exc
    if isinstance(doc, str):
        try:
            doc = json.loads(doc)
        except RecursionError:
            raise RunImportError(_too_deep()) from None
        except ValueError as exc:
            raise RunImportError(_("the file is not valid JSON ({error}); is it a run export?").format(error=exc)) from exc
    if _depth_over(doc, MAX_DOCUMENT_DEPTH):
        raise RunImportError(_too_deep())
    if not isinstance(doc, Mapping):
        raise RunImportError(_("a run export is a JSON object"))
    if doc.get("format") != FORMAT:
        raise RunImportError(_("not a run export: format is {found}, expected {expected}").format(
            found=repr(doc.get("format")), expected=repr(FORMAT)))
    if doc.get("format_version") != FORMAT_VERSION:
        raise RunImportError(
            _("unsupported export format version {found}; this app reads version {expected}").format(
                found=repr(doc.get("format_version")), expected=FORMAT_VERSION)
        )
    if "sha256" not in doc:
        raise RunImportError(_("the export has no checksum (sha256); it is incomplete or was not made by this app"))
    if checksum(doc) != doc["sha256"]:
        raise RunImportError(_("the export was modified after it was written, or damaged (checksum mismatch: the file "
                               "does not match its integrity check); refusing to replay it"))
    return dict(doc)


def _too_deep() -> str:
    return _("the file nests more than {depth} levels deep; a run export never does, is it one?").format(
        depth=MAX_DOCUMENT_DEPTH)


def _depth_over(value: Any, limit: int) -> bool:
    """True when lists / objects nest deeper than `limit` (iterative: no recursion on hostile input)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, Mapping):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, (Mapping, list)))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, (Mapping, list)))
    return False


def check_run_id(value: Any, field: str = "run.run_id") -> str:
    """`value` when it is a usable run id (see RUN_ID_PATTERN), else RunImportError naming the field."""
    if not isinstance(value, str) or not RUN_ID_PATTERN.fullmatch(value):
        shown = repr(value[:40] + "…" if isinstance(value, str) and len(value) > 40 else value)
        raise RunImportError(_("the export is broken at {field}: {value} is not a run id (1 to 128 letters, digits, "
                               "'-', '_' or '.', starting with a letter or digit)").format(field=field, value=shown))
    return value


def parse_document(doc: Mapping[str, Any] | str | bytes | Path) -> RunDocument:
    """Validate an export (a dict, JSON text or a file path); every failure is a RunImportError
    that says what is wrong."""
    raw = load_document(doc)
    try:
        parsed = RunDocument.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise RunImportError(_("the export is broken at {field}: {problem}").format(
            field=where or _("top level"), problem=first.get("msg"))) from exc
    check_run_id(parsed.run.run_id)
    if parsed.run.parent_run_id is not None:
        check_run_id(parsed.run.parent_run_id, "run.parent_run_id")
    try:
        ReplayStepper(parsed.checkpoints, head=parsed.head_checkpoint_id)
    except Exception as exc:  # noqa: BLE001 - e.g. a head that is not in the list
        raise RunImportError(_("the export's checkpoints cannot be replayed: {error}").format(error=exc)) from exc
    return parsed


def import_run(doc: Mapping[str, Any] | str | bytes | Path, history: RunHistory) -> RunInfo:
    """Validate an export and store it as an `imported` run (replay only).

    Importing the same export twice returns the run already stored; a different run whose id is
    taken gets a new id (its thread id is fresh too, so it never mixes with live checkpoints).
    """
    raw = load_document(doc)
    parsed = parse_document(raw)
    run_id = parsed.run.run_id
    if history.has_run(run_id):
        stored = history.get_document(run_id)
        if stored is not None and stored.get("sha256") == parsed.sha256:
            return history.get_run(run_id)
        run_id = new_run_id("imported")
    info = parsed.run.model_copy(update={"run_id": run_id, "thread_id": f"replay-{run_id}"})
    return history.store_imported(info, raw)


# ----------------------------------------------------------------------------------------------
# replay
# ----------------------------------------------------------------------------------------------

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


# ----------------------------------------------------------------------------------------------
# the shipped demo pack
# ----------------------------------------------------------------------------------------------

class DemoRunInfo(BaseModel):
    file: str
    label: Optional[str] = None
    run_id: str
    kind: str
    question: str
    route: Optional[str] = None
    retrieval_status: Optional[str] = None
    parent_run_id: Optional[str] = None


def list_demo_runs(directory: Optional[Path] = None) -> list[DemoRunInfo]:
    """The recorded demo runs that ship with the app (read headers only; broken files skipped)."""
    folder = directory or DEMO_RUNS_DIR
    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            run = doc["run"]
            out.append(DemoRunInfo(file=path.name, label=doc.get("label"), run_id=run["run_id"], kind=run.get("kind", "main"),
                                   question=run["question"], route=run.get("route"),
                                   retrieval_status=run.get("retrieval_status"),
                                   parent_run_id=run.get("parent_run_id")))
        except (OSError, ValueError, KeyError, TypeError, ValidationError):
            continue
    return out


def import_demo_runs(history: RunHistory, directory: Optional[Path] = None) -> list[RunInfo]:
    """Import every demo run into a history (idempotent)."""
    folder = directory or DEMO_RUNS_DIR
    return [import_run(folder / d.file, history) for d in list_demo_runs(folder)]


__all__ = [
    "FORMAT", "FORMAT_VERSION", "STEP_TIMINGS", "RunDocument", "RunImportError", "export_run", "export_run_json",
    "parse_document",
    "import_run", "load_document", "replay_from_document", "open_replay", "progress_by_step", "redact", "secret_values",
    "DemoRunInfo", "list_demo_runs", "import_demo_runs", "DEMO_RUNS_DIR",
]
