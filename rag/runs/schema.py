"""The history's own tables, created and migrated on open: versioned, idempotent, for both engines.

Why versioned: a history outlives app versions (a file in the user's home, a team's database), so a
newer app must bring an older one up to date on start instead of failing on a missing column. Each
migration runs once, recorded in `schema_version`; opening an up-to-date history runs none. Version 1 is
the table every history before versioning already had (`CREATE ... IF NOT EXISTS`, so such a file is
adopted as it is); later versions only add.

The DDL differs per engine only where the engines do: PostgreSQL's REAL is single precision (durations
use DOUBLE PRECISION) and it has no `rowid`, so its rows get a `seq` for a stable newest-first order.
LangGraph's checkpoint tables are not here: each saver creates and migrates its own (`setup()`).
"""
from __future__ import annotations

from typing import Callable, Sequence

Engine = str  # "sqlite" | "postgresql"

_RUNS_V1 = """
CREATE TABLE IF NOT EXISTS runs (
    {seq}run_id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    parent_run_id TEXT,
    question TEXT NOT NULL,
    route TEXT,
    retrieval_status TEXT,
    provider TEXT,
    prompt_version TEXT,
    duration_ms {real},
    created_at TEXT NOT NULL,
    finished_at TEXT,
    status TEXT NOT NULL,
    error TEXT,
    origin TEXT NOT NULL DEFAULT 'live',
    progress_json TEXT NOT NULL DEFAULT '[]',
    result_json TEXT,
    settings_json TEXT,
    document_json TEXT
)"""

_FEEDBACK_V4 = """
CREATE TABLE IF NOT EXISTS feedback (
    feedback_id TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    verdict TEXT NOT NULL,
    reason TEXT,
    note TEXT NOT NULL DEFAULT '',
    expected_json TEXT,
    given_by TEXT NOT NULL DEFAULT '',
    given_at TEXT NOT NULL,
    origin TEXT NOT NULL DEFAULT 'given'
)"""
"""One row per person's feedback on a run. No foreign key (SQLite enforces none without a per-connection
pragma): the insert checks that the run exists, and deleting a run deletes its feedback."""
_QUESTION_SETS_V5 = [
    """CREATE TABLE IF NOT EXISTS question_sets (
    set_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 1,
    next_case INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL,
    created_by TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL,
    updated_by TEXT NOT NULL DEFAULT ''
)""",
    "CREATE UNIQUE INDEX IF NOT EXISTS question_sets_name ON question_sets (name_key)",
    """CREATE TABLE IF NOT EXISTS question_set_cases (
    set_id TEXT NOT NULL,
    case_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    version INTEGER NOT NULL DEFAULT 1,
    case_json TEXT NOT NULL,
    from_run TEXT,
    updated_at TEXT NOT NULL,
    updated_by TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (set_id, case_id)
)""",
    "CREATE INDEX IF NOT EXISTS question_set_cases_run ON question_set_cases (from_run)",
]
"""Named question sets beside the history (rag/eval/question_sets.py): a set row with a version that every
change bumps, and one row per case with its own version, so two people's edits are checked, never lost."""

