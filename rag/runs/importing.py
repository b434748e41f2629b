"""Import a run document into a history as an `imported` run (replay only)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from rag.runs.document_limits import load_document, parse_document
from rag.runs.history import RunHistory
from rag.runs.run_info import RunInfo, new_run_id


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
