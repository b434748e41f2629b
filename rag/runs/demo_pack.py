"""The demo pack: recorded runs that ship with the app (`rag/data/demo_runs`), listed by their headers and
imported into a history on first start."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from pydantic import BaseModel, ValidationError

from rag.runs.history import RunHistory
from rag.runs.importing import import_run
from rag.runs.run_info import RunInfo
from rag.settings import DATA_DIR

DEMO_RUNS_DIR = DATA_DIR / "demo_runs"


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
