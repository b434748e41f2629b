"""The Evaluate page's links from a case to its recorded run: a `run` column in the cases table, the
picked case's "Open its run" / "Download as HTML", and in a comparison a `compare` column that opens the
Compare runs page on the case's two runs (a regression or a fix).

Why links (the debugger's `?run=&step=`, rag_debugger/views/run_link.py; Compare's `?compare=a,b`) and not buttons
that load the run into this session: a link opens in a new tab as well, can be sent round, and the
page it opens reads the run from the history like any shared link. A case whose gold was lost at
retrieval (rag.eval.lost_at) opens at the step of its run's last retrieval, where "Why these chunks?"
shows what cut it; any other case opens at its run's last step.

Evaluations saved before their cases were recorded (and cases that failed before a run started) have
no run: their cells stay empty.
"""
from __future__ import annotations

from typing import Optional, Sequence
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from rag.eval.scoring import CaseResult
from rag.i18n import N_, _
from rag_debugger.ui.link_opening import expect_links
from rag_debugger.views.icons import MATERIAL
from rag_debugger.views.markdown_text import as_text
from rag_debugger.views.run_link import RUN_PARAM, STEP_PARAM

DEBUGGER_PAGE = "pages/debugger.py"
COMPARE_PAGE = "pages/compare.py"
#: The URL names of those pages (relative links, so an app served under a base path works too).
DEBUGGER_URL, COMPARE_URL = "debugger", "compare"
COMPARE_PARAM = "compare"
RUN_COLUMN, COMPARE_COLUMN, LOST_COLUMN = "run", "compare", "lost at"
HEADINGS = {RUN_COLUMN: N_("run"), COMPARE_COLUMN: N_("compare"), LOST_COLUMN: N_("gold lost at")}
#: Changes between two configurations whose two runs are worth comparing.
CHANGED = ("regressed", "fixed")


# ----- pure rules (tested as tables) --------------------------------------------------------------

def opens_at_retrieval(result: CaseResult) -> bool:
    """A case whose gold was lost at one of retrieval's stages (anything but kept) opens there."""
    return result.lost_at not in (None, "kept") and result.retrieval_step is not None


def run_params(result: CaseResult) -> Optional[dict[str, str]]:
    """The debugger's query parameters for the case's run (None: the case has no recorded run). No
    step: the run's last step."""
    if not result.run_id:
        return None
    params = {RUN_PARAM: result.run_id}
    if opens_at_retrieval(result):
        params[STEP_PARAM] = str(result.retrieval_step)
    return params


def run_url(result: CaseResult, lang: Optional[str] = None) -> Optional[str]:
    """`debugger?run=<id>[&step=<n>][&lang=zh]`, or None."""
    params = run_params(result)
    if params is None:
        return None
    if lang:
        params["lang"] = lang
    return f"{DEBUGGER_URL}?{urlencode(params)}"


def compare_params(a: Optional[CaseResult], b: Optional[CaseResult], status: str) -> Optional[dict[str, str]]:
    """`?compare=<run under A>,<run under B>` for a case that regressed or got fixed and has both runs."""
    if status not in CHANGED or a is None or b is None or not a.run_id or not b.run_id:
        return None
    return {COMPARE_PARAM: f"{a.run_id},{b.run_id}"}


def compare_url(a: Optional[CaseResult], b: Optional[CaseResult], status: str,
                lang: Optional[str] = None) -> Optional[str]:
    params = compare_params(a, b, status)
    if params is None:
        return None
    if lang:
        params["lang"] = lang
    return f"{COMPARE_URL}?{urlencode(params)}"


def with_run_links(frame: pd.DataFrame, results: Sequence[CaseResult], lang: Optional[str] = None) -> pd.DataFrame:
    """The cases table (rows keyed by `id`) with a `run` column of links to each case's run, and, when
    some case names its gold, a `lost at` column: the stage of the run's last retrieval that lost it."""
    from rag_debugger.ui.retrieval_tuning_view import STAGE_LABELS

    urls = {r.id: run_url(r, lang) for r in results}
    out = frame.copy()
    if any(r.lost_at for r in results):  # beside the sources, the other half of "was the evidence right?"
        stages = {r.id: r.lost_at for r in results}
        at = list(out.columns).index("sources") + 1 if "sources" in out.columns else len(out.columns)
        out.insert(at, LOST_COLUMN, [_(STAGE_LABELS[str(stages[i])]) if stages.get(i) in STAGE_LABELS else ""
                                     for i in out["id"]])
    # next to the id, so the link is in view without scrolling the table
    out.insert(1 if "id" in out.columns else 0, RUN_COLUMN, [urls.get(case_id) for case_id in out["id"]])
    return out


