"""The run history page: every recorded run (live debugger runs, imported files, the demo pack),
opened in the step debugger as a replay, exported as one JSON file, imported, deleted.

Why replay for every run, even live ones: opening a run must never execute anything (no model
call, no retrieval), so what a stakeholder sees is exactly what was recorded.
"""
from __future__ import annotations

from typing import Optional

import pandas as pd
import streamlit as st

from rag.runs.history import RunHistory, RunInfo
from ui.panels.icons import MATERIAL
from ui.panels.time_travel import reset_time_travel
from ui.streamlit_state import current_settings, flash, friendly, get_session, guarded, show_flash
from ui.text import as_text

RUN_KEY = "history_run"
AT_STEP_KEY = "history_at_step"
UPLOAD_KEY = "history_upload"
CONFIRM_KEY = "history_confirm_delete"
GOTO_KEY = "history_goto_debugger"
HIDE_ABANDONED_KEY = "history_hide_abandoned"
PERSON_FILTER_KEY = "history_run_by"
EVERYONE = "Everyone"
NOBODY = "(no name)"
MAX_UPLOAD_BYTES = 50 * 1024 * 1024
RUN_COLUMNS = ["question", "route", "status", "run by", "provider", "prompt version", "duration (ms)", "date",
               "kind", "origin", "run id"]


def _store() -> RunHistory:
    from ui.history_store import history

    return history()


def _date(iso: Optional[str]) -> str:
    return (iso or "")[:19].replace("T", " ")


def runs_frame(runs: list[RunInfo]) -> pd.DataFrame:
    """One row per run, newest first (the order `list_runs` gives)."""
    rows = [
        {
            "question": r.question[:200],
            "route": r.route or "",
            "status": r.status,
            "run by": r.run_by,
            "provider": r.provider or "",
            "prompt version": r.prompt_version or "",
            "duration (ms)": None if r.duration_ms is None else round(r.duration_ms, 1),
            "date": _date(r.created_at),
            "kind": r.kind if not r.parent_run_id else f"{r.kind} (of {r.parent_run_id})",
            "origin": r.origin,
            "run id": r.run_id,
        }
        for r in runs
    ]
    return pd.DataFrame(rows, columns=RUN_COLUMNS)


def run_label(info: RunInfo) -> str:
    route = f" → {info.route}" if info.route else ""
    origin = " · imported" if info.origin == "imported" else ""
    status = f" · {info.status}" if info.status in ("abandoned", "running", "error") else ""
    by = f" · by {info.run_by}" if info.run_by else ""
    return f"{_date(info.created_at)} · {info.kind}{route} · {info.question[:70]}{origin}{status}{by}"


def person_filter(choice: Optional[str]) -> Optional[str]:
    """The `run_by` to list for a choice of the person filter (None = everyone)."""
    if choice in (None, EVERYONE):
        return None
    return "" if choice == NOBODY else choice


# ----- actions (pure enough to test without Streamlit) ---------------------------------------

def import_upload(history: RunHistory, name: str, data: bytes) -> RunInfo:
    """Import an uploaded export; every problem is a UserInputError with a readable message."""
    from rag.errors import UserFixableError, UserInputError
    from rag.runs.export import import_run

    if not data:
        raise UserInputError(f"{name} is empty; choose a run export (.json) made by this app")
    if len(data) > MAX_UPLOAD_BYTES:
        raise UserInputError(f"{name} is {len(data) / 1e6:.0f} MB; a run export is far smaller — is it the right file?")
    try:
        return import_run(bytes(data), history)
    except UserFixableError as exc:  # RunImportError and friends: already readable
        raise UserInputError(f"{name} was not imported: {friendly(exc)}") from None


def export_text(history: RunHistory, run_id: str) -> str:
    """The export JSON of a run, with this session's configured keys redacted as a second guard."""
    from rag.runs.export import export_run_json

    return export_run_json(history, run_id, settings=current_settings())


# ----- callbacks -------------------------------------------------------------------------------

def on_open(run_id: str) -> None:
    session = get_session()
    at_step = int(st.session_state.get(AT_STEP_KEY) or 0)
    if guarded(session.open_replay, _store(), run_id, at_step=at_step) is not None:
        reset_time_travel()
        st.session_state[GOTO_KEY] = True
        flash("info", f"Opened run {as_text(run_id)} in replay mode at step {at_step}: press Step to walk the recording.")


