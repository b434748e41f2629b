"""The Evaluate page's "Tune retrieval" part: a retrieval-only pass of the chosen set (where each
case's gold was lost, the funnel, the metrics at every stage, the cases lost at each stage) and a
sweep of retrieval settings plotted as recall@k against latency with the Pareto front, and the funnel
per point (where each setting loses its cases).

Why on the Evaluate page and in a module of its own: it reads the same set and knowledge base
pickers, but runs no model at all, and the route evaluation around it stays as it is. "Use these
settings" writes the point's settings to this browser session's overrides (the Settings page's
store), so the debugger's next run uses them; nothing is written to the environment.
Retrieval-only passes record no run, so a lost case opens its question in the step debugger.
"""
from __future__ import annotations

import os
import time
from typing import Any, Callable, Optional

import pandas as pd
import streamlit as st

from rag.eval.cases import EvalCase
from rag.eval.lost_at import STAGES
from rag.eval.retrieval_eval import RetrievalCase, Workbench, run_retrieval, summarize
from rag.eval.sweep import SWEEPABLE, command_line, grid, pareto_front, run_sweep
from rag.i18n import N_, _
from rag.settings import RagSettings
from rag_debugger.ui.grids import data_grid
from rag_debugger.ui.streamlit_state import apply_overrides, flash, guarded, show_flash
from rag_debugger.views.icons import MATERIAL
from rag_debugger.views.markdown_text import as_text, code_span

PASS_KEY = "retr_pass"
SWEEP_KEY = "retr_sweep"
DEFAULT_AXES = "RAG_TOP_K=2,4,8\nRAG_RRF_K=20,60"
#: What each stage means for the reader (data keys stay English).
STAGE_LABELS = {
    "not_in_kb": N_("not in the knowledge base"), "sparse": N_("not recalled by the sparse leg"),
    "dense": N_("not recalled by the dense leg"), "fusion": N_("cut after fusion (candidate_k)"),
    "merge": N_("merged into a parent that was then cut"), "rerank": N_("reranked below top_k"),
    "top_k": N_("cut at top_k"), "threshold": N_("cut by the score threshold"), "kept": N_("kept"),
}


# ----- pure helpers ------------------------------------------------------------------------------

def funnel_frame(counts: dict[str, int]) -> pd.DataFrame:
    return pd.DataFrame([{"stage": s, "meaning": _(STAGE_LABELS[s]), "cases": counts.get(s, 0)} for s in STAGES])


def metrics_frame(metrics: dict[str, dict]) -> pd.DataFrame:
    rows = [{"stage": stage, **{m: None if v is None else round(v, 3) for m, v in values.items()}}
            for stage, values in metrics.items()]
    return pd.DataFrame(rows)


def sweep_frame(points: list[dict]) -> pd.DataFrame:
    """One row per point: its label, recall@k, p50 latency, and whether it is on the Pareto front."""
    rows = []
    for i, p in enumerate(points):
        final = p["metrics"].get("final", {})
        rows.append({"point": i + 1, "settings": " ".join(f"{k}={v}" for k, v in p["settings"].items()) or "-",
                     "recall": final.get("recall") or 0.0, "latency_ms": p["latency_ms"]["p50"]})
    frame = pd.DataFrame(rows, columns=["point", "settings", "recall", "latency_ms"])
    frame["pareto"] = pareto_front(list(zip(frame["latency_ms"], frame["recall"], strict=True))) if rows else []
    return frame


def point_overrides(point_settings: dict) -> dict:
    """A point's settings (environment names) as the Settings fields the session overrides hold."""
    out = {}
    for name, value in point_settings.items():
        fname = SWEEPABLE[name][0]
        out[fname] = str(value) if fname == "candidate_k" else value
    return out


