"""Reading a run document from outside: a dict, JSON text or bytes, or a file, checked for its format,
its checksum and its shape before anything uses it. Every failure is a `RunImportError` that says
what is wrong.

Hostile files: nesting deeper than `MAX_DOCUMENT_DEPTH` and run ids outside `RUN_ID_PATTERN` are
refused like any other broken file (the parser would otherwise exhaust its recursion, and a run id
names rows, threads and download files). So is a file with more objects, lists or values than any export
has (`MAX_DOCUMENT_CONTAINERS`, `MAX_DOCUMENT_VALUES`), counted on the text BEFORE it is parsed: 45 MB of
`{}` is fifteen million Python dicts (2.1 GB), while the count needs no more memory than the text itself.
"""
from __future__ import annotations

import json
import os
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
#: Objects and lists in one export: a real one has about 2.5 per KB (a 350 KB export: 850), so a 50 MB
#: export has about 125,000. Each parsed container costs 60-200 bytes whatever its text.
MAX_DOCUMENT_CONTAINERS = 250_000
#: Values (object members and list items) in one export: a real one has about 15 per KB, so a 50 MB
#: export about 750,000. Each parsed value costs 30-100 bytes even when its text is one character.
MAX_DOCUMENT_VALUES = 1_000_000
#: Room for imported runs in the history database, in MB (`RAG_IMPORT_QUOTA_MB`; 0 turns the quota off).
DEFAULT_IMPORT_QUOTA_MB = 1024.0
#: A JSON string, escapes included (the unrolled form: no backtracking on long strings).
_STRING_BYTES = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_STRING_TEXT = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')


def import_quota_bytes() -> int | None:
    """The history's room for imported runs (`RAG_IMPORT_QUOTA_MB`), in bytes; None when turned off."""
    raw = os.environ.get("RAG_IMPORT_QUOTA_MB", "").strip()
    try:
        megabytes = float(raw) if raw else DEFAULT_IMPORT_QUOTA_MB
    except ValueError:
        megabytes = DEFAULT_IMPORT_QUOTA_MB
    return None if megabytes <= 0 else int(megabytes * 1024 * 1024)


def check_structure(text: str | bytes) -> None:
    """Refuse JSON text with more containers or values than an export has, before parsing it: counted on
    the text with the strings' own brackets and commas left out, in memory no larger than one string."""
    if isinstance(text, (bytes, bytearray)):
        pattern, marks = _STRING_BYTES, (b"{", b"[", b",")
    else:
        pattern, marks = _STRING_TEXT, ("{", "[", ",")  # type: ignore[assignment]
    opens = text.count(marks[0]) + text.count(marks[1])  # type: ignore[arg-type]
    commas = text.count(marks[2])  # type: ignore[arg-type]
    if opens <= MAX_DOCUMENT_CONTAINERS and commas + opens <= MAX_DOCUMENT_VALUES:
        return  # within the caps even if every bracket and comma counted
    for match in pattern.finditer(text):  # type: ignore[arg-type]
        inside = match.group(0)
        opens -= inside.count(marks[0]) + inside.count(marks[1])
        commas -= inside.count(marks[2])
    if opens > MAX_DOCUMENT_CONTAINERS or commas + opens > MAX_DOCUMENT_VALUES:
        raise RunImportError(_("the file holds more objects or values than a run export has ({containers} objects "
                               "and lists, about {values} values; at most {max_containers} and {max_values}); is it "
                               "a run export?").format(containers=f"{opens:,}", values=f"{commas + opens:,}",
                                                       max_containers=f"{MAX_DOCUMENT_CONTAINERS:,}",
                                                       max_values=f"{MAX_DOCUMENT_VALUES:,}"))


def load_document(doc: Mapping[str, Any] | str | bytes | Path) -> dict:
    """The raw export dict from a dict, JSON text/bytes or a file path, checked for format and
    checksum (not yet for shape; see `parse_document`)."""
    if isinstance(doc, Path):
        try:
            doc = doc.read_text(encoding="utf-8")
        except OSError as exc:
            raise RunImportError(_("cannot read {path}: {error}").format(path=doc, error=exc.strerror or exc)) from exc
    if isinstance(doc, (bytes, bytearray)):
        check_structure(doc)
        try:
            doc = doc.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RunImportError(_("the file is not UTF-8 text; is it a run export?")) from exc
    if isinstance(doc, str):
        check_structure(doc)
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
    return parse_loaded(load_document(doc))


def parse_loaded(raw: Mapping[str, Any]) -> RunDocument:
    """`parse_document` for what `load_document` returned (its checksum is not computed twice)."""
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
