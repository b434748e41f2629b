"""The app's run history: one per process, opened on first use: an SQLite file (the default), or a
PostgreSQL database a team's app servers share (`RAG_HISTORY_URL=postgresql://...`).

Why a module-level registry and not `st.cache_resource`: the history must be the same object for
every browser session AND for code that runs outside a script run (tests, the debugger's session
objects); `st.cache_resource` is per-app and shared by every AppTest of a test process regardless
of the database path. Here one `RunHistory` is kept per resolved path, so a test that points
`RAG_HISTORY_DB` at its tmp_path gets its own file, and the app gets the same one on every rerun.

Thread safety: both engines are shared by Streamlit's script threads (SQLite: one connection with
`check_same_thread=False` behind the saver's lock; PostgreSQL: a connection pool).

A history that cannot be used (damaged file, unreadable folder, a database that is down or refuses
the login), at open or later, is given up for the rest of the process: `history()` raises, the
debugger runs in memory (`rag_debugger.ui.streamlit_state`), and `problem()` is the one notice the pages show.
The cause is logged once, not on every rerun. A database is tried again (`retry_seconds()` after it
failed, on the next page a visitor opens or reruns), so the history comes back by itself when the database
answers again, also when it was down at start; reopening marks this server's runs the outage cut short
abandoned (`abandon_leftovers`). A database URL is only ever shown or logged through
`location()` (without its password).

Which server: every run is stamped with `server_id()`, stable across restarts of one server
(`RAG_SERVER_ID`, else host name and port), so on a shared database a server that starts marks only
its own leftovers abandoned, never the runs another server is stepping right now.
"""
from __future__ import annotations

import logging
import os
import socket
import threading
import time
from pathlib import Path
from typing import Optional

from rag.errors import HistoryDamagedError, HistoryUnavailableError
from rag.redaction import redact_url
from rag.runs.history import RunHistory
from rag.runs.location import db_path, history_url
from rag.runs.storage import is_database_url

log = logging.getLogger("rag_debugger.history")


ENV_SERVER = "RAG_SERVER_ID"
ENV_RETRY = "RAG_HISTORY_RETRY_S"

_lock = threading.Lock()
_histories: dict[str, RunHistory] = {}
_problems: dict[str, str] = {}
_given_up_at: dict[str, float] = {}


def retry_seconds() -> float:
    """How long after a failure a database is tried again: env `RAG_HISTORY_RETRY_S`, else 10 s (a try
    against a host that does not answer costs a page up to the connect timeout)."""
    try:
        return max(0.0, float(os.environ.get(ENV_RETRY, "") or 10))
    except ValueError:
        return 10.0


def _resolved(path: Optional[str | Path]) -> str:
    if path is None and history_url():
        return str(history_url())
    if is_database_url(path):
        return str(path).strip()
    return str(Path(path).expanduser().resolve() if path else db_path().resolve())


def location(path: Optional[str | Path] = None) -> str:
    """Where the history is, safe to show and log: the file, or the database URL without its password."""
    resolved = _resolved(path)
    return (redact_url(resolved) or "") if is_database_url(resolved) else resolved


def shown(where: str) -> str:
    """How a page names the history (pure): a database by its URL without credentials, a file by its
    name only. A page is seen by every visitor; the server's folders are for the README and the log."""
    return (redact_url(where) or "") if is_database_url(where) else (Path(where).name or where)


def shown_location(path: Optional[str | Path] = None) -> str:
    return shown(location(path))


def is_shared(path: Optional[str | Path] = None) -> bool:
    return is_database_url(_resolved(path))


def server_id() -> str:
    """This app server's name on the runs it records: `RAG_SERVER_ID`, else host name and Streamlit port."""
    env = os.environ.get(ENV_SERVER, "").strip()
    if env:
        return env[:200]
    try:
        from streamlit import config

        port = config.get_option("server.port")
    except Exception:  # noqa: BLE001 - outside Streamlit: the host alone
        port = None
    return f"{socket.gethostname()}:{port}" if port else socket.gethostname()