def sweep_chart(frame: pd.DataFrame):
    """recall@k against median latency; the Pareto front joined by a line, its points filled."""
    import altair as alt

    base = alt.Chart(frame).encode(
        x=alt.X("latency_ms:Q", title=_("median latency (ms)")),
        y=alt.Y("recall:Q", title=_("recall@k"), scale=alt.Scale(zero=False)),
        tooltip=[alt.Tooltip("point:Q", title=_("point")), alt.Tooltip("settings:N", title=_("settings")),
                 alt.Tooltip("recall:Q", format=".3f"), alt.Tooltip("latency_ms:Q", format=".2f")])
    dots = base.mark_point(size=80, filled=True).encode(
        shape=alt.Shape("pareto:N", title=_("Pareto front")), color=alt.Color("pareto:N", title=_("Pareto front")))
    front = alt.Chart(frame[frame["pareto"]].sort_values("latency_ms")).mark_line(strokeDash=[4, 3]).encode(
        x="latency_ms:Q", y="recall:Q")
    return (front + dots).properties(height=320)


def funnel_points_frame(points: list[dict]) -> pd.DataFrame:
    """One row per point and stage: how many cases each point of the sweep lost there (kept last), the
    long form the funnel chart stacks."""
    rows = []
    for i, p in enumerate(points):
        label = f"{i + 1}: " + (" ".join(f"{k}={v}" for k, v in p["settings"].items()) or "-")
        for order, stage in enumerate(STAGES):
            rows.append({"point": i + 1, "label": label, "stage": stage, "meaning": _(STAGE_LABELS[stage]),
                         "order": order, "cases": int(p["lost_at"].get(stage, 0))})
    return pd.DataFrame(rows, columns=["point", "label", "stage", "meaning", "order", "cases"])


def funnel_chart(frame: pd.DataFrame):
    """Where each point of the sweep loses its cases: a bar per point, stacked by stage in pipeline
    order (the stages' colours are the same for every point, so a setting's effect reads across rows)."""
    import altair as alt

    meanings = [_(STAGE_LABELS[s]) for s in STAGES]
    return alt.Chart(frame[frame["cases"] > 0]).mark_bar().encode(
        y=alt.Y("label:N", title=_("point"), sort=alt.SortField("point"), axis=alt.Axis(labelLimit=320)),
        x=alt.X("cases:Q", title=_("cases"), stack="zero"),
        color=alt.Color("meaning:N", title=_("stage"), scale=alt.Scale(domain=meanings), sort=meanings,
                        legend=alt.Legend(orient="bottom", columns=3, labelLimit=280)),
        order=alt.Order("order:Q"),
        tooltip=[alt.Tooltip("label:N", title=_("point")), alt.Tooltip("meaning:N", title=_("stage")),
                 alt.Tooltip("cases:Q", title=_("cases"))],
    ).properties(height=alt.Step(28))  # a bar's height, whatever the number of points; the legend below adds to it


# ----- Streamlit side ----------------------------------------------------------------------------

def _bench(settings: RagSettings, dense: bool) -> Workbench:
    return Workbench(settings, dense=dense)


def run_pass(cases: list[EvalCase], settings: RagSettings) -> dict:
    bar = st.progress(0.0, text=_("{done}/{total} cases").format(done=0, total=len(cases)))
    done = 0

    def tick(_res: RetrievalCase) -> None:
        nonlocal done
        done += 1
        bar.progress(done / len(cases), text=_("{done}/{total} cases").format(done=done, total=len(cases)))

    results = run_retrieval(cases, settings, _bench(settings, settings.dense_enabled), on_case=tick)
    return {"summary": summarize(results, settings.top_k),
            "cases": [(r.to_dict(), next((c.question for c in cases if c.id == r.id), r.question)) for r in results]}


SWEEP_NICE = 10
"""How much lower than the page's threads a sweep's searches run (Linux `nice`, per thread), as an
ingestion does: a sweep takes every core it is given, and a Step in another tab must not wait behind it."""
YIELD_BACKOFF = 10
"""After a case, a sweep that had to wait for the interpreter lock (another thread of the server, a Step
or a page, wanted it) pauses this many times as long as it waited (see `yield_when_contended`)."""


