"""The app's run history: one SQLite file per process, opened on first use.

Why a module-level registry and not `st.cache_resource`: the history must be the same object for
every browser session AND for code that runs outside a script run (tests, the debugger's session
objects); `st.cache_resource` is per-app and shared by every AppTest of a test process regardless
of the database path. Here one `RunHistory` is kept per resolved path, so a test that points
`RAG_HISTORY_DB` at its tmp_path gets its own file, and the app gets the same one on every rerun.

Thread safety: `RunHistory` opens its connection with `check_same_thread=False` and routes every
statement through the SqliteSaver's lock, so Streamlit's script threads can share it.

A history that cannot be used (damaged file, unreadable folder), at open or later, is given up for
the rest of the process: `history()` raises, the debugger runs in memory (`ui.streamlit_state`), and
`problem()` is the one notice the pages show. The cause is logged once, not on every rerun.
"""
from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Optional

from rag.runs.history import HistoryDamagedError, RunHistory

log = logging.getLogger("rag_debugger.history")


ENV_DB = "RAG_HISTORY_DB"
DEFAULT_DB = Path.home() / ".cache" / "rag-debugger" / "history.db"

_lock = threading.Lock()
_histories: dict[str, RunHistory] = {}
_problems: dict[str, str] = {}


def db_path() -> Path:
    """The history file: env `RAG_HISTORY_DB`, else `~/.cache/rag-debugger/history.db`."""
    env = os.environ.get(ENV_DB, "").strip()
    return Path(env).expanduser() if env else DEFAULT_DB


def _resolved(path: Optional[str | Path]) -> str:
    return str(Path(path).expanduser().resolve() if path else db_path().resolve())


def history(path: Optional[str | Path] = None) -> RunHistory:
    """The process-wide history for `path` (default `db_path()`), created (with its folder) on
    first use and reused afterwards. Raises (HistoryDamagedError, OSError...) when the file cannot be
    used, and keeps raising for this path once it failed: see `problem()`."""
    resolved = _resolved(path)
    with _lock:
        if resolved in _problems:
            raise HistoryDamagedError(resolved, _problems[resolved])
        found = _histories.get(resolved)
        if found is not None and found.damage:
            _give_up(resolved, found.damage)
            _histories.pop(resolved, None)
            found.close()
            raise HistoryDamagedError(resolved, found.damage)
        if found is None or found._closed:  # noqa: SLF001 - a closed history is reopened, not reused
            try:
                found = RunHistory(resolved)
            except HistoryDamagedError as exc:
                _give_up(resolved, exc.cause)
                raise
            except Exception as exc:  # noqa: BLE001 - e.g. a folder that cannot be created
                _give_up(resolved, f"{type(exc).__name__}: {exc}")
                raise
            _histories[resolved] = found
            abandon_leftovers(found)
        return found


def _give_up(resolved: str, cause: str) -> None:
    _problems[resolved] = cause
    log.error("run history %s is unusable, the debugger runs in memory without recording: %s", resolved, cause)


def problem(path: Optional[str | Path] = None) -> Optional[str]:
    """Why the history at `path` (default `db_path()`) is not used, or None when it is (or was never tried)."""
    resolved = _resolved(path)
    with _lock:
        if resolved in _problems:
            return _problems[resolved]
        found = _histories.get(resolved)
        return found.damage if found is not None else None


def abandon_leftovers(found: RunHistory) -> None:
    """On the first open in this process, every run still `running` was left by a previous
    process (a restart, a killed server): none of them can go on, so they are marked abandoned.
    Limit: two servers sharing one history file mark each other's unfinished runs at start
    (a run that then finishes still records its outcome)."""
    try:
        marked = found.mark_abandoned()
    except Exception:  # noqa: BLE001 - the history is a record; the app starts anyway
        log.warning("could not mark the previous process's unfinished runs abandoned", exc_info=True)
        return
    if marked:
        log.info("marked %d unfinished run(s) of a previous process abandoned", len(marked))


def close_all() -> None:
    """Close every open history (tests; a clean shutdown)."""
    with _lock:
        items = list(_histories.values())
        _histories.clear()
        _problems.clear()
    for item in items:
        item.close()


__all__ = ["ENV_DB", "DEFAULT_DB", "db_path", "history", "problem", "close_all"]
