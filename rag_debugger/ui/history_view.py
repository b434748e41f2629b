"""The run history page: every recorded run (live debugger runs, imported files, the demo pack),
opened in the step debugger as a replay, exported as one JSON file, imported, deleted.

Why replay for every run, even live ones: opening a run must never execute anything (no model
call, no retrieval), so what a stakeholder sees is exactly what was recorded.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping, Optional

import pandas as pd
import streamlit as st

from rag.errors import UnknownRunError
from rag.i18n import N_, _, ngettext
from rag.i18n.formatting import date_time, duration_ms
from rag.runs.history import RunHistory
from rag.runs.run_info import RunInfo
from rag_debugger.ui.grids import data_grid
from rag_debugger.ui.language import in_this_language
from rag_debugger.ui.panels.feedback_panel import render_feedback
from rag_debugger.ui.panels.time_travel import reset_time_travel
from rag_debugger.ui.streamlit_state import current_person, current_settings, flash, friendly, get_session, guarded, show_flash
from rag_debugger.views.icons import MATERIAL
from rag_debugger.views.markdown_text import as_text, in_code

RUN_KEY = "history_run"
AT_STEP_KEY = "history_at_step"
UPLOAD_KEY = "history_upload"
CONFIRM_KEY = "history_confirm_delete"
GOTO_KEY = "history_goto_debugger"
HIDE_ABANDONED_KEY = "history_hide_abandoned"
PERSON_FILTER_KEY = "history_run_by"
FORK_FILTER_KEY = "history_forks"
FEEDBACK_FILTER_KEY = "history_feedback_filter"
EVAL_FILTER_KEY = "history_eval_filter"
PAGE_KEY = "history_page"
PAGE_FILTERS_KEY = "history_page_filters"
PAGE_SIZE = 50
"""Runs per page: the table, the run picker and the feedback counts read one page of rows, never all."""
IMPORTED_KEY = "history_just_imported"
"""The run an upload just imported: chosen on the next draw even when its date puts it past the first page."""
EVERYONE = "Everyone"
NOBODY = "(no name)"
"""The person filter's two special choices: option values (data), shown through `_()`."""
MAX_UPLOAD_BYTES = 50 * 1024 * 1024
RUN_COLUMNS = ["question", "kind", "route", "feedback", "evaluation", "status", "run by", "provider", "prompt version",
               "duration (ms)", "date", "origin", "run id"]
"""The table's data keys (tests read them); people see `COLUMN_LABELS`. `kind` comes early: a what-if fork's
marker must show without scrolling the table sideways at 1280 px."""
COLUMN_LABELS = {"question": N_("question"), "route": N_("route"), "status": N_("status"), "run by": N_("run by"),
                 "provider": N_("provider"), "prompt version": N_("prompt version"),
                 "duration (ms)": N_("duration (ms)"), "date": N_("date"), "kind": N_("kind"), "origin": N_("origin"),
                 "run id": N_("run id"), "feedback": N_("feedback"), "evaluation": N_("evaluation")}
STATUS_LABELS = {"running": N_("running"), "done": N_("done"), "error": N_("error"), "abandoned": N_("abandoned")}
ORIGIN_LABELS = {"live": N_("live"), "imported": N_("imported")}
#: The kind filter: every run, only what-if forks, or no forks (option values; labels through `_()`).
FORK_FILTERS = {"all": N_("All runs"), "forks": N_("What-if forks only"), "no_forks": N_("Without what-if forks")}
#: The feedback filter (option values, as `RunHistory.list_runs(feedback=...)` takes them; labels through `_()`).
FEEDBACK_FILTERS = {"all": N_("All runs"), "any": N_("Has feedback"), "wrong": N_("Marked wrong")}
#: The evaluation filter (option values, as `RunHistory.list_runs(evals=...)` takes them; labels through `_()`).
EVAL_FILTERS = {"all": N_("All runs"), "evals": N_("Evaluation runs only"), "no_evals": N_("Without evaluation runs")}


def _store() -> RunHistory:
    from rag_debugger.ui.history_store import history

    return history()


