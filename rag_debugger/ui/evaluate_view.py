"""The Evaluate page: run a question set under one or two configurations and see what changed.

Pick a shipped set (or upload one), a configuration (prompt version, recall size, dense leg; the
model is the Settings page's), run with live progress, then read the route confusion matrix,
accuracy per route and per tag, source hit rate and MRR, latency percentiles per node and the
table of cases; any case opens in the step debugger. With a second configuration the page shows
the cases × configurations matrix with regressions and fixes, and the figures side by side.

Results are saved in the `eval_runs` table of the run-history file (`rag.eval.results_store`), so an
evaluation can be reopened and downloaded (JSON, CSV) later.

Tables keep English data keys (the pure helpers below, the downloads and the tests read them);
`headed` gives them the user's language as they are drawn. Route names, case ids, questions and
configuration labels are data and stay as they are.
"""
from __future__ import annotations

from typing import Optional

import pandas as pd
import streamlit as st

from rag.errors import UserFixableError
from rag.eval.cases import EvalCase, cases_from_upload, load_cases
from rag.eval.config import EvalConfig, apply_config
from rag.eval.results_store import EvalRecord, EvalStore, export_csv, export_json
from rag.eval.scoring import (
    ROUTES,
    CaseResult,
    accuracy_by_route,
    accuracy_by_tag,
    answer_accuracy,
    compare_runs,
    confusion,
    node_latency,
    source_hit,
)
from rag.i18n import N_, _, current_language, ngettext
from rag.i18n.formatting import number
from rag.settings import DATA_DIR, RagSettings
from rag_debugger.ui.eval_runs_view import HEADINGS as RUN_HEADINGS
from rag_debugger.ui.eval_runs_view import link_columns, render_case_run, render_change_links, with_compare_links, with_run_links
from rag_debugger.ui.grids import data_grid
from rag_debugger.ui.language import in_this_language, url_language, with_headings
from rag_debugger.ui.panels.time_travel import reset_time_travel
from rag_debugger.ui.question_row import KEPT_QUESTION_KEY, QUESTION_KEY
from rag_debugger.ui.question_sets_view import (
    STORED_PREFIX,
    load_stored,
    render_agreement,
    render_question_sets,
    render_source_link,
    stored_choices,
)
from rag_debugger.ui.streamlit_state import current_settings, flash, friendly, get_session, guarded, permit, show_flash
from rag_debugger.views.icons import MATERIAL
from rag_debugger.views.markdown_text import as_text
from rag_debugger.views.run_link import run_href

SETS_DIR = DATA_DIR / "eval"
UPLOAD_CHOICE = "upload:"
UPLOAD_READ_KEY = "_eval_upload_cases"
"""(file id, (name, cases)) of the upload last read: the page reads it on every rerun and on Run."""
"""The question-set picker's last option (a key: no set file is named like it); UPLOAD_LABEL is shown."""
UPLOAD_LABEL = N_("Upload a file…")
GROUP_KEY = "eval_group"
GOTO_KEY = "eval_goto_debugger"
MAX_UPLOAD_BYTES = 5 * 1024 * 1024
STATUS_COLORS = {"regressed": "background-color: #f8d7da", "fixed": "background-color: #d1e7dd"}
#: Table headings as drawn (data key -> English heading, translated when shown).
HEADINGS = {
    "expected ↓ / got →": N_("expected ↓ / got →"), "correct": N_("correct"), "cases": N_("cases"),
    "accuracy": N_("accuracy"), "route": N_("route"), "tag": N_("tag"), "node": N_("node"), "id": N_("id"),
    "ok": N_("ok"), "question": N_("question"), "expected": N_("expected"), "got": N_("got"),
    "asked first": N_("asked first"), "sources": N_("sources"), "ms": N_("ms"), "tags": N_("tags"),
    "error": N_("error"), "change": N_("change"), "figure": N_("figure"), "n": N_("n"),
}
#: Link columns (data key -> English heading): their heading is set by the column's config, not renamed.
LINKS = {"from run": N_("from run")}
#: Cell values that are words for the reader, not data.
CELL_WORDS = {
    "ok": {"yes": N_("yes"), "NO": N_("NO")},
    "sources": {"hit": N_("hit"), "miss": N_("miss")},
    "change": {"regressed": N_("regressed"), "fixed": N_("fixed"), "same": N_("same"), "unjudged": N_("unjudged")},
}
MARKS = {True: N_("right"), False: N_("WRONG")}


