"""History queries: list, get, filter by person, delete, and the "abandoned" marking, on any storage.

Why apart from recording (`rag.runs.history_writes`): this is what the history page and the link-opening
code ask; the hot path of a run never goes through it. `mark_abandoned` lives here because it is a
statement about many runs, decided by the app (a restart, a closed tab), not by a run itself.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

from rag.errors import UnknownRunError
from rag.i18n import _
from rag.runs.run_info import COLUMNS, RunInfo, from_row, now_iso
from rag.runs.shared_values import loads_shared
from rag.runs.storage import HistoryStorage

#: The history list's filters as SQL conditions on `runs` (option value -> condition).
FORK_WHERE = {"forks": "fork_json IS NOT NULL", "no_forks": "fork_json IS NULL"}
FEEDBACK_WHERE = {
    "any": "EXISTS (SELECT 1 FROM feedback f WHERE f.run_id=runs.run_id)",
    "wrong": "EXISTS (SELECT 1 FROM feedback f WHERE f.run_id=runs.run_id AND f.verdict='wrong')",
}
#: Runs an evaluation recorded for its cases (`runs.eval_id`, indexed) against every other run.
EVAL_WHERE = {"evals": "eval_id IS NOT NULL", "no_evals": "eval_id IS NULL"}

#: What a light list leaves out: the heavy JSON of each row (a run's result alone is kilobytes).
LIGHT_LEFT_OUT = ("progress_json", "result_json", "settings_json", "document_json")


class HistoryQueries:
    """Reads and housekeeping over one storage."""

    def __init__(self, storage: HistoryStorage):
        self.storage = storage

    def list_runs(self, *, limit: Optional[int] = None, hide_abandoned: bool = False,
                  run_by: Optional[str] = None, offset: int = 0, forks: Optional[str] = None,
                  feedback: Optional[str] = None, evals: Optional[str] = None,
                  light: bool = False, owner: Optional[str] = None) -> list[RunInfo]:
        """Runs, newest first; without the abandoned ones when `hide_abandoned`; only `run_by`'s runs when
        given ("" = runs nobody is named on); `forks` "forks" / "no_forks" keeps only what-if forks / no
        forks; `feedback` "any" / "wrong" keeps runs with feedback / with a `wrong` verdict
        (`rag.runs.feedback`); `evals` "evals" / "no_evals" keeps only / leaves out the runs an evaluation
        recorded for its cases (`eval_id` set). `limit` and `offset` page it; every filter is SQL, so a page never reads
        more rows than it shows. A row's stored export document is not read (`get_document` does); with
        `light`, neither are its progress, result and settings (a list needs none of them: `get_run` has
        them for the one run opened)."""
        where: list[str] = []
        params: list[Any] = []
        if hide_abandoned:
            where.append("status<>'abandoned'")
        if run_by is not None:
            where.append("run_by=?")
            params.append(run_by)
        if owner is not None:  # private runs (rag/access.py): only this owner's
            where.append("owner=?")
            params.append(owner)
        if forks in FORK_WHERE:
            where.append(FORK_WHERE[forks])
        if feedback in FEEDBACK_WHERE:
            where.append(FEEDBACK_WHERE[feedback])
        if evals in EVAL_WHERE:
            where.append(EVAL_WHERE[evals])
        left_out = LIGHT_LEFT_OUT if light else ("document_json",)
        columns = ", ".join("NULL" if c in left_out else c for c in COLUMNS)
        sql = (f"SELECT {columns} FROM runs{' WHERE ' + ' AND '.join(where) if where else ''} "
               f"ORDER BY created_at DESC, {self.storage.order_key} DESC")
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
            if offset:
                sql += " OFFSET ?"
                params.append(int(offset))
        return [from_row(r) for r in self.storage.execute(sql, tuple(params))]

    def eval_runs(self, eval_id: str) -> list[RunInfo]:
        """The runs an evaluation recorded for its cases, oldest first (indexed by `eval_id`)."""
        rows = self.storage.execute(f"SELECT {', '.join(COLUMNS)} FROM runs WHERE eval_id=? "
                                    f"ORDER BY created_at, {self.storage.order_key}", (eval_id,))
        return [from_row(r) for r in rows]

    def people(self, owner: Optional[str] = None) -> list[str]:
        """Everyone named on a run (on `owner`'s runs when given), sorted ("" is left out): the history page's
        person filter."""
        if owner is not None:
            rows = self.storage.execute("SELECT DISTINCT run_by FROM runs WHERE run_by<>'' AND owner=? ORDER BY run_by",
                                        (owner,))
            return [r[0] for r in rows]
        rows = self.storage.execute("SELECT DISTINCT run_by FROM runs WHERE run_by<>'' ORDER BY run_by", ())
        return [r[0] for r in rows]

    def get_run(self, run_id: str) -> RunInfo:
        rows = self.storage.execute(f"SELECT {', '.join(COLUMNS)} FROM runs WHERE run_id=?", (run_id,))
        if not rows:
            raise UnknownRunError(_("no run {run_id} in {location}").format(run_id=repr(run_id),
                                                                           location=self.storage.location))
        return from_row(rows[0])

    def has_run(self, run_id: str) -> bool:
        return bool(self.storage.execute("SELECT 1 FROM runs WHERE run_id=?", (run_id,)))

    def get_document(self, run_id: str) -> Optional[dict]:
        """The export document an imported run was stored from (None for live runs)."""
        rows = self.storage.execute("SELECT document_json FROM runs WHERE run_id=?", (run_id,))
        if not rows:
            raise UnknownRunError(_("no run {run_id} in {location}").format(run_id=repr(run_id),
                                                                           location=self.storage.location))
        return loads_shared(rows[0][0]) if rows[0][0] else None

    def delete_run(self, run_id: str) -> None:
        """Delete the run's row and all checkpoints of its thread."""
        info = self.get_run(run_id)
        shared = self.storage.execute("SELECT COUNT(*) FROM runs WHERE thread_id=? AND run_id<>?",
                                      (info.thread_id, run_id))
        if not shared[0][0]:  # never delete a thread another run still points to
            self.storage.delete_thread(info.thread_id)
        with self.storage.transaction() as execute:  # its feedback goes with it (rag.runs.feedback)
            execute("DELETE FROM feedback WHERE run_id=?", (run_id,))
            execute("DELETE FROM runs WHERE run_id=?", (run_id,))

    def mark_abandoned(self, run_ids: Optional[Iterable[str]] = None, *, at: Optional[str] = None,
                       server_id: Optional[str] = None) -> list[str]:
        """Mark runs that are still `running` as `abandoned`, with `finished_at` = when (now by
        default); `run_ids=None` means every running run, or, with `server_id`, every running run that
        server recorded, and nothing else: a run with no server id is the CLI's `--record`, which may be
        running right now in another process, so a server's start or SIGTERM leaves it alone. Finished or failed runs are left
        alone, so a late or repeated call cannot rewrite an outcome. Returns the ids marked."""
        when = at or now_iso()
        with self.storage.transaction() as execute:  # one transaction: select and update together
            if run_ids is None:
                if server_id is None:
                    rows = execute("SELECT run_id FROM runs WHERE status='running'", ())
                else:
                    rows = execute("SELECT run_id FROM runs WHERE status='running' AND server_id=?",
                                   (server_id,))
            else:
                ids = list(dict.fromkeys(run_ids))
                if not ids:
                    return []
                rows = execute(f"SELECT run_id FROM runs WHERE status='running' AND run_id IN "
                               f"({', '.join('?' for _ in ids)})", tuple(ids))
            found = [row[0] for row in rows]
            if found:
                execute(f"UPDATE runs SET status='abandoned', finished_at=? WHERE status='running' AND run_id IN "
                        f"({', '.join('?' for _ in found)})", (when, *found))
        return found
