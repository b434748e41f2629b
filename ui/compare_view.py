"""The Compare page: two recorded runs side by side, aligned step by step, with the place where they
first diverged named at the top (`rag.runs.compare`).

Why a page of its own with `?compare=<a>,<b>`: a comparison is what a team sends round after a
tuning change ("top_k 4 lost the right chunk here"), so it must reopen from a link. Everything is
read from the recordings; nothing is re-run.
"""
from __future__ import annotations

import difflib
import html
import json
from typing import Any, Mapping, Optional

import pandas as pd
import streamlit as st

from rag.i18n import N_, _
from rag.i18n.formatting import date_time
from ui.language import in_this_language
from ui.panels.icons import MATERIAL
from ui.streamlit_state import friendly
from ui.text import as_text

PARAM = "compare"
A_KEY, B_KEY = "compare_a", "compare_b"
ALL_FIELDS_KEY = "compare_all_fields"
WRITTEN_KEY = "_compare_url_written"
"""The pair this page last put in the URL: a `?compare=` that differs is a link followed (from the Evaluate
page, Run history, a bookmark) and picks its two runs, even when this session compared others before."""

CAUSES = {
    "none": N_("The runs took the same steps with the same values: no divergence."),
    "input": N_("A different input (question, HITL answer or edited field)."),
    "settings": N_("Different settings."),
    "prompt": N_("A different prompt version."),
    "chunks": N_("Different retrieved chunks."),
    "grade_or_route": N_("A different grade or route."),
    "other": N_("The runs computed a different value."),
    "different_graphs": N_("The runs went through different graphs; what could be aligned is shown."),
}
ROW_KINDS = {"same": N_("same"), "differs": N_("differs"), "only_a": N_("only in A"), "only_b": N_("only in B")}
CHUNK_CHANGES = {"added": N_("added"), "removed": N_("removed"), "moved_up": N_("moved up"),
                 "moved_down": N_("moved down"), "same": N_("same rank")}
#: What a RAG step is read as, side by side (only those that differ, unless "all fields").
VIEW_FIELDS = ("route", "retrieval_status", "complexity", "grade", "query", "sub_questions", "hitl_answer",
               "rewrite_count")


def pair_from_url() -> Optional[tuple[str, str]]:
    """`?compare=<run a>,<run b>` (two run ids)."""
    raw = str(st.query_params.get(PARAM) or "")
    parts = [p.strip() for p in raw.split(",") if p.strip()]
    return (parts[0], parts[1]) if len(parts) == 2 else None


def open_comparison(a: str, b: str) -> None:
    """From another page: put the pair in the URL and switch here."""
    st.session_state[A_KEY], st.session_state[B_KEY] = a, b
    st.switch_page("pages/compare.py", query_params={PARAM: f"{a},{b}"})


def word_diff_html(a: str, b: str) -> str:
    """A word-level diff: removed words struck through, added ones marked (all text escaped)."""
    wa, wb = (a or "").split(), (b or "").split()
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(html.escape(" ".join(wa[i1:i2])))
            continue
        if i2 > i1:
            out.append(f'<del style="background:#fdd">{html.escape(" ".join(wa[i1:i2]))}</del>')
        if j2 > j1:
            out.append(f'<ins style="background:#dfd">{html.escape(" ".join(wb[j1:j2]))}</ins>')
    return " ".join(out)


def _short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit] + "…"


def _history():
    from ui.history_store import history

    return history()


def _choices(history) -> dict[str, str]:
    runs = [r for r in history.list_runs(limit=500) if r.status != "running"]
    return {r.run_id: f"{date_time(r.created_at, with_seconds=True)} · {r.route or r.status} · {r.question[:50]} · {r.run_id}"
            for r in runs}


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
    from rag.runs.compare import CompareError, compare_sides, side_from_history

    try:
        side_a, side_b = side_from_history(history, a), side_from_history(history, b)
        rc = compare_sides(side_a, side_b)
    except CompareError as exc:
        st.error(as_text(str(exc)))
        return
    render_comparison(rc, side_a, side_b)


def render_comparison(rc, side_a, side_b) -> None:
    first = rc.comparison.first
    if first is None:
        st.success(_(CAUSES["none"]))
    else:
        where = _("The runs first differ at step {step} (`{node}`)").format(step=first.step, node=first.node or "-")
        if first.field:
            where += _(", in `{field}`").format(field=first.field)
        st.subheader(where)
        st.markdown(_(CAUSES.get(rc.cause, CAUSES["other"])))
    if rc.graphs[0] != rc.graphs[1]:
        st.warning(_("Run A is {a} and run B is {b}: only the steps they share are aligned.").format(
            a=rc.graphs[0], b=rc.graphs[1]))
    outcome = _("Route: `{a}` → `{b}`").format(a=rc.route[0], b=rc.route[1])
    if rc.answered:
        outcome += " · " + (_("the same answer") if rc.answer_same else _("a different answer"))
    else:
        outcome += " · " + (_("the same evidence for the answer") if rc.answer_same
                            else _("different evidence for the answer"))
    st.markdown(outcome)
    render_settings(rc)
    steps_a = [s for seg in side_a.segments() for s in seg.steps]
    steps_b = [s for seg in side_b.segments() for s in seg.steps]
    show_all = st.toggle(_("Show all fields of each step"), key=ALL_FIELDS_KEY)
    st.subheader(_("Step by step"))
    st.table(pd.DataFrame([{
        _("row"): str(r.row), _("segment"): r.segment, _("step A"): str(r.a or ""), _("step B"): str(r.b or ""),
        _("node"): r.node, _("status"): _(ROW_KINDS[r.kind]), _("fields that differ"): ", ".join(r.fields[:6]),
    } for r in rc.comparison.rows]))
    for row in rc.comparison.rows:
        if row.kind == "same" and not show_all:
            continue
        sa = steps_a[row.a - 1] if row.a else None
        sb = steps_b[row.b - 1] if row.b else None
        title = _("Step {a} / {b}: {node} ({status})").format(a=row.a or "-", b=row.b or "-", node=row.node,
                                                               status=_(ROW_KINDS[row.kind]))
        with st.expander(title, expanded=first is not None and row.row == first.row):
            render_step_pair(row, sa, sb, show_all)
    render_answers(side_a, side_b)


