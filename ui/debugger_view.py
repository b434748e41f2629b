"""The step debugger page: question and demos, Run / Step / Continue / Restart, the graph with the
current position, the step's diff and lanes, the timeline with time travel, evidence, HITL, result.

The same page shows a recorded run in replay mode (opened from the history page): a banner says
so, Run and HITL answers are disabled (nothing can execute), Step / Continue / Restart and time
travel walk the recording."""
from __future__ import annotations

from typing import Optional

import pandas as pd
import streamlit as st

from debugger import StepRecord, timeline_frame
from ui.panels.evidence import render_evidence
from ui.panels.graph_panel import render_graph
from ui.panels.lazy import lazy_expander
from ui.panels.time_travel import reset_time_travel, timeline_key, travel_key
from ui.panels.hitl import render_hitl
from ui.panels.step_view import progress_frame, render_full_state, render_step
from ui.session import REPLAY_BANNER, DebugSession, route_decision
from ui.streamlit_state import flash, get_session, guarded, guarded_page, show_flash

QUESTION_KEY = "question"
TIMELINE_CACHE_KEY = "_timeline_frame"
TRAVEL_LABELS_KEY = "_time_travel_labels"


def _demo_questions() -> list:
    try:
        from rag.demo import load_demo_questions

        return load_demo_questions()
    except Exception:  # noqa: BLE001 - demos are a convenience; the debugger works without them
        return []


# ----- callbacks (run before the script body, so the page renders the new state) ------------

def _question() -> str:
    return st.session_state.get(QUESTION_KEY, "")


def _ensure_started(session: DebugSession) -> None:
    """Start a new run when none exists or the question box changed since the last start (a
    replay moves through its recording instead)."""
    if session.replay_mode:
        return
    if not session.segments or (_question().strip() and _question().strip() != session.question):
        session.start(_question())
        reset_time_travel()


PENDING_KEY = "pending_run_to_end"


def on_run() -> None:
    """Start the question; the steps run in the page body so their progress streams into a
    status box (a callback cannot draw while it works)."""
    session = get_session()
    if guarded(session.start, _question()) is not None:
        st.session_state[PENDING_KEY] = True
    reset_time_travel()


def on_step() -> None:
    session = get_session()

    def step():
        _ensure_started(session)
        session.step()
    guarded(step)
    reset_time_travel()


def on_continue() -> None:
    session = get_session()
    def start_if_needed() -> bool:
        _ensure_started(session)
        return True

    if guarded(start_if_needed):  # a refused new question must not continue the old run
        st.session_state[PENDING_KEY] = True
    reset_time_travel()


def run_pending(session: DebugSession) -> None:
    """Run to the end with live progress: one line per emitted step, as it happens."""
    if not st.session_state.pop(PENDING_KEY, False) or not session.segments or session.done:
        return
    seg = session.current
    with st.status(f"Running {seg.label}…", expanded=True) as status:
        for _ in range(200):
            if seg.stepper.done or seg.stepper.error:
                break
            record = guarded(session.step)
            if record is None:
                break
            for p in record.annotations.get("progress") or []:
                group = f" [{p.get('group_label')}]" if p.get("group_label") else ""
                st.write(f"{p.get('icon', '')} **{p.get('label', '')}**{group} — {p.get('detail', '')} "
                         f"· {p.get('elapsed_ms', 0)} ms")
            if not record.annotations.get("progress"):
                st.write(f"`{', '.join(record.nodes)}` · {record.duration_ms:.0f} ms")
        if seg.stepper.error:
            status.update(label=f"{seg.label}: a step failed", state="error")
        else:
            steps = len(seg.stepper.steps)
            status.update(label=f"{seg.label}: {steps} steps run", state="complete", expanded=False)


def on_restart() -> None:
    session = get_session()
    guarded(session.restart)
    reset_time_travel()


def on_exit_replay() -> None:
    get_session().exit_replay()
    reset_time_travel()
    flash("info", "Left replay mode. The recorded run is still in the run history.")


def on_follow_recorded(run_id: str) -> None:
    session = get_session()
    if guarded(session.follow_recorded_answer, run_id) is not None:
        flash("info", "Replaying the recorded answer: step through the resume path or press Continue.")
    reset_time_travel()


def on_demo(question: str) -> None:
    st.session_state[QUESTION_KEY] = question
    session = get_session()
    if guarded(session.start, question) is not None:
        flash("info", "Demo loaded and paused before the first node: press Step to go node by node, or Continue.")
    reset_time_travel()


# ----- rendering -----------------------------------------------------------------------------

