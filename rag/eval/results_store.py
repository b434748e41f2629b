"""Evaluation results kept beside the run history: one `eval_runs` table in the same SQLite file.

Why the same file and not the run history's own API: an evaluation is a set of runs seen as one
result (a configuration's summary and its cases), and the history records single runs with their
checkpoints; a table of its own keeps the two apart while one file (the app's `RAG_HISTORY_DB`)
still holds everything a user keeps. Two configurations compared on one set share a `group_id`.

Each statement opens and closes its own connection (a few a page view), so Streamlit's script
threads never share one and the history's own connection is not disturbed.
"""
from __future__ import annotations

import json
import sqlite3
import uuid
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel, Field

from rag.errors import UnknownRunError
from rag.eval.scoring import CaseResult, summary
from rag.i18n import _

SCHEMA = """
CREATE TABLE IF NOT EXISTS eval_runs (
    eval_id TEXT PRIMARY KEY,
    group_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    set_name TEXT NOT NULL,
    label TEXT NOT NULL,
    record TEXT NOT NULL
)
"""


class EvalRecord(BaseModel):
    """One configuration's run of one set: what was run, on what, and every case's result."""

    eval_id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    group_id: str = ""
    created_at: str = Field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))
    set_name: str
    kb: str = "bundled"
    label: str
    provider: str = ""
    config: dict = Field(default_factory=dict)
    summary: dict = Field(default_factory=dict)
    cases: list[dict] = Field(default_factory=list)

    @classmethod
    def from_results(cls, results: list[CaseResult], **fields) -> "EvalRecord":
        return cls(summary=summary(results), cases=[r.to_dict() for r in results], **fields)

    def results(self) -> list[CaseResult]:
        return [CaseResult.from_dict(c) for c in self.cases]


class EvalStore:
    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(self._connect()) as con, con:
            con.execute(SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10)

    def save(self, record: EvalRecord) -> EvalRecord:
        if not record.group_id:
            record = record.model_copy(update={"group_id": record.eval_id})
        with closing(self._connect()) as con, con:
            con.execute("INSERT OR REPLACE INTO eval_runs VALUES (?, ?, ?, ?, ?, ?)",
                        (record.eval_id, record.group_id, record.created_at, record.set_name, record.label,
                         record.model_dump_json()))
        return record

    def get(self, eval_id: str) -> EvalRecord:
        with closing(self._connect()) as con:
            row = con.execute("SELECT record FROM eval_runs WHERE eval_id = ?", (eval_id,)).fetchone()
        if row is None:
            raise UnknownRunError(_("no evaluation {eval_id} in {location}").format(eval_id=repr(eval_id), location=self.path))
        return EvalRecord.model_validate_json(row[0])

    def group(self, group_id: str) -> list[EvalRecord]:
        """The configurations of one evaluation, in the order they were saved."""
        with closing(self._connect()) as con:
            rows = con.execute("SELECT record FROM eval_runs WHERE group_id = ? ORDER BY created_at, rowid",
                               (group_id,)).fetchall()
        return [EvalRecord.model_validate_json(r[0]) for r in rows]

    def groups(self, limit: int = 50) -> list[tuple[str, str, str, list[str]]]:
        """(group_id, created_at, set_name, labels), newest first."""
        with closing(self._connect()) as con:
            rows = con.execute("SELECT group_id, MIN(created_at), set_name, GROUP_CONCAT(label, ' vs ') "
                               "FROM eval_runs GROUP BY group_id ORDER BY MIN(created_at) DESC, MAX(rowid) DESC "
                               "LIMIT ?", (limit,)).fetchall()
        return [(g, c, s, (labels or "").split(" vs ")) for g, c, s, labels in rows]

    def names(self, eval_ids: list[str]) -> dict[str, tuple[str, str]]:
        """eval_id -> (set name, configuration label) of the evaluations kept here, in one query: Run
        history names the evaluation each of its page's runs belongs to (an id not kept is left out)."""
        ids = list(dict.fromkeys(i for i in eval_ids if i))
        if not ids:
            return {}
        with closing(self._connect()) as con:
            rows = con.execute(f"SELECT eval_id, set_name, label FROM eval_runs WHERE eval_id IN "
                               f"({', '.join('?' for _ in ids)})", tuple(ids)).fetchall()
        return {e: (s, label) for e, s, label in rows}

    def delete_group(self, group_id: str) -> None:
        with closing(self._connect()) as con, con:
            con.execute("DELETE FROM eval_runs WHERE group_id = ?", (group_id,))


def export_json(records: list[EvalRecord]) -> str:
    return json.dumps({"format": "rag-eval-results", "format_version": 1,
                       "configurations": [r.model_dump() for r in records]}, ensure_ascii=False, indent=2)


CSV_COLUMNS = ["configuration", "id", "question", "expected_route", "route", "correct", "asked_route",
               "source_hit", "reciprocal_rank", "latency_ms", "tags", "sources", "error", "from_run", "verdict"]
"""`from_run` and `verdict` last: a sheet made from an older export keeps its column letters."""


def export_csv(records: list[EvalRecord]) -> str:
    """One row per case and configuration (a spreadsheet pivots it)."""
    from rag.spreadsheet import csv_text

    rows = [CSV_COLUMNS]
    for record in records:
        for case in record.cases:
            rows.append([record.label, case["id"], case["question"], case["expected_route"] or "",
                         case["route"] or "", case["correct"], case.get("asked_route") or "",
                         case["source_hit"], case["reciprocal_rank"], case["latency_ms"],
                         ";".join(case["tags"]), ";".join(case["sources"]), case["error"] or "",
                         case.get("from_run") or "", case.get("verdict") or ""])
    return csv_text(rows)


__all__ = ["EvalRecord", "EvalStore", "export_json", "export_csv", "CSV_COLUMNS"]