def render_settings(rc) -> None:
    if rc.settings:
        st.subheader(_("Settings that differ"))
        st.table(pd.DataFrame([{_("setting"): k, "A": _short(a), "B": _short(b)} for k, a, b in rc.settings]))
    if rc.prompt_versions[0] != rc.prompt_versions[1]:
        st.markdown(_("Prompt version: `{a}` → `{b}`").format(a=rc.prompt_versions[0] or "default",
                                                              b=rc.prompt_versions[1] or "default"))
    for role, text in rc.prompt_diffs.items():
        with st.expander(_("Prompt of the {role} role, A → B").format(role=role)):
            st.code(text, language="diff")


def render_step_pair(row, sa, sb, show_all: bool) -> None:
    if sa is None or sb is None:
        st.caption(_("Only run {side} has this step.").format(side="A" if sa is not None else "B"))
        return
    va, vb = sa.values_after, sb.values_after
    fields = [f for f in VIEW_FIELDS if show_all or f in row.fields]
    trace_a, trace_b = va.get("rag_trace") or {}, vb.get("rag_trace") or {}
    rows = [{_("field"): f, "A": _short(va.get(f)), "B": _short(vb.get(f))} for f in fields if f in va or f in vb]
    rows += [{_("field"): f"rag_trace.{k}", "A": _short(trace_a.get(k)), "B": _short(trace_b.get(k))}
             for k in row.fields if k not in va and k not in vb and (k in trace_a or k in trace_b)]
    if rows:
        st.table(pd.DataFrame(rows))
    if "docs" in row.fields or (show_all and va.get("docs") is not None):
        from rag.runs.compare import chunk_changes

        changes = chunk_changes(va.get("docs") or [], vb.get("docs") or [])
        st.markdown("**" + _("Retrieved chunks, A → B") + "**")
        st.table(pd.DataFrame([{
            _("chunk"): c.chunk_id, _("file"): c.filename, _("change"): _(CHUNK_CHANGES[c.change]),
            _("rank A"): str(c.rank_a or ""), _("rank B"): str(c.rank_b or ""),
            _("score A"): "" if c.score_a is None else f"{c.score_a:.4f}",
            _("score B"): "" if c.score_b is None else f"{c.score_b:.4f}"} for c in changes if show_all or c.change != "same"
            or c.score_a != c.score_b]))
    missing = [key for key, x, y in row.lanes if x is None or y is None]
    if missing:
        st.markdown("**" + _("Parallel lanes only one run has") + "**")
        for key, x, _y in row.lanes:
            if key in missing:
                st.markdown(f"- {'A' if x is not None else 'B'}: {as_text(_short(key, 120))}")
    prompt_a, prompt_b = trace_a.get("hitl_prompt"), trace_b.get("hitl_prompt")
    if prompt_a != prompt_b or (show_all and (prompt_a or prompt_b)):
        st.markdown("**" + _("HITL question") + "**")
        st.table(pd.DataFrame([{"A": _short(prompt_a), "B": _short(prompt_b)},
                               {"A": _short(trace_a.get("hitl_options")), "B": _short(trace_b.get("hitl_options"))}]))
    delta = sb.duration_ms - sa.duration_ms
    st.caption(_("Duration: {a} ms → {b} ms ({delta:+.0f} ms)").format(a=round(sa.duration_ms), b=round(sb.duration_ms),
                                                                       delta=delta))
    if show_all:
        from debugger.diff import diff_states

        diff = [r for r in diff_states(va, vb) if r.kind != "unchanged"]
        st.table(pd.DataFrame([{_("field"): r.path, "A": _short(r.before), "B": _short(r.after)} for r in diff])
                 if diff else pd.DataFrame([{_("field"): _("(no difference)")}]))


def _answer_text(result: Mapping[str, Any]) -> str:
    answer = result.get("answer")
    if isinstance(answer, Mapping):
        return str(answer.get("text") or "")
    return str(answer or "")


def render_answers(side_a, side_b) -> None:
    ra, rb = side_a.last.result or {}, side_b.last.result or {}
    ta, tb = _answer_text(ra), _answer_text(rb)
    if not (ta or tb):
        return
    st.subheader(_("Answer, A → B"))
    if ta == tb:
        st.caption(_("The same answer."))
        st.markdown(as_text(ta))
    else:
        st.html(f'<div class="rdc-answer-diff">{word_diff_html(ta, tb)}</div>')
