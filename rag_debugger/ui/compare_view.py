"""The Compare page: two recorded runs side by side, aligned step by step, with the place where they
first diverged named at the top (`rag.runs.divergence`).

Why a page of its own with `?compare=<a>,<b>`: a comparison is what a team sends round after a
tuning change ("top_k 4 lost the right chunk here"), so it must reopen from a link. Everything is
read from the recordings; nothing is re-run.
"""
from __future__ import annotations

from typing import Optional

import pandas as pd
import streamlit as st

from rag.i18n import _
from rag.i18n.formatting import date_time
from rag_debugger.ui.language import in_this_language
from rag_debugger.ui.streamlit_state import friendly
from rag_debugger.views.compare_content import answer_diff_html, comparison_blocks
from rag_debugger.views.icons import MATERIAL
from rag_debugger.views.markdown_text import as_text

PARAM = "compare"
A_KEY, B_KEY = "compare_a", "compare_b"
ALL_FIELDS_KEY = "compare_all_fields"
WRITTEN_KEY = "_compare_url_written"
"""The pair this page last put in the URL: a `?compare=` that differs is a link followed (from the Evaluate
page, Run history, a bookmark) and picks its two runs, even when this session compared others before."""


def pair_from_url() -> Optional[tuple[str, str]]:
    """`?compare=<run a>,<run b>` (two run ids)."""
    raw = str(st.query_params.get(PARAM) or "")
    parts = [p.strip() for p in raw.split(",") if p.strip()]
    return (parts[0], parts[1]) if len(parts) == 2 else None


def open_comparison(a: str, b: str) -> None:
    """From another page: put the pair in the URL and switch here."""
    st.session_state[A_KEY], st.session_state[B_KEY] = a, b
    st.switch_page("pages/compare.py", query_params={PARAM: f"{a},{b}"})


def _history():
    from rag_debugger.ui.history_store import history

    return history()


def _choices(history) -> dict[str, str]:
    from rag_debugger.ui.streamlit_state import permit

    runs = [r for r in history.list_runs(limit=500, permit=permit()) if r.status != "running"]
    return {r.run_id: f"{date_time(r.created_at, with_seconds=True)} · {_what(r)} · {r.question[:50]} · {r.run_id}"
            for r in runs}


def _what(run) -> str:
    """A RAG run by its route (else its status); a Your-graph run by its graph, so two graphs are told apart."""
    if run.kind == "graph":
        return f"{run.graph_spec} · {run.status}"
    return run.route or run.status


def render_pickers(history) -> Optional[tuple[str, str]]:
    choices = _choices(history)
    if len(choices) < 2:
        st.info(_("Compare needs two finished runs in the history. Run a question twice (say with another top_k) or "
                  "load the demo pack on Run history."))
        return None
    from_url = pair_from_url()
    if from_url and ",".join(from_url) != st.session_state.get(WRITTEN_KEY):  # a link, not the page's own URL
        for key, rid in zip((A_KEY, B_KEY), from_url, strict=True):
            if rid in choices:
                st.session_state[key] = rid
            else:
                st.warning(_("Run {run} of the link is not in this history (or has not finished).").format(
                    run=as_text(rid)))
    ids = list(choices)
    for key, default in ((A_KEY, ids[0]), (B_KEY, ids[1])):
        if st.session_state.get(key) not in choices:
            st.session_state[key] = default
    left, right = st.columns(2)
    label = in_this_language(lambda rid: choices.get(rid, rid))
    a = left.selectbox(_("Run A"), ids, key=A_KEY, format_func=label)
    b = right.selectbox(_("Run B"), ids, key=B_KEY, format_func=label)
    if a is None or b is None:
        return None
    if str(st.query_params.get(PARAM) or "") != f"{a},{b}":
        st.query_params[PARAM] = f"{a},{b}"
    st.session_state[WRITTEN_KEY] = f"{a},{b}"
    return a, b


def render_page() -> None:
    st.title(f"{MATERIAL['compare']} " + _("Compare two runs"))
    st.caption(_("Both runs are read from the history and aligned step by step; nothing is re-run."))
    try:
        history = _history()
    except Exception as exc:  # noqa: BLE001 - the history page says how to recover
        st.error(_("The run history cannot be opened: {cause}.").format(cause=as_text(friendly(exc))))
        return
    pair = render_pickers(history)
    if pair is None:
        return
    a, b = pair
    if a == b:
        st.info(_("Pick two different runs."))
        return
    from rag.runs.divergence import CompareError, compare_sides, side_from_history

    try:
        side_a, side_b = side_from_history(history, a), side_from_history(history, b)
        rc = compare_sides(side_a, side_b)
    except CompareError as exc:
        st.error(as_text(str(exc)))
        return
    render_comparison(rc, side_a, side_b)


def render_comparison(rc, side_a, side_b) -> None:
    show_all = st.toggle(_("Show all fields of each step"), key=ALL_FIELDS_KEY)
    render_blocks(comparison_blocks(rc, side_a, side_b, show_all=show_all))
    from rag.i18n import current_language
    from rag_debugger.exports.compare_file import comparison_report

    lang = current_language()
    st.download_button(_("Download as HTML"), data=lambda: comparison_report(rc, side_a, side_b, lang=lang),
                       file_name=f"compare-{rc.a}-{rc.b}.html", mime="text/html", key="compare_report",
                       icon=MATERIAL["download"], on_click="ignore",
                       help=_("One file that opens in any browser with no app and no network: this comparison, "
                              "with a switch for all fields, in both languages"))


def render_blocks(blocks) -> None:
    """The comparison's blocks (rag_debugger/views/compare_content.py) as Streamlit elements."""
    for block in blocks:
        kind = block.kind
        if kind == "subheader":
            st.subheader(block.text)
        elif kind == "md":
            st.markdown(block.text)
        elif kind == "caption":
            st.caption(block.text)
        elif kind == "success":
            st.success(block.text)
        elif kind == "warning":
            st.warning(block.text)
        elif kind == "text":
            st.markdown(as_text(block.text))
        elif kind == "table":  # st.table reads markdown in its cells: recorded values are shown as text
            st.table(pd.DataFrame([{as_text(k): as_text(v) for k, v in row.items()} for row in block.rows]))
        elif kind == "code":
            st.code(block.text, language=block.code_language)
        elif kind == "answer_diff":
            st.html(answer_diff_html(*block.args))
        elif kind == "fold":
            with st.expander(as_text(block.text), expanded=block.open_):  # a title names a recorded node
                render_blocks(block.children)
