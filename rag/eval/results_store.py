"""Evaluation results kept beside the run history: one `eval_runs` table in the same SQLite file.

Why the same file and not the run history's own API: an evaluation is a set of runs seen as one
result (a configuration's summary and its cases), and the history records single runs with their
checkpoints; a table of its own keeps the two apart while one file (the app's `RAG_HISTORY_DB`)
still holds everything a user keeps. Two configurations compared on one set share a `group_id`.

Each statement opens and closes its own connection (a few a page view), so Streamlit's script
threads never share one and the history's own connection is not disturbed.

Owners (rag/access.py), as runs have them: each row records who saved it (the signed-in identity, "" for
nobody: then it is the admins'). Anyone may save a new evaluation, as anyone may record a run; overwriting a
saved one, adding a configuration to another's comparison and deleting are its owner's or an admin's; with
`RAG_RUN_VISIBILITY=owner` the list, the names and a link show each member only their own. A file made before
owners gets the column on open (`_migrate`), its rows owned by nobody.
"""
from __future__ import annotations

import json
import sqlite3
import uuid
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel, Field

from rag.access import OPERATOR_PERMIT, Permit, norm
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
    record TEXT NOT NULL,
    owner TEXT NOT NULL DEFAULT ''
)
"""
OWNER_INDEX = "CREATE INDEX IF NOT EXISTS eval_runs_owner ON eval_runs (owner)"


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
        self._migrate()

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10)

    def _migrate(self) -> None:
        """The table, and on a file made before owners its `owner` column (rows then owned by nobody), under
        one write lock so two servers opening the file together add it once."""
        with closing(self._connect()) as con:
            if "owner" in {row[1] for row in con.execute("PRAGMA table_info(eval_runs)")}:
                return  # up to date: opening writes nothing
            con.isolation_level = None
            con.execute("BEGIN IMMEDIATE")
            try:
                con.execute(SCHEMA)
                columns = {row[1] for row in con.execute("PRAGMA table_info(eval_runs)")}
                if "owner" not in columns:
                    con.execute("ALTER TABLE eval_runs ADD COLUMN owner TEXT NOT NULL DEFAULT ''")
                con.execute(OWNER_INDEX)
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise

    def _missing(self, eval_id: str) -> UnknownRunError:
        return UnknownRunError(_("no evaluation {eval_id} in {location}").format(eval_id=repr(eval_id),
                                                                                 location=self.path))

    @staticmethod
    def _visible(permit: Permit) -> tuple[str, tuple]:
        """A condition on `owner` for what `permit` may see (private evaluations: its own only)."""
        return ("owner = ?", (permit.owner,)) if permit.private_runs else ("1 = 1", ())

    def save(self, record: EvalRecord, *, permit: Permit = OPERATOR_PERMIT) -> EvalRecord:
        """Keep `record`, owned by `permit`'s identity. AccessRefused when it would overwrite a saved evaluation,
        or join another's comparison (its `group_id`), that `permit` may not change (its owner or an admin)."""
        if not record.group_id:
            record = record.model_copy(update={"group_id": record.eval_id})
        permit.require("record_evaluation")
        with closing(self._connect()) as con, con:
            same = con.execute("SELECT owner FROM eval_runs WHERE eval_id = ?", (record.eval_id,)).fetchone()
            if same is not None:
                permit.require("overwrite_evaluation", same[0])
            first = con.execute("SELECT owner FROM eval_runs WHERE group_id = ? AND eval_id <> ? "
                                "ORDER BY created_at, rowid LIMIT 1", (record.group_id, record.eval_id)).fetchone()
            if first is not None and norm(first[0]) != norm(permit.owner):
                permit.require("overwrite_evaluation", first[0])
            owner = same[0] if same is not None else permit.owner  # an overwrite keeps the owner
            con.execute("INSERT OR REPLACE INTO eval_runs (eval_id, group_id, created_at, set_name, label, record, "
                        "owner) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (record.eval_id, record.group_id, record.created_at, record.set_name, record.label,
                         record.model_dump_json(), owner))
        return record

    def owner(self, eval_id: str) -> str:
        """Who saved the evaluation ("" for nobody: the admins'). UnknownRunError when there is none."""
        with closing(self._connect()) as con:
            row = con.execute("SELECT owner FROM eval_runs WHERE eval_id = ?", (eval_id,)).fetchone()
        if row is None:
            raise self._missing(eval_id)
        return str(row[0])

    def get(self, eval_id: str, *, permit: Permit = OPERATOR_PERMIT) -> EvalRecord:
        """UnknownRunError for an evaluation not kept here, or one `permit` may not see (the same words)."""
        visible, params = self._visible(permit)
        with closing(self._connect()) as con:
            row = con.execute(f"SELECT record FROM eval_runs WHERE eval_id = ? AND {visible}",
                              (eval_id, *params)).fetchone()
        if row is None:
            raise self._missing(eval_id)
        return EvalRecord.model_validate_json(row[0])

    def group(self, group_id: str, *, permit: Permit = OPERATOR_PERMIT) -> list[EvalRecord]:
        """The configurations of one evaluation that `permit` may see, in the order they were saved."""
        visible, params = self._visible(permit)
        with closing(self._connect()) as con:
            rows = con.execute(f"SELECT record FROM eval_runs WHERE group_id = ? AND {visible} "
                               "ORDER BY created_at, rowid", (group_id, *params)).fetchall()
        return [EvalRecord.model_validate_json(r[0]) for r in rows]

    def groups(self, limit: int = 50, *, permit: Permit = OPERATOR_PERMIT) -> list[tuple[str, str, str, list[str]]]:
        """(group_id, created_at, set_name, labels) of the evaluations `permit` may see, newest first."""
        visible, params = self._visible(permit)
        with closing(self._connect()) as con:
            rows = con.execute("SELECT group_id, MIN(created_at), set_name, GROUP_CONCAT(label, ' vs ') "
                               f"FROM eval_runs WHERE {visible} GROUP BY group_id "
                               "ORDER BY MIN(created_at) DESC, MAX(rowid) DESC LIMIT ?", (*params, limit)).fetchall()
        return [(g, c, s, (labels or "").split(" vs ")) for g, c, s, labels in rows]

    def names(self, eval_ids: list[str], *, permit: Permit = OPERATOR_PERMIT) -> dict[str, tuple[str, str]]:
        """eval_id -> (set name, configuration label) of the evaluations kept here that `permit` may see, in
        one query: Run history names the evaluation each of its page's runs belongs to (an id not kept is
        left out)."""
        ids = list(dict.fromkeys(i for i in eval_ids if i))
        if not ids:
            return {}
        visible, params = self._visible(permit)
        with closing(self._connect()) as con:
            rows = con.execute(f"SELECT eval_id, set_name, label FROM eval_runs WHERE {visible} AND eval_id IN "
                               f"({', '.join('?' for _ in ids)})", (*params, *ids)).fetchall()
        return {e: (s, label) for e, s, label in rows}

    def delete_group(self, group_id: str, *, permit: Permit = OPERATOR_PERMIT) -> None:
        """Delete an evaluation (all its configurations). UnknownRunError when `permit` sees none of it;
        AccessRefused unless `permit` may delete every configuration in it (their owner or an admin)."""
        visible, params = self._visible(permit)
        with closing(self._connect()) as con, con:
            owners = {str(r[0]) for r in con.execute("SELECT owner FROM eval_runs WHERE group_id = ?", (group_id,))}
            seen = con.execute(f"SELECT 1 FROM eval_runs WHERE group_id = ? AND {visible} LIMIT 1",
                               (group_id, *params)).fetchone()
            if not owners or seen is None:
                raise self._missing(group_id)
            for owner in sorted(owners):
                permit.require("delete_evaluation", owner)
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