def shipped_sets() -> list[str]:
    return sorted(p.name for p in SETS_DIR.glob("*.jsonl"))


def default_kb(set_name: str) -> str:
    return "pydoc" if set_name.startswith("pydoc") else "bundled"


def _store() -> EvalStore:
    from rag.runs.location import db_path

    return EvalStore(db_path())


def _prompt_versions() -> list[str]:
    try:
        from rag.prompts.versions import list_versions

        return ["default", *[v.name for v in list_versions()]]
    except Exception:  # noqa: BLE001 - a broken folder must not hide the page
        return ["default"]


# ----- pure helpers (tested without a browser) ---------------------------------------------------

def confusion_frame(results: list[CaseResult]) -> pd.DataFrame:
    """Expected routes as rows, actual routes as columns, counts in the cells."""
    table = confusion(results)
    cols = list(ROUTES) + (["other"] if any("other" in row for row in table.values()) else [])
    rows = [r for r in ROUTES if r in table]
    data = [[table[r].get(c, 0) for c in cols] for r in rows]
    frame = pd.DataFrame(data, index=pd.Index(rows, name="expected ↓ / got →"), columns=cols)
    frame["correct"] = [f"{table[r].get(r, 0)}/{sum(table[r].values())}" for r in rows]
    return frame


def accuracy_frame(groups: dict[str, tuple[int, int]], name: str) -> pd.DataFrame:
    rows = [{name: k, "correct": ok, "cases": n, "accuracy": round(ok / n, 3) if n else None}
            for k, (ok, n) in groups.items()]
    return pd.DataFrame(rows, columns=[name, "correct", "cases", "accuracy"])


def latency_frame(results: list[CaseResult]) -> pd.DataFrame:
    rows = [{"node": node, **figures} for node, figures in node_latency(results).items()]
    frame = pd.DataFrame(rows)
    if not frame.empty:
        frame = frame.sort_values("p50", ascending=False)
    return frame


def cases_frame(results: list[CaseResult], failures_only: bool = False) -> pd.DataFrame:
    rows = []
    for r in results:
        if failures_only and r.correct is not False and not r.error:
            continue
        hit = source_hit(r.expected_sources, r.sources)
        rows.append({"id": r.id, "ok": "yes" if r.correct else ("—" if r.correct is None else "NO"),
                     "question": r.question, "expected": r.expected_route or "", "got": r.route or "",
                     "asked first": r.asked_route or "", "sources": "" if hit is None else ("hit" if hit else "miss"),
                     "ms": round(r.latency_ms), "tags": ", ".join(r.tags), "error": r.error or "",
                     "from run": run_href(r.from_run) if r.from_run else None})
    return pd.DataFrame(rows, columns=["id", "ok", "question", "expected", "got", "asked first", "sources", "ms",
                                       "tags", "error", "from run"])


def matrix_frame(records: list[EvalRecord]) -> pd.DataFrame:
    """Cases × configurations: the route each configuration ended in, and how the last one compares
    with the first (regressed / fixed / same)."""
    first, last = records[0].results(), records[-1].results()
    changes = {c.id: c.status for c in compare_runs(first, last)}
    rows = []
    per = [{r.id: r for r in rec.results()} for rec in records]
    for case in first:
        row = {"id": case.id, "expected": case.expected_route or ""}
        for rec, by_id in zip(records, per, strict=True):
            got = by_id.get(case.id)
            mark = "" if got is None or got.correct is None else " · " + _(MARKS[bool(got.correct)])
            row[rec.label] = ((got.route or "error") if got else "—") + mark
        row["change"] = changes.get(case.id, "")
        row["question"] = case.question
        rows.append(row)
    return pd.DataFrame(rows)


def summary_frame(records: list[EvalRecord]) -> pd.DataFrame:
    keys = ("route_accuracy", "source_hit_rate", "mrr")
    return pd.DataFrame({rec.label: [rec.summary.get(k) for k in keys] for rec in records},
                        index=pd.Index(keys, name="figure"))