def on_delete_request(run_id: str) -> None:
    st.session_state[CONFIRM_KEY] = run_id


def on_delete_cancel() -> None:
    st.session_state.pop(CONFIRM_KEY, None)


def on_delete_confirm(run_id: str) -> None:
    st.session_state.pop(CONFIRM_KEY, None)

    def delete() -> bool:
        _store().delete_run(run_id)
        return True

    if guarded(delete):
        flash("success", f"Deleted run {run_id} and its checkpoints.")


def on_upload() -> None:
    upload = st.session_state.get(UPLOAD_KEY)
    if upload is None:
        return
    info = guarded(import_upload, _store(), upload.name, upload.getvalue())
    if info is not None:
        st.session_state[RUN_KEY] = info.run_id
        flash("success", f"Imported {as_text(upload.name)}: run {as_text(info.run_id)} "
                         f"({as_text(info.route or info.status)}). Open it to replay it step by step.")


def on_demo_pack() -> None:
    from rag.runs.export import import_demo_runs

    runs = guarded(import_demo_runs, _store())
    if runs is not None:
        flash("success", f"Loaded the demo pack: {len(runs)} recorded runs (every route). Open one to replay it.")


# ----- rendering ---------------------------------------------------------------------------------

def render_tools() -> None:
    left, right = st.columns([3, 2])
    with left:
        st.file_uploader("Import a run export (.json)", type=["json"], key=UPLOAD_KEY, on_change=on_upload,
                         help="A file made by Export on this page, on this or another machine. It opens in "
                              "replay mode: no model and no knowledge base needed, and nothing is executed.")
        st.caption(f"Up to {MAX_UPLOAD_BYTES // (1024 * 1024)} MB. A file's sha256 is an integrity check against "
                   "accidents (a truncated download, a stray edit), not a signature: anyone can recompute it, so "
                   "only import runs from people you trust to show what really happened.")
    with right:
        st.markdown("**Demo pack**")
        st.caption("Recorded runs of every route that ship with the app.")
        st.button("Load the demo pack", icon=MATERIAL["package"], key="history_demo_pack", on_click=on_demo_pack)


def render_selected(history: RunHistory, info: RunInfo) -> None:
    with st.container(border=True):
        st.markdown(f"**{as_text(info.question)}**")
        st.caption(f"run {as_text(info.run_id)} · {info.kind} · {info.status}"
                   f"{' · route ' + as_text(info.route) if info.route else ''} · provider {as_text(info.provider or '?')} · "
                   f"prompt version {as_text(info.prompt_version or '?')} · {info.origin}"
                   f"{' · run by ' + as_text(info.run_by) if info.run_by else ''}")
        if info.error:
            st.warning(f"This run failed: {as_text(info.error)}")
        if info.status == "abandoned":
            st.caption(f"Abandoned {_date(info.finished_at)} UTC: it never finished (the app restarted, the page was "
                       "reloaded or closed, or a new run replaced it). Its recorded steps can still be replayed.")
        c1, c2, c3, c4 = st.columns([1, 1, 1, 1])
        c1.number_input("Open at step", min_value=0, max_value=200, step=1, key=AT_STEP_KEY,
                        help="0 = before the first node; time travel works from there too")
        c2.button("Open in the step debugger", icon=MATERIAL["debugger"], key="history_open", on_click=on_open,
                  args=(info.run_id,),
                  type="primary", width="stretch", help="Replay mode: nothing is executed")
        try:
            data = export_text(history, info.run_id)
        except Exception as exc:  # noqa: BLE001 - e.g. a run whose checkpoints are gone
            c3.caption(f"Export unavailable: {as_text(friendly(exc))}")
        else:
            c3.download_button("Export (JSON)", icon=MATERIAL["download"], data=data, file_name=f"{info.run_id}.json",
                               mime="application/json", key="history_export", width="stretch",
                               help="Checkpoints, progress, trace, prompt version and public settings; no keys. "
                                    "Its sha256 is an integrity check against accidents, not a signature")
        c4.button("Delete", icon=MATERIAL["delete"], key="history_delete", on_click=on_delete_request, args=(info.run_id,),
                  width="stretch")
        if st.session_state.get(CONFIRM_KEY) == info.run_id:
            st.warning(f"Delete run `{info.run_id}` and all its checkpoints? This cannot be undone.")
            d1, d2, _ = st.columns([1, 1, 4])
            d1.button("Yes, delete", key="history_delete_confirm", on_click=on_delete_confirm, args=(info.run_id,),
                      type="primary")
            d2.button("Cancel", key="history_delete_cancel", on_click=on_delete_cancel)