def with_compare_links(matrix: pd.DataFrame, a: Sequence[CaseResult], b: Sequence[CaseResult],
                       lang: Optional[str] = None) -> pd.DataFrame:
    """The cases × configurations matrix with a `compare` column for the cases that changed."""
    by_a, by_b = {r.id: r for r in a}, {r.id: r for r in b}
    out = matrix.copy()
    out[COMPARE_COLUMN] = ([compare_url(by_a.get(i), by_b.get(i), status, lang)
                            for i, status in zip(out["id"], out["change"], strict=True)] if not out.empty else [])
    return out


def link_columns(present: Sequence[str]) -> dict:
    """`column_config` drawing the link columns as links with a short text, in the reader's language."""
    config = {}
    if _(HEADINGS[RUN_COLUMN]) in present:
        config[_(HEADINGS[RUN_COLUMN])] = st.column_config.LinkColumn(
            _(HEADINGS[RUN_COLUMN]), display_text=_("open run"),
            help=_("The case's run in the step debugger (a case lost at retrieval opens at its retrieval step)"))
    if _(HEADINGS[COMPARE_COLUMN]) in present:
        config[_(HEADINGS[COMPARE_COLUMN])] = st.column_config.LinkColumn(
            _(HEADINGS[COMPARE_COLUMN]), display_text=_("compare runs"),
            help=_("The case's two runs side by side on the Compare runs page"))
    return config


# ----- Streamlit side -----------------------------------------------------------------------------

def _lang() -> Optional[str]:
    from rag_debugger.ui.language import url_language

    return url_language()


def _history():
    """The app's run history, or None when it cannot be used (the sidebar says why)."""
    from rag_debugger.ui.streamlit_state import shared_history

    return shared_history()


def recorder_for(store, set_name: str, kb: str):
    """The page's evaluation recorder on the app's run history (who runs it is named on its runs), or
    None when the history cannot be used: the evaluation then runs unrecorded, and says so."""
    from rag.eval.recorded import RecordedEvaluation
    from rag_debugger.ui.streamlit_state import current_person, permit

    history = _history()
    if history is None:
        st.warning(_("The run history cannot be used, so this evaluation's runs are not recorded and its cases "
                     "cannot be opened as runs."), icon=MATERIAL["invalid"])
        return None
    mine = permit()
    return RecordedEvaluation(history, store, set_name=set_name, kb=kb, run_by=current_person(),
                              owner=mine.owner, permit=mine)


def render_case_run(chosen: CaseResult, key: str) -> None:
    """Beside the picked case: open its run (same tab) and download the run as one HTML file."""
    params = run_params(chosen)
    if params is None:
        st.caption(_("This case has no recorded run (the evaluation was saved before runs were recorded, or the "
                     "case failed before its run started)."))
        return
    expect_links()
    lang = _lang()
    if lang:
        params = {**params, "lang": lang}
    row = st.container(horizontal=True, vertical_alignment="center", key=f"eval_case_run_{key}")
    label = (_("Open its run at the retrieval step") if opens_at_retrieval(chosen) else _("Open its run"))
    row.page_link(DEBUGGER_PAGE, label=label, icon=MATERIAL["replay"], query_params=params)
    history = _history()
    if history is None:
        return
    from rag.i18n import current_language
    from rag_debugger.exports.run_file import history_run_report

    run_id, lang_now = chosen.run_id, current_language()
    if run_id is None:
        return
    from rag.errors import UnknownRunError
    from rag_debugger.ui.streamlit_state import permit

    try:
        history.visible_run(run_id, permit())  # another's private run (RAG_RUN_VISIBILITY=owner): no file of it
    except UnknownRunError:
        return
    step = chosen.retrieval_step - 1 if opens_at_retrieval(chosen) and chosen.retrieval_step else None
    row.download_button(_("Download its run as HTML"), icon=MATERIAL["download"],
                          data=lambda: history_run_report(history, run_id, lang=lang_now, step=step),
                          file_name=f"{run_id}.html", mime="text/html", key=f"eval_case_report_{key}",
                          on_click="ignore",
                          help=_("One file that opens in any browser with no app and no network"))


def render_change_links(a: Sequence[CaseResult], b: Sequence[CaseResult], changed: Sequence[tuple[str, str]],
                        key: str) -> None:
    """A Compare-runs link per case that regressed or got fixed (the matrix's `compare` column too)."""
    by_a, by_b = {r.id: r for r in a}, {r.id: r for r in b}
    found = [(case_id, compare_params(by_a.get(case_id), by_b.get(case_id), status)) for case_id, status in changed]
    links = [(case_id, params) for case_id, params in found if params is not None]
    if not links:
        return
    lang = _lang()
    with st.container(key=f"eval_compare_links_{key}", horizontal=True):
        for case_id, params in links:
            st.page_link(COMPARE_PAGE, label=_("Compare {case}").format(case=as_text(case_id)), icon=MATERIAL["compare"],
                         query_params={**params, **({"lang": lang} if lang else {})})


__all__ = ["recorder_for", "run_params", "run_url", "compare_params", "compare_url", "with_run_links", "with_compare_links",
           "link_columns", "opens_at_retrieval", "render_case_run", "render_change_links"]