def _unusable(resolved: str, cause: str) -> HistoryDamagedError:
    if is_database_url(resolved):
        return HistoryUnavailableError(location(resolved), cause)
    return HistoryDamagedError(resolved, cause)


def history(path: Optional[str | Path] = None) -> RunHistory:
    """The process-wide history for `path` (default: `RAG_HISTORY_URL`, else `db_path()`), created (with its folder) on
    first use and reused afterwards. Raises (HistoryDamagedError, OSError...) when the file cannot be
    used, and keeps raising for this path once it failed (a database: until a retry answers, see
    `retry_seconds()`): see `problem()`."""
    resolved = _resolved(path)
    with _lock:
        retrying = resolved in _problems
        if retrying and not (is_database_url(resolved)
                             and time.monotonic() - _given_up_at.get(resolved, 0.0) >= retry_seconds()):
            raise _unusable(resolved, _problems[resolved])
        found = _histories.get(resolved)
        if found is not None and found.damage:
            _give_up(resolved, found.damage)
            _histories.pop(resolved, None)
            found.close()
            raise _unusable(resolved, found.damage)
        if found is None or found._closed:  # noqa: SLF001 - a closed history is reopened, not reused
            try:
                found = RunHistory(resolved, server_id=server_id())
            except HistoryDamagedError as exc:
                _give_up(resolved, exc.cause, quiet=retrying)
                raise
            except Exception as exc:  # noqa: BLE001 - e.g. a folder that cannot be created
                from rag.redaction import redact_urls_in_text

                _give_up(resolved, redact_urls_in_text(f"{type(exc).__name__}: {exc}"), quiet=retrying)
                raise
            if retrying:
                _problems.pop(resolved, None)
                log.warning("run history %s answers again; runs are recorded again", location(resolved))
            _histories[resolved] = found
            abandon_leftovers(found)
        return found


def _give_up(resolved: str, cause: str, *, quiet: bool = False) -> None:
    _problems[resolved] = cause
    _given_up_at[resolved] = time.monotonic()
    if quiet:  # a retry that failed again: logged once already
        log.debug("run history %s still unusable: %s", location(resolved), cause)
        return
    log.error("run history %s is unusable, the debugger runs in memory without recording: %s", location(resolved),
              cause)


def problem(path: Optional[str | Path] = None) -> Optional[str]:
    """Why the history at `path` (default `db_path()`) is not used, or None when it is (or was never tried)."""
    resolved = _resolved(path)
    with _lock:
        if resolved in _problems:
            return _problems[resolved]
        found = _histories.get(resolved)
        return found.damage if found is not None else None


def abandon_leftovers(found: RunHistory) -> None:
    """On the first open in this process, every run of this server still `running` was left by its
    previous process (a restart, a killed server): none of them can go on, so they are marked
    abandoned. Only this server's (`server_id()`): on a shared database another server may be stepping
    its runs right now. Limit: a server that never comes back leaves its unfinished runs `running`."""
    try:
        marked = found.mark_abandoned(server_id=found.server_id)
    except Exception:  # noqa: BLE001 - the history is a record; the app starts anyway
        log.warning("could not mark the previous process's unfinished runs abandoned", exc_info=True)
        return
    if marked:
        log.info("marked %d unfinished run(s) of a previous process abandoned", len(marked))


def open_histories() -> list[RunHistory]:
    """The histories this process has open (the shutdown watcher marks and sweeps them: rag_debugger/ui/shutdown.py)."""
    with _lock:
        return [found for found in _histories.values() if not found._closed]  # noqa: SLF001


def close_all() -> None:
    """Close every open history (tests; a clean shutdown)."""
    with _lock:
        items = list(_histories.values())
        _histories.clear()
        _problems.clear()
        _given_up_at.clear()
    for item in items:
        item.close()


__all__ = ["ENV_SERVER", "location", "is_shared",
           "server_id", "history", "problem", "open_histories", "close_all"]