def render_unusable(exc: BaseException) -> None:
    """What the page says when the history cannot be used, and how to get a working one back."""
    from rag.redaction import redact_urls_in_text
    from rag.runs.history import RECOVERY, HistoryDamagedError, is_damage
    from rag.runs.storage import DATABASE_RECOVERY
    from ui.history_store import db_path, is_shared, location, problem

    cause = redact_urls_in_text(problem() or friendly(exc))
    if is_shared():
        st.error(f"The shared run history database `{location()}` cannot be used ({cause}). The step debugger still "
                 "works, in memory: runs are not recorded until the database is back and the app restarts.")
        st.info(f"**To recover:** {DATABASE_RECOVERY}")
    elif isinstance(exc, HistoryDamagedError) or is_damage(exc) or problem():
        st.error(f"The run history file `{db_path()}` is damaged or unreadable ({cause}). The step debugger still "
                 "works, in memory: runs are not recorded until the file is replaced.")
        st.info(f"**To recover:** {RECOVERY}")
    else:
        st.error(f"The run history cannot be opened: {cause}. Set RAG_HISTORY_DB to a writable file.")


def render_page() -> None:
    if st.session_state.pop(GOTO_KEY, False):
        st.switch_page("pages/debugger.py")
    st.title(f"{MATERIAL['history']} Run history")
    show_flash()
    try:
        history = _store()
        history.list_runs(limit=1)  # a damaged file shows here, before anything is drawn
    except Exception as exc:  # noqa: BLE001 - a read-only disk or a broken file: say so, keep the app
        render_unusable(exc)
        return
    from rag.workbench.run_owners import sweep

    sweep(history)  # runs a reloaded or closed tab left behind are shown abandoned, not running
    shared = " shared by every app server pointed at it" if history.engine == "postgresql" else ""
    st.caption(f"Runs of the step debugger are recorded in `{history.location}`{shared} and survive restarts.")
    render_tools()
    left, right = st.columns([1, 1])
    with left:
        hide = st.toggle("Hide abandoned runs", key=HIDE_ABANDONED_KEY,
                         help="Runs that never finished: the app restarted, the page was reloaded or closed, or a "
                              "new run replaced them")
    with right:
        try:
            people = history.people()
        except Exception as exc:  # noqa: BLE001
            render_unusable(exc)
            return
        if st.session_state.get(PERSON_FILTER_KEY) not in (EVERYONE, NOBODY, *people):
            st.session_state[PERSON_FILTER_KEY] = EVERYONE
        choice = st.selectbox("Run by", [EVERYONE, *people, NOBODY], key=PERSON_FILTER_KEY,
                              help="Who ran it: the signed-in user, else the name set on the Settings page")
    try:
        runs = history.list_runs(hide_abandoned=hide, run_by=person_filter(choice))
    except Exception as exc:  # noqa: BLE001 - damage met while reading: say so, keep the app
        render_unusable(exc)
        return
    if not runs:
        if person_filter(choice) is not None and history.list_runs(limit=1):
            st.info(f"No runs by {as_text(choice)}" + (" that were not abandoned" if hide else "") +
                    "; choose “Everyone” to see all runs.")
        elif hide and history.list_runs(limit=1):
            st.info("Every run in the history was abandoned; turn off “Hide abandoned runs” to see them.")
        else:
            st.info("No runs yet. Run a question in the Step debugger, import an export, or load the demo pack.")
        return
    st.dataframe(runs_frame(runs), hide_index=True, width="stretch", key="history_runs")
    by_id = {r.run_id: r for r in runs}
    if st.session_state.get(RUN_KEY) not in by_id:
        st.session_state[RUN_KEY] = runs[0].run_id
    run_id = st.selectbox("Run", list(by_id), key=RUN_KEY, format_func=lambda rid: run_label(by_id[rid]))
    render_selected(history, by_id[run_id])