def render_replay_banner(session: DebugSession) -> None:
    seg = session.current
    info = seg.info if seg is not None else None
    with st.container(border=True, key="replay_banner"):
        st.warning(f"**{REPLAY_BANNER}.** Stepping walks the recorded checkpoints; nothing is executed. "
                   "Run and HITL answers are disabled.", icon="📼")
        if info is not None:
            origin = "imported file" if info.origin == "imported" else "this app's history"
            st.caption(f"Run `{info.run_id}` from {origin} · recorded {info.created_at[:19].replace('T', ' ')} · "
                       f"provider {info.provider or '?'} · prompt version {info.prompt_version or '?'} · "
                       f"{seg.stepper.total_steps} steps")
        st.button("⏏ Leave replay", key="exit_replay", on_click=on_exit_replay,
                  help="Back to live debugging; the recorded run stays in the history")


def render_question(session: DebugSession) -> None:
    replay = session.replay_mode
    if replay:
        render_replay_banner(session)
        st.session_state[QUESTION_KEY] = session.question  # the box shows the recorded question
    st.text_area("Question", key=QUESTION_KEY, height=80, disabled=replay,
                 placeholder="Ask the knowledge base, e.g. 丹瑾是什么属性？ — or pick a demo below")
    demos = _demo_questions()
    if demos:
        with st.expander("Demo questions — one per route", expanded=not session.segments):
            cols = st.columns(3)
            for i, demo in enumerate(demos):
                cols[i % 3].button(demo.label, key=f"demo_{demo.id}", on_click=on_demo, args=(demo.question,),
                                   help=demo.question, width="stretch")


def render_buttons(session: DebugSession) -> None:
    replay = session.replay_mode
    c1, c2, c3, c4 = st.columns(4)
    c1.button("▶ Run", key="run", on_click=on_run, type="primary", width="stretch", disabled=replay,
              help="Replay mode: a recorded run cannot run again; leave replay to run live" if replay
              else "Start the question and run to the end")
    c2.button("⏭ Step", key="step", on_click=on_step, width="stretch", disabled=session.done,
              help="Run exactly one superstep (parallel sub-questions run together)")
    c3.button("⏩ Continue to end", key="continue", on_click=on_continue, width="stretch", disabled=session.done)
    c4.button("↺ Restart", key="restart", on_click=on_restart, width="stretch", disabled=not session.segments,
              help="Replay the recording from its first step" if replay else "Start the same question again")


def render_position(session: DebugSession) -> None:
    seg = session.current
    if not seg:
        return
    chips = " → ".join(f"**{s.label}**" if s is seg else s.label for s in session.segments)
    if seg.stepper.done:
        where = "finished"
    else:
        nxt = seg.stepper.next_nodes
        where = "paused before " + ", ".join(f"`{n}`" for n in dict.fromkeys(nxt)) + (
            f" ×{len(nxt)} (parallel)" if len(nxt) > 1 else "")
    st.markdown(f"{chips} · {len(seg.stepper.steps)} steps · {where}")
    if seg.stepper.error:
        st.error(f"The last step failed: {seg.stepper.error}. Press Step to retry it, or Restart.")


def render_timeline(session: DebugSession) -> Optional[int]:
    """The steps so far across segments; returns the selected step to view (time travel) or None."""
    pairs = session.all_steps()
    if not pairs:
        return None
    st.markdown("#### Timeline")
    frame = _timeline(session, pairs)
    labels = [f"{i}. {seg.label}: {', '.join(rec.nodes)}" for i, (seg, rec) in enumerate(pairs, start=1)]
    st.dataframe(frame, hide_index=True, width="stretch", key=timeline_key(), on_select=_on_timeline_click,
                 selection_mode="single-row")
    st.session_state[TRAVEL_LABELS_KEY] = labels
    choice = st.selectbox("View the state after step (time travel, runs nothing)", ["(latest)"] + labels,
                          key=travel_key())
    if choice == "(latest)" or choice is None:
        return None
    return labels.index(choice)


def _on_timeline_click() -> None:
    """Clicking a row of the timeline travels to that step (the same as picking it in the box)."""
    rows = (st.session_state.get(timeline_key()) or {}).get("selection", {}).get("rows", [])
    labels = st.session_state.get(TRAVEL_LABELS_KEY) or []
    if rows and rows[0] < len(labels):
        st.session_state[travel_key()] = labels[rows[0]]
    else:
        st.session_state[travel_key()] = "(latest)"