def _shown(frame: pd.DataFrame) -> pd.DataFrame:
    """Accuracy as text with three decimals (st.table prints floats with four)."""
    return frame.assign(accuracy=[_fmt(v) for v in frame["accuracy"]])


def _fmt(value) -> str:
    """Three decimals; "n/a" for a figure with nothing to measure (None, or NaN once in a frame)."""
    return _("n/a") if value is None or value != value else f"{value:.3f}"


def headed(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame as drawn: headings and reader's words in the user's language (a copy; the frame's
    data keys stay English for the code that reads them)."""
    out = frame.copy()
    for column, words in CELL_WORDS.items():
        if column in out.columns:
            out[column] = [_(words[v]) if v in words else v for v in out[column]]
    return with_headings(out, HEADINGS)


# ----- running ------------------------------------------------------------------------------------

def _config_inputs(side: str, label: str, versions: list[str], settings: RagSettings) -> EvalConfig:
    """One row: the configuration's name, its prompt version, the grader's model (when a model is
    configured; the endpoint is the Settings page's), top_k and the dense leg."""
    model = settings.models_configured()
    widths = [1, 3, 2, 2, 2] if model else [1, 3, 2, 2]
    cols = st.columns(widths, vertical_alignment="bottom")
    cols[0].markdown(_("**Configuration {label}**").format(label=as_text(label))
                     if label != "A" or st.session_state.get("eval_compare") else _("**Configuration**"))
    version = cols[1].selectbox(
        _("Prompt version"), versions, key=f"eval_{side}_prompt",
        index=versions.index(settings.prompt_version) if settings.prompt_version in versions else 0)
    grade_model = None
    if model:
        grade_model = cols[-3].text_input(_("Grader model"), value=settings.grade_model,
                                          key=f"eval_{side}_model").strip()
    top_k = cols[-2].number_input(_("Chunks kept (top_k)"), 1, 50, value=int(settings.top_k), key=f"eval_{side}_top_k")
    dense = cols[-1].checkbox(_("Dense leg (hybrid)"), value=bool(settings.dense_enabled), key=f"eval_{side}_dense")
    return EvalConfig(label=version, prompt_version=None if version == "default" else version, top_k=int(top_k),
                      dense_enabled=bool(dense), grade_model=grade_model or None)


def _labels(configs: list[EvalConfig]) -> list[EvalConfig]:
    """Distinct, readable labels: "A: " / "B: " and what differs between the two (prompt version,
    grader model, retrieval)."""
    if len(configs) < 2:
        return configs
    a, b = configs
    if (a.prompt_version or "default") != (b.prompt_version or "default"):
        names = [c.prompt_version or "default" for c in configs]
    elif a.grade_model != b.grade_model:
        names = [c.grade_model or "model" for c in configs]
    else:
        names = [f"top_k {c.top_k}{'' if c.dense_enabled else ', sparse'}" for c in configs]
    return [c.model_copy(update={"label": f"{side}: {name}"}) for c, side, name in zip(configs, "AB", names, strict=True)]


def _load_set(choice: str) -> Optional[tuple[str, list[EvalCase]]]:
    if choice.startswith(STORED_PREFIX):
        return load_stored(choice)
    if choice != UPLOAD_CHOICE:
        return choice, load_cases(SETS_DIR / choice)
    upload = st.session_state.get("eval_upload")
    if upload is None:
        return None
    read = st.session_state.get(UPLOAD_READ_KEY)
    if read is not None and read[0] == upload.file_id:  # read when it arrived (`_upload_summary`)
        return read[1]
    data = upload.getvalue()
    if len(data) > MAX_UPLOAD_BYTES:
        from rag.errors import UserInputError

        raise UserInputError(_("{name} has {size} bytes; the limit is {limit}").format(
            name=upload.name, size=number(len(data)), limit=number(MAX_UPLOAD_BYTES)))
    loaded = upload.name, cases_from_upload(upload.name, data)
    st.session_state[UPLOAD_READ_KEY] = (upload.file_id, loaded)
    return loaded


def _upload_summary(where) -> None:
    """Read an uploaded set as soon as it arrives, so a broken file says what is wrong before anyone
    presses Run, and a good one says how many cases the run will take."""
    if st.session_state.get("eval_upload") is None:
        return
    with where.container(key="eval_upload_read"):
        try:
            loaded = _load_set(UPLOAD_CHOICE)
        except UserFixableError as exc:
            st.warning(as_text(friendly(exc)), icon=MATERIAL["invalid"])
            return
        if loaded:
            name, cases = loaded
            st.caption(ngettext("{name}: {n} case read", "{name}: {n} cases read", len(cases)).format(
                name=as_text(name), n=number(len(cases))))


def run_evaluation(set_name: str, cases: list[EvalCase], kb: str, configs: list[EvalConfig], concurrency: int,
                   base: RagSettings) -> str:
    """Run every configuration with a live progress bar, each case's run recorded in the run history
    (rag_debugger/ui/eval_runs_view.py links to it); save and return the group id."""
    from rag.eval.runner import kb_dir_for, run_cases
    from rag_debugger.ui.eval_runs_view import recorder_for

    kb_dir = kb_dir_for(kb)
    total = len(cases) * len(configs)
    bar = st.progress(0.0, text=_("{done}/{total} cases").format(done=0, total=total))
    done = 0
    group_id = ""
    store = _store()
    recorder = recorder_for(store, set_name, kb)
    for config in configs:
        settings = apply_config(base, config, kb_dir=kb_dir)

        def tick(res: CaseResult, label=config.label) -> None:
            nonlocal done
            done += 1
            bar.progress(done / total, text=_("{label}: {done}/{total} cases · last: {case} → {route}").format(
                label=as_text(label), done=number(done), total=number(total), case=as_text(res.id), route=as_text(res.route)))

        described = {**config.model_dump(), "description": config.describe(settings)}
        if recorder is not None:
            recorder.run(config.label, cases, settings, config=described, on_result=tick, concurrency=concurrency)
            group_id = recorder.group_id
            continue
        results = run_cases(cases, settings, on_result=tick, concurrency=concurrency)
        record = EvalRecord.from_results(results, set_name=set_name, kb=kb, label=config.label,
                                         provider=settings.provider_label(), group_id=group_id, config=described)
        record = store.save(record, permit=permit())
        group_id = record.group_id
    bar.progress(1.0, text=ngettext("Done: {n} case", "Done: {n} cases", total).format(n=total))
    return group_id


def on_open_case(question: str) -> None:
    """Put the case's question in the debugger's box, start it there, and go to the debugger."""
    st.session_state[QUESTION_KEY] = question
    st.session_state[KEPT_QUESTION_KEY] = question
    session = get_session()
    if guarded(session.start, question) is not None:
        reset_time_travel()
        st.session_state[GOTO_KEY] = True
        flash("info", _("Opened the evaluation case, paused before the first node: press Step or Continue."))


# ----- rendering ----------------------------------------------------------------------------------

def _tuning(settings: RagSettings, choice: str, kb: str) -> None:
    """Retrieval-only evaluation and sweeps (rag_debugger/ui/retrieval_tuning_view.py), on the same pickers."""
    from rag.eval.runner import kb_dir_for
    from rag_debugger.ui.retrieval_tuning_view import render_tuning

    render_tuning(settings, choice, kb, _load_set, kb_dir_for(kb), on_open_case)


def render_one(record: EvalRecord) -> None:
    results = record.results()
    s = record.summary
    cols = st.columns(6)
    cols[0].metric(_("Route accuracy"), _fmt(s.get("route_accuracy")))
    # beside the route's: a run that routes right and quotes the wrong sentence no longer reads as 1.000 here
    cols[1].metric(_("Answer accuracy"), _fmt(answer_accuracy(results)),
                   help=_("Share of the cases with expected answer words (expected_answer_contains) whose answer "
                          "says them all; n/a when no case has any"))
    cols[2].metric(_("Source hit rate"), _fmt(s.get("source_hit_rate")))
    cols[3].metric(_("MRR"), _fmt(s.get("mrr")))
    cols[4].metric(_("Cases"), s.get("cases", len(results)))
    cols[5].metric(_("Errors"), s.get("errors", 0))
    left, right = st.columns([3, 2])
    with left:
        with st.container(key="eval_confusion"):
            st.markdown(_("**Route confusion matrix** (rows: expected, columns: got)"))
            st.table(headed(confusion_frame(results)))
        st.markdown(_("**Accuracy per route**"))
        st.table(headed(_shown(accuracy_frame(accuracy_by_route(results), "route"))))
        render_agreement(results, record.eval_id)
    with right:
        tags = accuracy_frame(accuracy_by_tag(results), "tag")
        st.markdown(_("**Accuracy per tag**"))
        if tags.empty:
            st.caption(_("No case carries a tag."))
        else:
            st.bar_chart(tags.set_index("tag")["accuracy"].rename(_("accuracy")), height=220)
            data_grid(headed(_shown(tags)), hide_index=True, width="stretch")
    with st.expander(_("Latency per node (ms, from the runs' progress steps)"), expanded=False):
        data_grid(headed(latency_frame(results)), hide_index=True, width="stretch")
    render_cases(results, record.eval_id)


def render_cases(results: list[CaseResult], key: str) -> None:
    st.markdown(_("**Cases**"))
    failures = st.toggle(_("Failures only"), key=f"eval_failures_{key}",
                         value=any(r.correct is False or r.error for r in results))
    frame = cases_frame(results, failures_only=failures)
    shown = [r for r in results if r.id in set(frame["id"])] or results
    labels = {r.id: f"{r.id} — {r.question[:80]} ({r.expected_route or '?'} → {r.route or 'error'})" for r in shown}
    if frame.empty:
        st.success(_("No failures: every case ended in its expected route."))
    else:
        shown_frame = with_headings(headed(with_run_links(frame, results, url_language())), RUN_HEADINGS)
        event = data_grid(shown_frame, hide_index=True, width="stretch", key=f"eval_cases_{key}",
                             on_select="rerun", selection_mode="single-row",
                             column_config={**link_columns(list(shown_frame.columns)),
                                            "from run": st.column_config.LinkColumn(
                                                _(LINKS["from run"]), display_text=r"run=(.*)$",
                                                help=_("The run the case was made from, in the step debugger"))})
        rows = getattr(getattr(event, "selection", None), "rows", None) or []
        if rows and rows[0] < len(frame):  # a clicked row: the picker below follows it
            st.session_state[f"eval_pick_{key}"] = frame["id"].iloc[rows[0]]
    if st.session_state.get(f"eval_pick_{key}") not in labels:
        st.session_state.pop(f"eval_pick_{key}", None)
    pick = st.selectbox(_("Open a case in the step debugger (or click its row)"), list(labels),
                        format_func=labels.__getitem__, key=f"eval_pick_{key}")
    chosen = next(r for r in shown if r.id == pick)
    st.button(_("Open in step debugger"), key=f"eval_open_{key}", icon=MATERIAL["debugger"], on_click=on_open_case,
              args=(chosen.question,))
    render_source_link(chosen)
    render_case_run(chosen, key)


def render_compare(records: list[EvalRecord]) -> None:
    a, b = records[0], records[-1]
    changes = compare_runs(a.results(), b.results())
    regressed = [c for c in changes if c.status == "regressed"]
    fixed = [c for c in changes if c.status == "fixed"]
    cols = st.columns(4)
    cols[0].metric(_("Route accuracy {label}").format(label=as_text(a.label)), _fmt(a.summary.get("route_accuracy")))
    delta = None
    if a.summary.get("route_accuracy") is not None and b.summary.get("route_accuracy") is not None:
        delta = round(b.summary["route_accuracy"] - a.summary["route_accuracy"], 3)
    cols[1].metric(_("Route accuracy {label}").format(label=as_text(b.label)), _fmt(b.summary.get("route_accuracy")),
                   delta=delta)
    cols[2].metric(_("Regressed"), len(regressed))
    cols[3].metric(_("Fixed"), len(fixed))
    with st.container(key="eval_changes"):
        if regressed:
            st.error(_("Regressed (right under A, wrong under B): {cases}").format(
                cases=as_text(", ".join(c.id for c in regressed))))
        if fixed:
            st.success(_("Fixed (wrong under A, right under B): {cases}").format(cases=as_text(", ".join(c.id for c in fixed))))
        if not regressed and not fixed:
            st.info(_("No case changed between the two configurations."))
    st.markdown(_("**Cases × configurations** (regressions red, fixes green)"))
    matrix = matrix_frame(records)
    colors = [STATUS_COLORS.get(v, "") for v in matrix["change"]]
    shown = with_headings(headed(with_compare_links(matrix, a.results(), b.results(), url_language())), RUN_HEADINGS)
    styled = shown.style.apply(lambda _column: colors, subset=[_(HEADINGS["change"])])
    with st.container(key="eval_matrix"):
        data_grid(styled, hide_index=True, width="stretch", height=min(38 + 35 * len(matrix), 420),
                     column_config=link_columns(list(shown.columns)))
    render_change_links(a.results(), b.results(), [(c.id, c.status) for c in regressed + fixed], a.group_id)
    left, right = st.columns([2, 3])
    figures = summary_frame(records)
    with left:
        st.markdown(_("**Summary figures side by side**"))
        st.table(headed(figures.map(_fmt)))
    with right:
        figure, configuration, value = _("figure"), _("configuration"), _("value")
        long = figures.reset_index().melt(id_vars="figure", var_name=configuration, value_name=value).fillna(0)
        long = long.rename(columns={"figure": figure})
        st.bar_chart(long, x=figure, y=value, color=configuration, stack=False, horizontal=True, height=220)
    with st.container(key="eval_confusion"):
        st.markdown(_("**Route confusion matrices**"))
        matrix_cols = st.columns(len(records))
        for col, rec in zip(matrix_cols, records, strict=True):
            col.caption(as_text(rec.label))
            col.table(headed(confusion_frame(rec.results())))
    tabs = st.tabs([_("Details: {label}").format(label=rec.label) for rec in records])
    for tab, rec in zip(tabs, records, strict=True):
        with tab:
            results = rec.results()
            st.table(headed(_shown(accuracy_frame(accuracy_by_route(results), "route"))))
            data_grid(headed(latency_frame(results)), hide_index=True, width="stretch")
            render_agreement(results, rec.eval_id)
            render_cases(results, rec.eval_id)


def render_results(records: list[EvalRecord]) -> None:
    first = records[0]
    st.subheader(_("{set} on {kb} · {provider}").format(set=as_text(first.set_name), kb=as_text(first.kb),
                                                       provider=as_text(first.provider)))
    st.caption(as_text(" · ".join(f"{r.label}: {r.config.get('description', '')}" for r in records))
               + " · " + _("saved {when} UTC").format(when=as_text(first.created_at[:19].replace("T", " "))))
    if len(records) == 1:
        render_one(first)
    else:
        render_compare(records)
    c1, c2, c3 = st.columns(3)
    stem = f"eval-{first.group_id}"
    c1.download_button(_("Download results (JSON)"), export_json(records), file_name=f"{stem}.json",
                       mime="application/json", key="eval_dl_json")
    c2.download_button(_("Download cases (CSV)"), export_csv(records), file_name=f"{stem}.csv", mime="text/csv",
                       key="eval_dl_csv")
    lang = current_language()
    c3.download_button(_("Download as HTML"), data=lambda: evaluation_file(records, lang), file_name=f"{stem}.html",
                       mime="text/html", key="eval_dl_html", on_click="ignore",
                       help=_("One file that opens in any browser with no app and no network"))


def evaluation_file(records: list[EvalRecord], lang: str) -> str:
    """The evaluation as one self-contained HTML file (rag/eval/report.py), built when clicked."""
    from rag.eval.report import evaluation_html

    return evaluation_html([r.label for r in records], [r.results() for r in records], set_name=records[0].set_name,
                           kb=records[0].kb, descriptions=[str(r.config.get("description") or "") for r in records],
                           lang=lang, when=records[0].created_at)


def render_past(store: EvalStore) -> None:
    groups = store.groups(permit=permit())  # private evaluations (RAG_RUN_VISIBILITY=owner): one's own
    if not groups:
        return
    with st.expander(_("Earlier evaluations ({n})").format(n=len(groups)), expanded=False):
        versus = " " + _("vs") + " "
        labels = {g: f"{c[:19].replace('T', ' ')} · {s} · {versus.join(ls)}" for g, c, s, ls in groups}
        pick = st.selectbox(_("Evaluation"), list(labels), format_func=labels.__getitem__, key="eval_past")
        if st.button(_("Show"), key="eval_show_past"):
            st.session_state[GROUP_KEY] = pick
            st.rerun()


def render_page() -> None:
    if st.session_state.pop(GOTO_KEY, False):
        st.switch_page("pages/debugger.py")
    st.title(MATERIAL["evaluate"] + " " + _("Evaluate"))
    show_flash()
    st.caption(_("Run a question set through the workflow and see every route at once; compare two "
                 "configurations to see what a prompt or retrieval change fixed and what it broke."))
    settings = current_settings()
    sets = shipped_sets()
    stored = stored_choices()
    with st.container(border=True):
        c1, c2, c3 = st.columns([2, 1, 1])
        if st.session_state.get("eval_set", "").startswith(STORED_PREFIX) and st.session_state["eval_set"] not in stored:
            st.session_state.pop("eval_set")  # a stored set deleted meanwhile
        choice = c1.selectbox(_("Question set"), [*sets, *stored, UPLOAD_CHOICE], key="eval_set",
                              index=sets.index("bundled.jsonl") if "bundled.jsonl" in sets else 0,
                              format_func=in_this_language(lambda name: _(UPLOAD_LABEL) if name == UPLOAD_CHOICE else (
                                  _("{name} (stored set)").format(name=stored[name]) if name in stored else name)))
        if choice == UPLOAD_CHOICE:
            c1.file_uploader(_("JSON Lines or CSV, one case a line"), type=["jsonl", "csv", "json"], key="eval_upload")
            _upload_summary(c1)
        kbs = ["bundled", "pydoc"]
        # keyed by the set, so picking a pydoc set defaults to the pydoc corpus even after a bundled run
        kb = c2.selectbox(_("Knowledge base"), kbs, key=f"eval_kb_{choice}", index=kbs.index(default_kb(choice)))
        concurrency = c3.slider(_("Cases at a time"), 1, 4, 2, key="eval_concurrency")
        st.caption(_("Model: **{model}** (change it on the Settings page). Model calls are cached on disk, so "
                     "re-running an unchanged configuration costs no call.").format(model=as_text(settings.provider_label())))
        versions = _prompt_versions()
        configs = [_config_inputs("a", "A", versions, settings)]
        if st.session_state.get("eval_compare"):
            configs.append(_config_inputs("b", "B", versions, settings))
        run_col, compare_col = st.columns([1, 3], vertical_alignment="center")
        run = run_col.button(_("Run evaluation"), type="primary", key="eval_run", icon=MATERIAL["play"])
        compare_col.toggle(_("Compare with a second configuration (B)"), key="eval_compare")
    if run:
        loaded = guarded(_load_set, choice)
        if loaded is None:
            if choice == UPLOAD_CHOICE and st.session_state.get("eval_upload") is None:
                flash("warning", _("Upload a question set first (JSON Lines or CSV)."))
            show_flash()
        else:
            set_name, cases = loaded
            group = guarded(run_evaluation, set_name, cases, kb, _labels(configs), int(concurrency), settings)
            if group:
                st.session_state[GROUP_KEY] = group
            show_flash()
    _tuning(settings, choice, kb)
    try:
        store = _store()
    except Exception as exc:  # noqa: BLE001 - an unwritable disk: say so, keep the page
        st.error(_("Evaluation results cannot be kept: {reason}. Set RAG_HISTORY_DB to a writable file.").format(
            reason=as_text(friendly(exc))))
        return
    group = st.session_state.get(GROUP_KEY)
    if group:
        records = store.group(group, permit=permit())
        if records:
            render_results(records)
    render_past(store)
    render_question_sets()


__all__ = ["render_page", "confusion_frame", "cases_frame", "matrix_frame", "summary_frame", "latency_frame",
           "shipped_sets", "default_kb", "run_evaluation", "on_open_case"]