#: (version, what it does, statements per engine). Append only: never edit a released migration.
MIGRATIONS: Sequence[tuple[int, str, dict[Engine, list[str]]]] = (
    (1, "the runs table", {
        "sqlite": [_RUNS_V1.format(seq="", real="REAL"),
                   "CREATE INDEX IF NOT EXISTS runs_created ON runs (created_at)"],
        "postgresql": [_RUNS_V1.format(seq="seq BIGSERIAL,\n    ", real="DOUBLE PRECISION"),
                       "CREATE INDEX IF NOT EXISTS runs_created ON runs (created_at)"],
    }),
    (2, "who ran each run, and on which app server", {
        "sqlite": ["ALTER TABLE runs ADD COLUMN run_by TEXT NOT NULL DEFAULT ''",
                   "ALTER TABLE runs ADD COLUMN server_id TEXT NOT NULL DEFAULT ''",
                   "CREATE INDEX IF NOT EXISTS runs_run_by ON runs (run_by)"],
        "postgresql": ["ALTER TABLE runs ADD COLUMN IF NOT EXISTS run_by TEXT NOT NULL DEFAULT ''",
                       "ALTER TABLE runs ADD COLUMN IF NOT EXISTS server_id TEXT NOT NULL DEFAULT ''",
                       "CREATE INDEX IF NOT EXISTS runs_run_by ON runs (run_by)"],
    }),
    (3, "what-if forks (the edit and the step they forked from) and each run's head checkpoint", {
        "sqlite": ["ALTER TABLE runs ADD COLUMN fork_json TEXT",
                   "ALTER TABLE runs ADD COLUMN head_checkpoint_id TEXT"],
        "postgresql": ["ALTER TABLE runs ADD COLUMN IF NOT EXISTS fork_json TEXT",
                       "ALTER TABLE runs ADD COLUMN IF NOT EXISTS head_checkpoint_id TEXT"],
    }),
    (4, "people's feedback on runs (rag/runs/feedback.py), indexed for Run history's filters", {
        engine: [_FEEDBACK_V4,
                 "CREATE INDEX IF NOT EXISTS feedback_run ON feedback (run_id, verdict)",
                 "CREATE INDEX IF NOT EXISTS feedback_verdict ON feedback (verdict, run_id)",
                 "CREATE UNIQUE INDEX IF NOT EXISTS feedback_person ON feedback (run_id, given_by) WHERE given_by <> ''"]
        for engine in ("sqlite", "postgresql")
    }),
    (5, "named question sets and their cases", {
        "sqlite": _QUESTION_SETS_V5,
        "postgresql": _QUESTION_SETS_V5,
    }),
    (6, "the evaluation a run was recorded for (its cases' runs are marked with its id)", {
        "sqlite": ["ALTER TABLE runs ADD COLUMN eval_id TEXT",
                   "CREATE INDEX IF NOT EXISTS runs_eval ON runs (eval_id)"],
        "postgresql": ["ALTER TABLE runs ADD COLUMN IF NOT EXISTS eval_id TEXT",
                       "CREATE INDEX IF NOT EXISTS runs_eval ON runs (eval_id)"],
    }),
    (7, "runs of a graph of your own: the graph's module:attr", {
        "sqlite": ["ALTER TABLE runs ADD COLUMN graph_spec TEXT"],
        "postgresql": ["ALTER TABLE runs ADD COLUMN IF NOT EXISTS graph_spec TEXT"],
    }),
    (8, "owners (the signed-in identity that made a run, feedback or question set: rag/access.py); one voice per "
        "person counts only feedback given here, never feedback an import carried", {
        engine: [f"ALTER TABLE runs ADD COLUMN {exists}owner TEXT NOT NULL DEFAULT ''",
                 "CREATE INDEX IF NOT EXISTS runs_owner ON runs (owner)",
                 f"ALTER TABLE feedback ADD COLUMN {exists}owner TEXT NOT NULL DEFAULT ''",
                 f"ALTER TABLE question_sets ADD COLUMN {exists}owner TEXT NOT NULL DEFAULT ''",
                 "DROP INDEX IF EXISTS feedback_person",
                 "CREATE UNIQUE INDEX IF NOT EXISTS feedback_person ON feedback (run_id, given_by) "
                 "WHERE given_by <> '' AND origin = 'given'"]
        for engine, exists in (("sqlite", ""), ("postgresql", "IF NOT EXISTS "))
    }),
)

LATEST = MIGRATIONS[-1][0]

_VERSION_TABLE = ("CREATE TABLE IF NOT EXISTS schema_version "
                  "(version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)")


def pending(current: int, engine: Engine) -> list[tuple[int, str, list[str]]]:
    """The migrations a history at `current` still needs, oldest first (a pure rule, tested as a table)."""
    return [(version, what, steps[engine]) for version, what, steps in MIGRATIONS if version > current]


def migrate(execute: Callable[[str, tuple], list[tuple]], engine: Engine, now: str) -> list[int]:
    """Bring the history's tables to `LATEST` through `execute(sql, params)` (one transaction, held by the
    caller, who also keeps two servers from migrating at once). Returns the versions applied."""
    execute(_VERSION_TABLE, ())
    rows = execute("SELECT MAX(version) FROM schema_version", ())
    current = int(rows[0][0] or 0) if rows else 0
    applied = []
    for version, what, statements in pending(current, engine):
        for sql in statements:
            execute(sql, ())
        execute("INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)",
                (version, what, now))
        applied.append(version)
    return applied