def _timeline(session: DebugSession, pairs: list) -> pd.DataFrame:
    """The timeline table, rebuilt only when a step was added (not on every rerun)."""
    key = tuple((seg.stepper.thread_id, len(seg.stepper.steps)) for seg in session.segments)
    cached = st.session_state.get(TIMELINE_CACHE_KEY)
    if cached is not None and cached[0] == key:
        return cached[1]
    frame = timeline_frame([rec for _, rec in pairs], route_decision, notes=_notes)
    frame.insert(1, "run", [seg.label for seg, _ in pairs])
    frame["step"] = list(range(1, len(pairs) + 1))
    st.session_state[TIMELINE_CACHE_KEY] = (key, frame)
    return frame


def _notes(annotations: dict) -> str:
    return " ".join(f"{p.get('icon', '')}{p.get('label', '')} ({p.get('elapsed_ms', 0)} ms)"
                    for p in annotations.get("progress") or [])


def render_result(session: DebugSession) -> None:
    result = session.result()
    if not result:
        return
    if session.replay_mode and result.get("hitl_resume_state"):
        render_replay_hitl(session, result)
        return
    if render_hitl(result):
        return
    route = result.get("route")
    icon = {"answer": "✅", "no_knowledge": "🚫", "rewrite": "✏️"}.get(route, "ℹ️")
    with st.container(border=True):
        st.markdown(f"### {icon} Result: `{route}` / `{result.get('retrieval_status')}`")
        trace = result.get("rag_trace") or {}
        st.caption(f"{len(result.get('docs') or [])} chunks handed to the answering agent · "
                   f"provider {result.get('provider')} · retriever {result.get('retriever')}")
        if trace.get("evidence_reason"):
            st.caption(f"Reason: {trace['evidence_reason']}")


def render_replay_hitl(session: DebugSession, result: dict) -> None:
    """The recorded run asked the user: show the question read-only, and the answers recorded then."""
    trace = result.get("rag_trace") or {}
    with st.container(border=True):
        st.markdown(f"### 🙋 The workflow asked ({result.get('route')}) — recorded")
        st.markdown(trace.get("hitl_prompt") or "Please add more detail.")
        options = trace.get("hitl_options") or []
        if options:
            cols = st.columns(min(len(options), 4))
            for i, option in enumerate(options):
                cols[i % len(cols)].button(option, key=f"replay_opt_{i}", disabled=True, width="stretch",
                                           help="Replay: answers cannot be sent to a recorded run")
        answers = session.recorded_answers()
        if answers:
            for child in answers:
                answer = ((child.result or {}).get("rag_trace") or {}).get("hitl_answer") or child.question
                st.button(f"▶ Replay the recorded answer “{answer[:60]}”", key=f"follow_{child.run_id}",
                          on_click=on_follow_recorded, args=(child.run_id,), type="primary")
        else:
            st.caption("No recorded answer to this question is in the history. Leave replay to answer it live.")
        with st.expander("Resume snapshot (hitl_resume_state)"):
            st.json(result.get("hitl_resume_state"))


def render_page() -> None:
    st.title("🪜 Step debugger")
    session = get_session()
    render_question(session)
    workbench()


@st.fragment
def workbench() -> None:
    """Everything a Step changes. A fragment, so a Step click reruns only this part of the page
    (the question box, the demos, the navigation and the sidebar are not re-sent). A fragment
    rerun does not pass through the page's guard, so it has its own."""
    guarded_page(_workbench)


def _workbench() -> None:
    session = get_session()
    run_pending(session)
    show_flash()
    render_buttons(session)
    render_position(session)
    seg = session.current
    left, right = st.columns([5, 6])
    with left:
        kind = seg.kind if seg else "main"
        render_graph(session.dot(kind))
        with lazy_expander("What does each node do?", key="node_docs") as is_open:
            if is_open:
                from rag.graph.build import node_docs

                for name, doc in sorted(node_docs().items()):
                    st.markdown(f"**`{name}`** — {doc}")
    pairs = session.all_steps()
    with right:
        travel = render_timeline(session)
        record: Optional[StepRecord] = pairs[-1][1] if pairs else None
        values = seg.stepper.current_values() if seg else {}
        if travel is not None:
            travel_seg, record = pairs[travel]
            values = travel_seg.stepper.state_at(record.after_checkpoint_id)
            st.info(f"Viewing the state after step {travel + 1} ({', '.join(record.nodes)}) — read from the "
                    "checkpoint, nothing was re-run.")
        render_step(record)
    render_result(session)
    if seg:
        render_evidence(values)
        render_full_state(values)
        all_progress = [p for _, rec in pairs for p in rec.annotations.get("progress") or []]
        if all_progress:
            with lazy_expander(f"All progress steps of this session ({len(all_progress)})",
                               key="all_progress") as is_open:
                if is_open:
                    st.dataframe(progress_frame(all_progress), hide_index=True, width="stretch")
