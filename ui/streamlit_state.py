"""Streamlit bindings: the per-browser-session objects and the error guard.

Settings entered in the browser (model endpoint, key) live in this session's memory only: never
written to disk, never logged, never shown back.
"""
from __future__ import annotations

import logging
from typing import Any, Callable

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException

from rag.settings import RagSettings
from ui.panels.icons import MATERIAL
from ui.session import DebugSession, UserInputError

log = logging.getLogger("rag_debugger.ui")

SESSION_KEY = "debug_session"
OVERRIDES_KEY = "settings_overrides"
FLASH_KEY = "flash_message"


def settings_overrides() -> dict:
    return st.session_state.setdefault(OVERRIDES_KEY, {})


def current_settings() -> RagSettings:
    """Environment settings with this browser session's overrides."""
    try:
        return RagSettings(**settings_overrides())
    except Exception as exc:  # noqa: BLE001 - a bad override must not lock the user out
        flash("error", f"Settings were not valid and were reset: {friendly(exc)}")
        st.session_state[OVERRIDES_KEY] = {}
        return RagSettings()


def get_session() -> DebugSession:
    session = st.session_state.get(SESSION_KEY)
    if session is None:
        session = DebugSession(current_settings(), checkpointer=shared_checkpointer(), history=shared_history())
        st.session_state[SESSION_KEY] = session
    return session


def reset_session() -> DebugSession:
    st.session_state.pop(SESSION_KEY, None)
    return get_session()


def shared_history() -> Any:
    """The process-wide run history (`ui.history_store`), or None when it cannot be opened (the
    debugger still works, in memory, without recording)."""
    try:
        from ui.history_store import history

        return history()
    except Exception:  # noqa: BLE001 - history is optional; memory still lets people debug
        log.warning("run history unavailable; using an in-memory checkpointer", exc_info=True)
        return None


def shared_checkpointer() -> Any:
    """The process-wide checkpointer: the run history's SQLite file when available (runs survive
    restarts), else memory. Keyed by the history file, so a test that points RAG_HISTORY_DB
    elsewhere gets its own checkpointer even though `st.cache_resource` is process-wide."""
    found = shared_history()
    return found.checkpointer if found is not None else _memory_checkpointer()


@st.cache_resource(show_spinner=False)
def _memory_checkpointer() -> Any:
    from langgraph.checkpoint.memory import InMemorySaver

    return InMemorySaver()


def friendly(exc: BaseException) -> str:
    """A one-line message for people: the exception's own text, never a traceback."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:500]


def flash(kind: str, message: str) -> None:
    """A message that survives the rerun a callback triggers."""
    st.session_state[FLASH_KEY] = (kind, message)


def show_flash() -> None:
    item = st.session_state.pop(FLASH_KEY, None)
    if item:
        kind, message = item
        getattr(st, kind, st.info)(message)


def guarded(fn: Callable, *args, **kwargs) -> Any:
    """Run a UI action; user errors become a message, unexpected errors a short apology. Never a
    traceback in the browser (the full error goes to the server log)."""
    try:
        return fn(*args, **kwargs)
    except ScriptControlException:
        raise
    except UserInputError as exc:
        flash("warning", str(exc))
    except ValueError as exc:
        flash("warning", friendly(exc))
    except Exception as exc:  # noqa: BLE001
        log.exception("UI action failed")
        flash("error", f"Something went wrong: {friendly(exc)}. The run was kept; you can restart it.")
    return None


def provider_banner() -> None:
    settings = current_settings()
    if not settings.models_configured():
        st.sidebar.info(
            "**Offline mode** — the planner, grader and rewriter are deterministic rules, not a model. "
            "Connect an OpenAI-compatible endpoint on the Settings page.",
            icon=MATERIAL["offline"],
        )
    else:
        st.sidebar.success(f"Model: {settings.provider_label()}", icon=MATERIAL["model"])


def guarded_page(render: Callable[[], Any]) -> None:
    """Last line of defence for a whole page: a readable message instead of a traceback."""
    try:
        render()
    except ScriptControlException:
        raise
    except Exception as exc:  # noqa: BLE001
        log.exception("page failed")
        st.error(f"This page hit an unexpected error: {friendly(exc)}. Your session is kept; try again or restart the run.")


def run_page(render: Callable[[], Any]) -> None:
    """What every page does: the provider banner, then its body behind the error guard. Pages call
    it themselves (not app.py) so a page renders the same when opened directly."""
    from ui.navigation import page_frame

    page_frame()
    provider_banner()
    guarded_page(render)
