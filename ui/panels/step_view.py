"""The current step: its state diff (nested into rag_trace), its parallel lanes, its progress steps."""
from __future__ import annotations

from typing import Optional

import pandas as pd
import streamlit as st

from debugger import StepRecord, diff_states, diff_table, format_value
from ui.panels.lazy import lazy_expander


def progress_frame(progress: list[dict]) -> pd.DataFrame:
    rows = [
        {
            "": p.get("icon", ""),
            "step": p.get("label", ""),
            "detail": p.get("detail", ""),
            "group": p.get("group_label") or "",
            "elapsed_ms": p.get("elapsed_ms", 0),
            "stage_ms": p.get("stage_elapsed_ms", 0),
        }
        for p in progress
    ]
    return pd.DataFrame(rows, columns=["", "step", "detail", "group", "elapsed_ms", "stage_ms"])


def render_diff(record: StepRecord, *, key: str) -> None:
    show_all = st.toggle("Show unchanged fields", key=f"{key}_unchanged", value=False)
    frame = diff_table(record.diff, show_unchanged=show_all, max_chars=400)
    if frame.empty:
        st.caption("This step changed no state field.")
    else:
        st.dataframe(frame, hide_index=True, width="stretch", key=f"{key}_diff")
    st.caption("‹absent› = key not in the state · null = set to None · [] = empty list — three different things.")


def render_lanes(record: StepRecord) -> None:
    """A Send fan-out runs several tasks in one superstep: one lane each, with its own update."""
    if len(record.lanes) < 2:
        return
    st.markdown(f"**{len(record.lanes)} parallel lanes** (one `Send` task each, one superstep)")
    tabs = st.tabs([_lane_title(i, lane) for i, lane in enumerate(record.lanes, start=1)])
    for tab, lane in zip(tabs, record.lanes):
        with tab:
            if lane.error:
                st.error(lane.error)
            writes = lane.writes or {}
            for item in writes.get("sub_results", []) or []:
                st.markdown(f"**{item.get('question')}** → `{item.get('route')}` / `{item.get('retrieval_status')}`, "
                            f"{len(item.get('docs') or [])} usable chunks")
            rows = diff_states({}, writes)
            st.dataframe(diff_table(rows, max_chars=300), hide_index=True, width="stretch")


def _lane_title(i: int, lane) -> str:
    writes = lane.writes or {}
    subs = writes.get("sub_results") or []
    if subs:
        q = subs[0].get("question", "")
        return f"Lane {i}: {q[:30]}"
    return f"Lane {i}: {lane.node}"


def render_step(record: Optional[StepRecord], *, key: str = "step") -> None:
    if record is None:
        st.info("Nothing has run yet. Press **Step** to run the first node, or **Run** to run to the end.")
        return
    title = ", ".join(record.nodes)
    st.markdown(f"#### Step {record.index + 1}: `{title}` · {record.duration_ms:.0f} ms")
    if record.error:
        st.error(f"This step failed: {record.error}")
    render_lanes(record)
    render_diff(record, key=key)
    progress = record.annotations.get("progress") or []
    if progress:
        with lazy_expander(f"Progress steps emitted ({len(progress)})", key=f"{key}_progress") as is_open:
            if is_open:
                st.dataframe(progress_frame(progress), hide_index=True, width="stretch")


def render_full_state(values: dict) -> None:
    with lazy_expander("Full state", key="full_state") as is_open:
        if is_open:
            st.json({k: _jsonable(v) for k, v in values.items()}, expanded=1)


def _jsonable(value):
    import json

    try:
        json.dumps(value, ensure_ascii=False)
        return value
    except TypeError:
        return format_value(value)
