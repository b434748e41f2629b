"""An evaluation whose cases' runs are recorded in the run history, and kept in the evaluation store
beside it: what the Evaluate page always does and `python -m rag.eval --record` does when asked.

Why one object for both: the page and the CLI must mark runs and save results the same way, so a
CLI evaluation opens on the page with the same links. Each configuration gets its own evaluation id
(the `eval_id` its runs carry, `rag.eval.results_store.EvalRecord.eval_id`); the configurations of one
comparison share the group id of the first, as the store already keeps them.
"""
from __future__ import annotations

import uuid
from typing import Any, Optional, Sequence

from rag.access import OPERATOR_PERMIT, Permit
from rag.eval.cases import EvalCase
from rag.eval.results_store import EvalRecord, EvalStore
from rag.eval.scoring import CaseResult
from rag.settings import RagSettings


class RecordedEvaluation:
    def __init__(self, history: Any, store: EvalStore, *, set_name: str, kb: str, run_by: str = "",
                 owns_history: bool = False, owner: str = "", permit: Permit = OPERATOR_PERMIT):
        self.history, self.store = history, store
        self.permit = permit
        """Who saves the results (rag/access.py): the store refuses joining or overwriting another's."""
        self.set_name, self.kb, self.run_by = set_name, kb, run_by
        self.owner = owner
        """Who owns the case runs (rag/access.py): the signed-in identity, "" for nobody."""
        self.group_id = ""
        self.records: list[EvalRecord] = []
        self._owns = owns_history

    @classmethod
    def open_configured(cls, *, set_name: str, kb: str) -> "RecordedEvaluation":
        """On the configured history (`RAG_HISTORY_URL`, else `RAG_HISTORY_DB` or the default file,
        created when missing) and the evaluation store in the history file. An unusable history raises
        the history's own error (HistoryDamagedError / HistoryUnavailableError), which says why."""
        from rag.runs.history import RunHistory
        from rag.runs.location import db_path, history_url

        history = RunHistory(history_url() or db_path())
        try:
            store = EvalStore(db_path())
        except Exception:
            history.close()
            raise
        return cls(history, store, set_name=set_name, kb=kb, owns_history=True)

    @property
    def location(self) -> str:
        """Where the runs are, safe to print (a database URL without its password)."""
        return self.history.location

    @property
    def runs(self) -> int:
        """How many runs this evaluation recorded (a case answered through HITL is two)."""
        return sum(len(self.history.eval_runs(r.eval_id)) for r in self.records)

    def run(self, label: str, cases: Sequence[EvalCase], settings: RagSettings, *, config: Optional[dict] = None,
            **options: Any) -> list[CaseResult]:
        """One configuration: every case recorded as a run of a new evaluation id, then the results
        saved under this evaluation's group. `options` go to `rag.eval.runner.run_cases`."""
        from rag.eval.runner import run_cases

        eval_id = uuid.uuid4().hex[:12]
        results = run_cases(cases, settings, history=self.history, eval_id=eval_id, run_by=self.run_by, **options)
        if self.owner:  # one statement for every case run (indexed by eval_id), not an owner threaded through each
            self.history.storage.execute("UPDATE runs SET owner=? WHERE eval_id=?", (self.owner, eval_id))
        record = EvalRecord.from_results(results, eval_id=eval_id, set_name=self.set_name, kb=self.kb, label=label,
                                         provider=settings.provider_label(), group_id=self.group_id,
                                         config=dict(config or {}))
        record = self.store.save(record, permit=self.permit)
        self.group_id = record.group_id
        self.records.append(record)
        return results

    def close(self) -> None:
        if self._owns:
            self.history.close()


__all__ = ["RecordedEvaluation"]
