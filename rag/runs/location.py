"""Where the configured run history is: the one reading of `RAG_HISTORY_URL` / `RAG_HISTORY_DB`, shared by
the app's process-wide handle (`rag_debugger.ui.history_store`) and the command-line tools."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

ENV_DB = "RAG_HISTORY_DB"
ENV_URL = "RAG_HISTORY_URL"
DEFAULT_DB = Path.home() / ".cache" / "rag-debugger" / "history.db"


def db_path() -> Path:
    """The history file: env `RAG_HISTORY_DB`, else `~/.cache/rag-debugger/history.db`."""
    env = os.environ.get(ENV_DB, "").strip()
    return Path(env).expanduser() if env else DEFAULT_DB


def history_url() -> Optional[str]:
    """The shared database (env `RAG_HISTORY_URL`), or None for the SQLite file."""
    return os.environ.get(ENV_URL, "").strip() or None


def configured_history() -> Optional[str]:
    """For a command that reads the history: the database URL, else the file when it exists; None when there
    is no history to read (a command must not create an empty one)."""
    url = history_url()
    if url:
        return url
    path = db_path()
    return str(path) if path.exists() else None
