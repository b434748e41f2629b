"""Import a run document into a history as an `imported` run (replay only)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from pydantic import ValidationError

from rag.access import OPERATOR_PERMIT, Permit
from rag.errors import RunImportError
from rag.i18n import _
from rag.runs.document_limits import import_quota_bytes, load_document, parse_loaded
from rag.runs.feedback import Feedback, store_carried
from rag.runs.history import RunHistory
from rag.runs.run_document import checksum
from rag.runs.run_info import RunInfo, new_run_id


def import_run(doc: Mapping[str, Any] | str | bytes | Path, history: RunHistory,
               permit: Permit = OPERATOR_PERMIT) -> RunInfo:
    """Validate an export and store it as an `imported` run (replay only), owned by `permit`'s identity.

    Importing the same export twice returns the run already stored (its carried feedback added beside what the
    run has: `store_carried`); a different run whose id is taken, or one `permit` may not see (someone's private
    run), gets a new id (its thread id is fresh too, so it never mixes with live checkpoints).
    AccessRefused when `permit` may not import. Imported runs share a quota of the history database
    (`RAG_IMPORT_QUOTA_MB`): past it, a RunImportError says so.
    """
    permit.require("import_run")
    raw = load_document(doc)
    parsed = parse_loaded(raw)
    carried = _carried_feedback(raw)
    run_id = parsed.run.run_id
    if history.has_run(run_id):
        stored = history.get_document(run_id)
        if stored is not None and same_run(stored, raw) and permit.allows("view_run", history.get_run(run_id).owner):
            store_carried(history, run_id, carried, owner=permit.owner)  # the same run again: its new feedback
            return history.get_run(run_id)
        run_id = new_run_id("imported")
    info = parsed.run.model_copy(update={"run_id": run_id, "thread_id": f"replay-{run_id}"})
    stored_info = history.store_imported(info, raw, owner=permit.owner, quota_bytes=import_quota_bytes())
    store_carried(history, run_id, carried, owner=permit.owner)
    return stored_info


def same_run(stored: Mapping[str, Any], incoming: Mapping[str, Any]) -> bool:
    """True when two export documents are the same recording, whatever feedback each carries."""
    def body(doc: Mapping[str, Any]) -> dict:
        return {k: v for k, v in doc.items() if k != "feedback"}

    return checksum(body(stored)) == checksum(body(incoming))


def _carried_feedback(raw: Mapping[str, Any]) -> list:
    """The file's feedback, each item checked like feedback given here; a broken one is a RunImportError
    that names it (`feedback.<n>.<field>`)."""
    items = []
    for index, item in enumerate(raw.get("feedback") or []):
        try:
            items.append(Feedback.model_validate({**dict(item), "run_id": "import"}))
        except (ValidationError, TypeError, ValueError) as exc:
            first = exc.errors()[0] if isinstance(exc, ValidationError) else {"loc": (), "msg": str(exc)}
            where = ".".join(["feedback", str(index), *(str(p) for p in first.get("loc", ()))])
            raise RunImportError(_("the export is broken at {field}: {problem}").format(
                field=where, problem=first.get("msg"))) from None
    return items
