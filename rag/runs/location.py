"""Where the configured run history is, for command-line tools (the app has its own process-wide
handle in `ui.history_store`, which reads the same variables)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

DEFAULT_DB = Path.home() / ".cache" / "rag-debugger" / "history.db"


def configured_history() -> Optional[str]:
    """`RAG_HISTORY_URL` (a team's PostgreSQL), else `RAG_HISTORY_DB`, else the default file when it
    exists; None when there is no history to read."""
    url = os.environ.get("RAG_HISTORY_URL", "").strip()
    if url:
        return url
    env = os.environ.get("RAG_HISTORY_DB", "").strip()
    path = Path(env).expanduser() if env else DEFAULT_DB
    return str(path) if path.exists() else None