def yield_when_contended(backoff: float = YIELD_BACKOFF) -> float:
    """Give the interpreter lock to the server's other threads when they want it; returns the pause.

    Why: `nice` orders the threads for the cores, but Python code runs one thread at a time, and the
    lock is handed round every 5 ms, so a busy sweep halves a Step in another tab. `time.sleep(0)` lets a
    waiting thread in; getting the lock back takes about a switch interval when another thread is busy
    and nothing when the server is idle. Only then does the sweep pause, so an idle server sweeps at
    full speed."""
    started = time.perf_counter()
    time.sleep(0)
    waited = time.perf_counter() - started
    if waited < 0.001:
        return 0.0
    time.sleep(waited * backoff)
    return waited * backoff


def sweep_in_background(cases: list[EvalCase], settings: RagSettings, points: list[dict],
                        on_point: Optional[Callable[[int, dict], None]] = None, bench: Optional[Workbench] = None,
                        nice: int = SWEEP_NICE):
    """`run_sweep` on a worker thread at a lower priority, `on_point` called in the caller's thread (the
    script thread, which draws the progress bar) as each point is done. An exception raised by `on_point`
    stops the sweep after the point that is running and is raised here; the worker's own errors too."""
    import queue
    import threading

    done: queue.Queue = queue.Queue()
    stop = threading.Event()
    outcome: dict = {}

    class Stopped(Exception):
        pass

    def forward(i: int, row: dict) -> None:
        if stop.is_set():
            raise Stopped
        done.put((i, row))

    def _yield_after_case(_case: object) -> None:
        yield_when_contended()

    def work() -> None:
        if nice:
            try:
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)
            except (AttributeError, OSError):  # not Linux, or not allowed: the normal priority
                pass
        try:
            outcome["result"] = run_sweep(cases, settings, points, on_point=forward, bench=bench,
                                          on_case=_yield_after_case)
        except Stopped:
            pass
        except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
            outcome["error"] = exc
        finally:
            done.put(None)

    worker = threading.Thread(target=work, name="rag-sweep", daemon=True)
    worker.start()
    try:
        while (item := done.get()) is not None:
            if on_point is not None:
                on_point(*item)
    finally:
        stop.set()
        worker.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def run_sweep_live(cases: list[EvalCase], settings: RagSettings, specs: list[str], set_name: str, kb: str) -> dict:
    points = grid(specs, settings)
    bar = st.progress(0.0, text=_("{done}/{total} points").format(done=0, total=len(points)))

    def tick(i: int, _row: dict) -> None:
        bar.progress((i + 1) / len(points), text=_("{done}/{total} points").format(done=i + 1, total=len(points)))

    dense = settings.dense_enabled or any(p.get("RAG_DENSE_ENABLED") for p in points)
    result = sweep_in_background(cases, settings, points, on_point=tick, bench=_bench(settings, dense))
    axes: dict[str, list[Any]] = {}
    for p in points:
        for k, v in p.items():
            axes.setdefault(k, [])
            if v not in axes[k]:
                axes[k].append(v)
    return {"points": result.points, "command": command_line(set_name, kb, axes)}


def on_use_point(point_settings: dict) -> None:
    if guarded(apply_overrides, point_overrides(point_settings)) is not None:
        flash("success", _("This session's debugger now uses: {settings}").format(
            settings=as_text(", ".join(f"{k}={v}" for k, v in point_settings.items()))))


