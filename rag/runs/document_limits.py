"""Reading a run document from outside: a dict, JSON text or bytes, or a file, checked for its format,
its checksum and its shape before anything uses it. Every failure is a `RunImportError` that says
what is wrong.

Hostile files: nesting deeper than `MAX_DOCUMENT_DEPTH` and run ids outside `RUN_ID_PATTERN` are
refused like any other broken file (the parser would otherwise exhaust its recursion, and a run id
names rows, threads and download files).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Mapping

from pydantic import ValidationError

from rag.errors import RunImportError
from rag.i18n import _
from rag.runs.run_document import FORMAT, FORMAT_VERSION, RunDocument, checksum
from rag_debugger.debugger.replay import ReplayStepper

#: Real exports nest about 12 levels deep (state -> trace -> sub-traces -> chunks); far deeper input
#: is not an export, and nesting thousands deep would exhaust the parser's recursion instead.
MAX_DOCUMENT_DEPTH = 64
#: A run id names rows, threads ("replay-<run id>") and download files: letters, digits, "-", "_" and
#: ".", starting with a letter or digit, at most 128 characters (new_run_id makes "main-<16 hex>").
RUN_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}")


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