def _date(iso: Optional[str]) -> str:
    """A recorded moment in the reader's language, in the server's time zone."""
    return date_time(iso)


def _status(status: str) -> str:
    return _(STATUS_LABELS[status]) if status in STATUS_LABELS else status


def kind_text(info: RunInfo) -> str:
    """What a run is: main / resume (the graph's names), a resume with its parent, or a what-if fork
    with the run and the step it forked from."""
    if info.fork is not None:
        return _("fork of {run} at step {step}").format(run=info.parent_run_id or "?", step=info.fork.step)
    if info.kind == "graph":
        return _("graph {spec}").format(spec=info.graph_spec or "?")
    if info.parent_run_id:
        return _("{kind} (of {run})").format(kind=info.kind, run=info.parent_run_id)
    return info.kind


def edit_text(value: object, limit: int = 80) -> str:
    """A short one-line view of an edited value (a list of chunks is summarised by its size)."""
    import json

    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return ngettext("{n} item", "{n} items", len(value)).format(n=len(value))
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def evaluation_text(info: RunInfo, names: Optional[dict] = None) -> str:
    """The evaluation a case's run belongs to: its set and configuration with the evaluation's id (two
    evaluations of one set are told apart), or the bare id when the evaluation is not kept (deleted on
    the Evaluate page); "" for a run no evaluation recorded. `names`: `EvalStore.names` of the page."""
    if not info.eval_id:
        return ""
    found = (names or {}).get(info.eval_id)
    if found is None:
        return _("evaluation {id}").format(id=info.eval_id)
    return _("{set} · {label} (evaluation {id})").format(set=found[0], label=found[1], id=info.eval_id)


def evaluation_names(runs: list[RunInfo]) -> dict[str, tuple[str, str]]:
    """The set and label of each evaluation the page's runs belong to, in one query of the evaluation
    store; opened only when some run is an evaluation's, and {} when the store cannot be read (the
    column then shows the ids)."""
    ids = [r.eval_id for r in runs if r.eval_id]
    if not ids:
        return {}
    from rag.eval.results_store import EvalStore
    from rag.runs.location import db_path

    path = db_path()
    if not path.exists():  # never create the store's file just to look (a PostgreSQL history has none of its own)
        return {}
    try:
        from rag_debugger.ui.streamlit_state import permit

        return EvalStore(path).names(ids, permit=permit())
    except Exception:  # noqa: BLE001 - a damaged store: the ids still say which evaluation
        return {}


def runs_frame(runs: list[RunInfo], feedback: Optional[dict] = None,
               evaluations: Optional[dict] = None) -> pd.DataFrame:
    """One row per run, newest first (the order `list_runs` gives); `feedback` is
    `rag.runs.feedback.summaries` of these runs, `evaluations` `evaluation_names` of them."""
    from rag.runs.feedback import summary_text

    feedback = feedback or {}
    rows = [
        {
            "question": r.question[:200],
            "route": r.route or "",
            "feedback": summary_text(feedback.get(r.run_id)),
            "evaluation": evaluation_text(r, evaluations),
            "status": _status(r.status),
            "run by": r.run_by,
            "provider": r.provider or "",
            "prompt version": r.prompt_version or "",
            "duration (ms)": None if r.duration_ms is None else round(r.duration_ms, 1),
            "date": _date(r.created_at),
            "kind": kind_text(r),
            "origin": _(ORIGIN_LABELS[r.origin]) if r.origin in ORIGIN_LABELS else r.origin,
            "run id": r.run_id,
        }
        for r in runs
    ]
    return pd.DataFrame(rows, columns=RUN_COLUMNS)


def run_label(info: RunInfo) -> str:
    route = f" → {info.route}" if info.route else ""
    origin = " · " + _("imported") if info.origin == "imported" else ""
    status = f" · {_status(info.status)}" if info.status in ("abandoned", "running", "error") else ""
    by = " · " + _("by {person}").format(person=info.run_by) if info.run_by else ""
    kind = _("what-if fork") if info.fork is not None else kind_text(info) if info.kind == "graph" else info.kind
    return f"{_date(info.created_at)} · {kind}{route} · {info.question[:70]}{origin}{status}{by}"