def render_tuning(settings: RagSettings, choice: str, kb: str, load: Callable[[str], Optional[tuple]],
                  kb_dir, on_open_case: Callable[[str], None]) -> None:
    """The section; `load(choice)` gives (set name, cases) like the route evaluation's picker, and
    `on_open_case(question)` is the evaluation page's own "Open in step debugger" (passed in, so this
    module does not import the page that imports it)."""
    with st.expander(_("Tune retrieval: where the right chunk was lost, and a sweep"), expanded=False):
        st.caption(_("Retrieval only: no planner, grader or rewriter runs, so no model is called. Cases name their "
                     "gold with expected_sources and/or expected_passages."))
        base = settings.model_copy(update={"kb_dir": kb_dir})
        c1, c2 = st.columns([1, 2])
        if c1.button(_("Run retrieval only"), key="retr_run", icon=MATERIAL["play"]):
            loaded = guarded(load, choice)
            if loaded is not None:
                st.session_state[PASS_KEY] = guarded(run_pass, loaded[1], base)
        specs_text = c2.text_area(_("Sweep: one setting a line, NAME=V1,V2,..."), DEFAULT_AXES, key="retr_axes",
                                  help=_("Retrieval settings: {names}").format(names=", ".join(SWEEPABLE)))
        if c2.button(_("Run sweep"), key="retr_sweep_run", icon=MATERIAL["play"]):
            loaded = guarded(load, choice)
            specs = [s.strip() for s in specs_text.splitlines() if s.strip()]
            if loaded is not None:
                st.session_state[SWEEP_KEY] = guarded(run_sweep_live, loaded[1], base, specs, loaded[0], kb)
        show_flash()
        done = st.session_state.get(PASS_KEY)
        if done:
            _render_pass(done, on_open_case)
        sweep = st.session_state.get(SWEEP_KEY)
        if sweep:
            _render_sweep(sweep)


def _render_pass(done: dict, on_open_case) -> None:
    summary = done["summary"]
    st.markdown(_("**Where the gold was lost** ({n} cases)").format(n=as_text(summary["cases"])))
    left, right = st.columns([2, 3])
    with left, st.container(key="retr_funnel"):
        data_grid(funnel_frame(summary["lost_at"]), hide_index=True, width="stretch")
    with right, st.container(key="retr_metrics"):
        st.caption(_("Metrics at each stage, at k = top_k = {k}").format(k=as_text(summary["k"])))
        data_grid(metrics_frame(summary["metrics"]), hide_index=True, width="stretch")
    for stage in STAGES:
        lost = [(c, q) for c, q in done["cases"] if c["lost_at"] == stage]
        if not lost or stage == "kept":
            continue
        with st.expander(f"{_(STAGE_LABELS[stage])}: {len(lost)}"):
            for i, (case, question) in enumerate(lost):
                col1, col2 = st.columns([4, 1], vertical_alignment="center")
                extra = f" — {', '.join(case['not_in_kb'])}" if case["not_in_kb"] else ""
                col1.markdown(f"{code_span(case['id'])} {as_text(question[:100])}{as_text(extra)}")
                col2.button(_("Open in step debugger"), key=f"retr_open_{stage}_{i}", on_click=on_open_case,
                            args=(question,), icon=MATERIAL["debugger"])


def _render_sweep(sweep: dict) -> None:
    frame = sweep_frame(sweep["points"])
    st.markdown(_("**Sweep: recall@k against latency**"))
    with st.container(key="retr_chart"):
        st.altair_chart(sweep_chart(frame), width="stretch")
    st.markdown(_("**Where each point loses its cases**"))
    with st.container(key="retr_funnel_chart"):
        st.altair_chart(funnel_chart(funnel_points_frame(sweep["points"])), width="stretch")
    funnels = pd.DataFrame([{"point": i + 1, **p["lost_at"]} for i, p in enumerate(sweep["points"])])
    data_grid(frame.merge(funnels, on="point"), hide_index=True, width="stretch", key="retr_points")
    pick = st.selectbox(_("Point"), list(frame["point"]), key="retr_pick",
                        format_func=lambda i: f"{i}: {frame['settings'].iloc[i - 1]}")
    st.button(_("Use these settings"), key="retr_use", on_click=on_use_point,
              args=(sweep["points"][int(pick) - 1]["settings"],), icon=MATERIAL["play"])
    st.caption(_("The same sweep from a terminal:"))
    st.code(sweep["command"], language="bash")


__all__ = ["render_tuning", "sweep_frame", "funnel_frame", "metrics_frame", "point_overrides", "sweep_chart",
           "funnel_points_frame", "funnel_chart"]