def person_filter(choice: Optional[str]) -> Optional[str]:
    """The `run_by` to list for a choice of the person filter (None = everyone)."""
    if choice in (None, EVERYONE):
        return None
    return "" if choice == NOBODY else choice


# ----- actions (pure enough to test without Streamlit) ---------------------------------------

def import_upload(history: RunHistory, name: str, data: bytes) -> RunInfo:
    """Import an uploaded export; every problem is a UserInputError with a readable message."""
    from rag.errors import UserFixableError, UserInputError
    from rag.runs.importing import import_run

    if not data:
        raise UserInputError(_("{name} is empty; choose a run export (.json) made by this app").format(name=name))
    if len(data) > MAX_UPLOAD_BYTES:
        raise UserInputError(_("{name} is {size} MB; a run export is far smaller — is it the right file?").format(
            name=name, size=f"{len(data) / 1e6:.0f}"))
    try:
        from rag_debugger.ui.streamlit_state import permit

        return import_run(bytes(data), history, permit())
    except UserFixableError as exc:  # RunImportError and friends: already readable
        raise UserInputError(_("{name} was not imported: {reason}").format(name=name, reason=friendly(exc))) from None


def export_text(history: RunHistory, run_id: str) -> str:
    """The export JSON of a run, with this session's configured keys redacted as a second guard."""
    from rag.runs.export import export_run_json

    return export_run_json(history, run_id, settings=current_settings())


# ----- callbacks -------------------------------------------------------------------------------

GOTO_GRAPH_KEY = "history_goto_your_graph"


def on_open_graph_run(info: RunInfo) -> None:
    """A run of a graph of your own opens on the Your graph page (its graph loaded there, through the
    page's allow-list)."""
    from rag_debugger.ui.graph_page import OPEN_RUN_KEY

    st.session_state[OPEN_RUN_KEY] = (info.graph_spec, info.run_id, int(st.session_state.get(AT_STEP_KEY) or 0))
    st.session_state[GOTO_GRAPH_KEY] = True


def on_open(run_id: str) -> None:
    session = get_session()
    at_step = int(st.session_state.get(AT_STEP_KEY) or 0)
    if guarded(session.open_replay, _store(), run_id, at_step=at_step) is not None:
        reset_time_travel()
        st.session_state[GOTO_KEY] = True
        flash("info", _("Opened run {run} in replay mode at step {step}: press Step to walk the recording.").format(
            run=as_text(run_id), step=as_text(at_step)))


def on_delete_request(run_id: str) -> None:
    st.session_state[CONFIRM_KEY] = run_id


def on_delete_cancel() -> None:
    st.session_state.pop(CONFIRM_KEY, None)


def on_delete_confirm(run_id: str) -> None:
    st.session_state.pop(CONFIRM_KEY, None)

    def delete() -> bool:
        from rag_debugger.ui.streamlit_state import permit

        _store().delete_run(run_id, permit())  # refused here, not only by the button (rag/access.py)
        return True

    if guarded(delete):
        flash("success", _("Deleted run {run} and its checkpoints.").format(run=as_text(run_id)))


def on_upload() -> None:
    upload = st.session_state.get(UPLOAD_KEY)
    if upload is None:
        return
    info = guarded(import_upload, _store(), upload.name, upload.getvalue())
    if info is not None:
        st.session_state[RUN_KEY] = st.session_state[IMPORTED_KEY] = info.run_id
        flash("success", _("Imported {name}: run {run} ({outcome}). Open it to replay it step by step.").format(
            name=as_text(upload.name), run=as_text(info.run_id),
            outcome=as_text(info.route or _status(info.status))))


def on_demo_pack() -> None:
    from rag.runs.demo_pack import import_demo_runs

    runs = guarded(import_demo_runs, _store())
    if runs is not None:
        flash("success", ngettext("Loaded the demo pack: {n} recorded run (every route). Open one to replay it.",
                                  "Loaded the demo pack: {n} recorded runs (every route). Open one to replay it.",
                                  len(runs)).format(n=len(runs)))


# ----- rendering ---------------------------------------------------------------------------------

def render_tools() -> None:
    left, right = st.columns([3, 2])
    with left:
        st.file_uploader(_("Import a run export (.json)"), type=["json"], key=UPLOAD_KEY, on_change=on_upload,
                         help=_("A file made by Export on this page, on this or another machine. It opens in "
                                "replay mode: no model and no knowledge base needed, and nothing is executed."))
        st.caption(_("Up to {size} MB. A file's sha256 is an integrity check against accidents (a truncated download, "
                     "a stray edit), not a signature: anyone can recompute it, so only import runs from people you "
                     "trust to show what really happened.").format(size=MAX_UPLOAD_BYTES // (1024 * 1024)))
    with right:
        st.markdown("**" + _("Demo pack") + "**")
        st.caption(_("Recorded runs of every route that ship with the app."))
        st.button(_("Load the demo pack"), icon=MATERIAL["package"], key="history_demo_pack", on_click=on_demo_pack)


def run_setup_parts(info: Any) -> list[str]:
    """The provider and prompt version a run used, only where they apply: a run of a graph of your own has
    neither (no "provider ?"); a RAG run without a recorded version used the built-in `default`."""
    from rag.runs.divergence import prompt_version_name

    parts = []
    if info.provider:
        parts.append(_("provider {provider}").format(provider=as_text(info.provider)))
    if not getattr(info, "graph_spec", None):
        parts.append(_("prompt version {version}").format(version=as_text(prompt_version_name(info.prompt_version))))
    return parts


def _facts(info: RunInfo) -> str:
    """The run's one-line facts under its question."""
    parts = [_("run {run}").format(run=as_text(info.run_id)), kind_text(info), _status(info.status)]
    if info.route:
        parts.append(_("route {route}").format(route=as_text(info.route)))
    parts += run_setup_parts(info)
    parts.append(_(ORIGIN_LABELS[info.origin]) if info.origin in ORIGIN_LABELS else info.origin)
    if info.duration_ms is not None:
        parts.append(_("took {duration}").format(duration=duration_ms(info.duration_ms)))
    parts.append(_date(info.created_at))
    if info.run_by:
        parts.append(_("run by {person}").format(person=as_text(info.run_by)))
    return " · ".join(parts)


def render_fork(info: RunInfo) -> None:
    """What made a what-if fork: its parent run, the step, and the edit (old → new)."""
    fork = info.fork
    if fork is None:
        return
    st.info(_("What-if fork of run {run} at step {step}: `{field}` was {old} and was set to {new}, then the run went "
              "on from there. Opening it replays the fork's branch.").format(
        run=as_text(info.parent_run_id or "?"), step=as_text(fork.step), field=in_code(fork.field),
        old=as_text(edit_text(fork.old)), new=as_text(edit_text(fork.new))), icon=":material/call_split:")


COMPARE_WITH_KEY = "history_compare_with"
COMPARE_GOTO_KEY = "history_goto_compare"


def on_compare(a: str, b: Optional[str]) -> None:
    if b:
        st.session_state[COMPARE_GOTO_KEY] = (a, b)


def render_compare(info: RunInfo, others: dict[str, str]) -> None:
    """Compare this run with another one (a fork: with its original)."""
    if info.status == "running":
        return
    left, middle, right = st.columns([2, 1, 1])
    if others:
        if st.session_state.get(COMPARE_WITH_KEY) not in others:
            st.session_state[COMPARE_WITH_KEY] = next(iter(others))
        other = left.selectbox(_("Compare with"), list(others), key=COMPARE_WITH_KEY,
                               format_func=in_this_language(lambda rid: others[rid]))
        middle.button(_("Compare"), icon=MATERIAL["compare"], key="history_compare", on_click=on_compare,
                      args=(info.run_id, other), width="stretch",
                      help=_("Align the two runs step by step and show where they first diverged"))
    if info.parent_run_id and (info.is_fork or info.kind == "main"):
        right.button(_("Compare with the original"), key="history_compare_original", on_click=on_compare,
                     args=(info.parent_run_id, info.run_id), width="stretch")


def render_report_download(history: RunHistory, info: RunInfo, where) -> None:
    """The run as one HTML file for someone without the app, opening at the step chosen beside it (built
    on click, on a thread). A Your-graph run draws its graph only when the Your graph page may load it
    (the allow-list), else from its recording (rag_debugger/exports/graph_run_file.py)."""
    from rag.i18n import current_language

    lang = current_language()
    at_step = int(st.session_state.get(AT_STEP_KEY) or 0)
    step = at_step - 1 if at_step else None
    if info.kind == "graph":
        from rag_debugger.exports.graph_run_file import graph_run_report
        from rag_debugger.ui.graph_page import graph_policy

        policy = graph_policy()

        def build() -> str:
            return graph_run_report(history, info.run_id, policy, lang=lang, step=step)
    else:
        from rag_debugger.exports.run_file import history_run_report

        def build() -> str:
            return history_run_report(history, info.run_id, lang=lang, step=step)
    where.download_button(_("Download as HTML"), icon=MATERIAL["download"], data=build,
                          file_name=f"{info.run_id}.html", mime="text/html", key="history_report", width="stretch",
                          on_click="ignore", help=_("One file that opens in any browser with no app and no network"))


def compare_choices(info: RunInfo, others: dict[str, str], graph_runs: Mapping[str, Optional[str]]) -> dict[str, str]:
    """The runs to offer to compare `info` with: a RAG run with RAG runs; a Your-graph run with Your-graph
    runs, those of its own graph first (the default), then the others (said plainly when compared)."""
    if info.kind != "graph":
        return {rid: label for rid, label in others.items() if rid not in graph_runs}
    mine = [rid for rid in others if rid in graph_runs and graph_runs[rid] == info.graph_spec]
    rest = [rid for rid in others if rid in graph_runs and graph_runs[rid] != info.graph_spec]
    return {rid: others[rid] for rid in [*mine, *rest]}


def render_selected(history: RunHistory, info: RunInfo, others: Optional[dict[str, str]] = None,
                    graph_runs: Mapping[str, Optional[str]] = MappingProxyType({})) -> None:
    """`graph_runs`: the Your-graph runs among `others`, with their graph's `module:attr`."""
    others = others or {}
    with st.container(border=True):
        st.markdown(f"**{as_text(info.question)}**")
        st.caption(_facts(info))
        render_fork(info)
        if info.error:
            st.warning(_("This run failed: {error}").format(error=as_text(info.error)))
        if info.status == "abandoned":
            st.caption(_("Abandoned {date}: it never finished (the app restarted, the page was reloaded or closed, or "
                         "a new run replaced it). Its recorded steps can still be replayed.").format(
                date=as_text(_date(info.finished_at))))
        # two rows: open (the step and the button, its label whole), then export and delete. Four in a row cut
        # "Open in the step debugger" at 1024 px and put the report's download under the export
        c1, c2 = st.columns([1, 2], vertical_alignment="bottom")
        c3, c3b, c4 = st.columns([1, 1, 1], vertical_alignment="bottom")
        c1.number_input(_("Open at step"), min_value=0, max_value=200, step=1, key=AT_STEP_KEY,
                        help=_("0 = before the first node; time travel works from there too"))
        if info.kind == "graph":
            c2.button(_("Open on Your graph"), icon=MATERIAL["debugger"], key="history_open", on_click=on_open_graph_run,
                      args=(info,), type="primary", width="stretch",
                      help=_("Replay mode on the Your graph page: nothing is executed"))
        else:
            c2.button(_("Open in the step debugger"), icon=MATERIAL["debugger"], key="history_open", on_click=on_open,
                      args=(info.run_id,),
                      type="primary", width="stretch", help=_("Replay mode: nothing is executed"))
        try:
            data = export_text(history, info.run_id)
        except Exception as exc:  # noqa: BLE001 - e.g. a run whose checkpoints are gone
            c3.caption(_("Export unavailable: {reason}").format(reason=as_text(friendly(exc))))
        else:
            c3.download_button(_("Export (JSON)"), icon=MATERIAL["download"], data=data, file_name=f"{info.run_id}.json",
                               mime="application/json", key="history_export", width="stretch",
                               help=_("Checkpoints, progress, trace, prompt version and public settings; no keys. "
                                      "Its sha256 is an integrity check against accidents, not a signature"))
            render_report_download(history, info, c3b)
        from rag_debugger.ui.streamlit_state import refusal

        refused = refusal("delete_run", info.owner)
        c4.button(_("Delete"), icon=MATERIAL["delete"], key="history_delete", on_click=on_delete_request,
                  args=(info.run_id,), width="stretch", disabled=bool(refused), help=refused or None)
        render_compare(info, compare_choices(info, others, graph_runs))
        render_feedback(history, info.run_id, key="history_feedback", person=current_person())
        if info.kind != "graph":  # a case is a question of the RAG workflow
            from rag_debugger.ui.panels.add_to_set import render_for_run

            render_for_run(history, info)
        if st.session_state.get(CONFIRM_KEY) == info.run_id:
            st.warning(_("Delete run `{run}` and all its checkpoints? This cannot be undone.").format(run=in_code(info.run_id)))
            d1, d2, _rest = st.columns([1, 1, 4])
            d1.button(_("Yes, delete"), key="history_delete_confirm", on_click=on_delete_confirm, args=(info.run_id,),
                      type="primary")
            d2.button(_("Cancel"), key="history_delete_cancel", on_click=on_delete_cancel)


def render_unusable(exc: BaseException) -> None:
    """What the page says when the history cannot be used, and how to get a working one back."""
    from rag.errors import HistoryDamagedError
    from rag.redaction import redact_urls_in_text
    from rag.runs.sqlite_storage import RECOVERY as FILE_RECOVERY
    from rag.runs.sqlite_storage import is_damage
    from rag.runs.storage import DATABASE_RECOVERY
    from rag_debugger.ui.history_store import is_shared, problem, shown_location

    cause = redact_urls_in_text(problem() or friendly(exc))
    if is_shared():
        st.error(_("The shared run history database `{location}` cannot be used ({cause}). The step debugger still "
                   "works, in memory: runs are not recorded until the database is back and the app restarts.").format(
            location=in_code(shown_location()), cause=as_text(cause)))
        st.info("**" + _("To recover:") + "** " + _(DATABASE_RECOVERY))
    elif isinstance(exc, HistoryDamagedError) or is_damage(exc) or problem():
        st.error(_("The run history file `{path}` is damaged or unreadable ({cause}). The step debugger still works, "
                   "in memory: runs are not recorded until the file is replaced.").format(
                       path=in_code(shown_location()), cause=as_text(cause)))
        st.info("**" + _("To recover:") + "** " + _(FILE_RECOVERY))
    else:
        st.error(_("The run history cannot be opened: {cause}. Set RAG_HISTORY_DB to a writable file.").format(
            cause=as_text(cause)))


def render_filters(history: RunHistory) -> Optional[tuple[bool, Optional[str], str]]:
    """The filters (hide abandoned, person, forks, feedback and evaluations: their values are read from the
    session state); None when the history failed meanwhile."""
    # the switch on a line of its own: five in a row cut its label ("Hide a…") at 1024 px
    left = st.container()
    middle, right, fourth, fifth = st.columns([1, 1, 1, 1])
    with fourth:
        st.selectbox(_("Feedback"), list(FEEDBACK_FILTERS), key=FEEDBACK_FILTER_KEY,
                     format_func=in_this_language(lambda v: _(FEEDBACK_FILTERS[v])),
                     help=_("Runs people gave feedback on, or runs at least one person marked wrong"))
    with fifth:
        st.selectbox(_("Evaluations"), list(EVAL_FILTERS), key=EVAL_FILTER_KEY,
                     format_func=in_this_language(lambda v: _(EVAL_FILTERS[v])),
                     help=_("The runs the Evaluate page (or python -m rag.eval --record) recorded for the cases "
                            "of an evaluation"))
    with left:
        hide = st.toggle(_("Hide abandoned runs"), key=HIDE_ABANDONED_KEY,
                         help=_("Runs that never finished: the app restarted, the page was reloaded or closed, or a "
                                "new run replaced them"))
    with middle:
        try:
            from rag_debugger.ui.streamlit_state import permit

            people = history.people(permit())
        except Exception as exc:  # noqa: BLE001
            render_unusable(exc)
            return None
        if st.session_state.get(PERSON_FILTER_KEY) not in (EVERYONE, NOBODY, *people):
            st.session_state[PERSON_FILTER_KEY] = EVERYONE
        special = {EVERYONE: N_("Everyone"), NOBODY: N_("(no name)")}
        choice = st.selectbox(_("Run by"), [EVERYONE, *people, NOBODY], key=PERSON_FILTER_KEY,
                              format_func=in_this_language(lambda v: _(special[v]) if v in special else v),
                              help=_("Who ran it: the signed-in user, else the name set on the Settings page"))
    with right:
        forks = st.selectbox(_("What-if forks"), list(FORK_FILTERS), key=FORK_FILTER_KEY,
                             format_func=in_this_language(lambda v: _(FORK_FILTERS[v])),
                             help=_("A what-if fork is a run that went on from an edited step of another run "
                                    "(the step debugger's “What if…”)"))
    return hide, choice, forks


def current_page(filters: tuple) -> int:
    """The page of runs to show (0 = newest); a change of any filter goes back to the first page."""
    if st.session_state.get(PAGE_FILTERS_KEY) != filters:
        st.session_state[PAGE_FILTERS_KEY] = filters
        st.session_state[PAGE_KEY] = 0
    return max(0, int(st.session_state.get(PAGE_KEY) or 0))


def on_page(delta: int) -> None:
    st.session_state[PAGE_KEY] = max(0, int(st.session_state.get(PAGE_KEY) or 0) + delta)


def render_pager(page: int, more: bool, shown: int) -> None:
    """Newer / older pages of runs (shown only when there is more than one page)."""
    if not page and not more:
        return
    left, middle, right = st.columns([1, 2, 1])
    left.button(_("Newer runs"), key="history_newer", on_click=on_page, args=(-1,), disabled=not page,
                icon=":material/chevron_left:", width="stretch")
    first = page * PAGE_SIZE + 1
    middle.caption(_("Runs {first}–{last}, newest first").format(first=first, last=first + shown - 1))
    right.button(_("Older runs"), key="history_older", on_click=on_page, args=(1,), disabled=not more,
                 icon=":material/chevron_right:", width="stretch")


def render_page() -> None:
    if st.session_state.pop(GOTO_KEY, False):
        st.switch_page("pages/debugger.py")
    if st.session_state.pop(GOTO_GRAPH_KEY, False):
        st.switch_page("pages/your_graph.py")
    pair = st.session_state.pop(COMPARE_GOTO_KEY, None)
    if pair:
        from rag_debugger.ui.compare_view import open_comparison

        open_comparison(*pair)
    st.title(f"{MATERIAL['history']} " + _("Run history"))
    show_flash()
    try:
        history = _store()
        history.list_runs(limit=1)  # a damaged file shows here, before anything is drawn
    except Exception as exc:  # noqa: BLE001 - a read-only disk or a broken file: say so, keep the app
        render_unusable(exc)
        return
    from rag_debugger.workbench.run_owners import sweep

    sweep(history)  # runs a reloaded or closed tab left behind are shown abandoned, not running
    from rag_debugger.ui.history_store import shown

    if history.engine == "postgresql":
        st.caption(_("Runs of the step debugger are recorded in `{location}` shared by every app server pointed at it "
                     "and survive restarts.").format(location=in_code(shown(history.location))))
    else:
        st.caption(_("Runs of the step debugger are recorded in `{location}` and survive restarts.").format(
            location=in_code(shown(history.location))))
    render_tools()
    filters = render_filters(history)
    if filters is None:
        return
    hide, choice, forks = filters
    feedback = st.session_state.get(FEEDBACK_FILTER_KEY) or "all"
    evals = st.session_state.get(EVAL_FILTER_KEY) or "all"
    page = current_page((hide, choice, forks, feedback, evals))
    try:
        from rag_debugger.ui.streamlit_state import permit

        mine = permit()  # with private runs (RAG_RUN_VISIBILITY=owner), only this member's
        runs = history.list_runs(hide_abandoned=hide, run_by=person_filter(choice), forks=forks, feedback=feedback,
                                 evals=evals, limit=PAGE_SIZE + 1, offset=page * PAGE_SIZE, light=True, permit=mine)
        if not runs and page:  # the last page emptied (runs deleted meanwhile): back to the first
            st.session_state[PAGE_KEY] = page = 0
            runs = history.list_runs(hide_abandoned=hide, run_by=person_filter(choice), forks=forks,
                                     feedback=feedback, evals=evals, limit=PAGE_SIZE + 1, light=True, permit=mine)
        more, runs = len(runs) > PAGE_SIZE, runs[:PAGE_SIZE]
        from rag.runs.feedback import summaries

        counts = summaries(history, [r.run_id for r in runs])
    except Exception as exc:  # noqa: BLE001 - damage met while reading: say so, keep the app
        render_unusable(exc)
        return
    if not runs:
        if evals != "all" and history.list_runs(limit=1):
            st.info(_("No runs match the evaluation filter; choose “All runs” to see every run."))
        elif feedback != "all" and history.list_runs(limit=1):
            st.info(_("No runs match the feedback filter; choose “All runs” to see every run."))
        elif forks != "all" and history.list_runs(limit=1):
            st.info(_("No runs match the what-if fork filter; choose “All runs” to see every run."))
        elif person_filter(choice) is not None and history.list_runs(limit=1):
            who = _("(no name)") if choice == NOBODY else choice
            if hide:
                st.info(_("No runs by {person} that were not abandoned; choose “Everyone” to see all runs.").format(
                    person=as_text(who)))
            else:
                st.info(_("No runs by {person}; choose “Everyone” to see all runs.").format(person=as_text(who)))
        elif hide and history.list_runs(limit=1):
            st.info(_("Every run in the history was abandoned; turn off “Hide abandoned runs” to see them."))
        else:
            st.info(_("No runs yet. Run a question in the Step debugger, import an export, or load the demo pack."))
        return
    data_grid(runs_frame(runs, counts, evaluation_names(runs)), hide_index=True, width="stretch", key="history_runs",
                 column_config={key: st.column_config.Column(_(label)) for key, label in COLUMN_LABELS.items()})
    render_pager(page, more, len(runs))
    by_id = {r.run_id: r for r in runs}
    imported = st.session_state.pop(IMPORTED_KEY, None)
    if imported and imported not in by_id and history.has_run(imported):  # an old run just imported: not on this page
        by_id = {imported: history.get_run(imported), **by_id}
    if st.session_state.get(RUN_KEY) not in by_id:
        st.session_state[RUN_KEY] = runs[0].run_id
    run_id = st.selectbox(_("Run"), list(by_id), key=RUN_KEY, format_func=in_this_language(lambda rid: run_label(by_id[rid])))
    others = {r.run_id: run_label(r) for r in runs if r.run_id != run_id and r.status != "running"}
    try:
        chosen = history.get_run(run_id)  # the list is light (no results): the chosen run in full
    except Exception as exc:  # noqa: BLE001 - deleted meanwhile, or the history failed: say so, keep the app
        if isinstance(exc, UnknownRunError):
            st.info(as_text(friendly(exc)))
        else:
            render_unusable(exc)
        return
    render_selected(history, chosen, others, {r.run_id: r.graph_spec for r in runs if r.kind == "graph"})
