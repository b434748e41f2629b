"""The trace explorer: protocol fields grouped as in the spec, with meanings, and present / null /
absent made visible; sub-traces as a tree; JSON download."""
from __future__ import annotations

import json
from typing import Any, Optional

import pandas as pd
import streamlit as st

from debugger import ABSENT, format_value
from rag.trace import FIELD_GROUPS, InvalidTraceError, normalize_rag_trace
from rag.trace_meanings import FIELD_MEANINGS
from ui.text import as_text


def field_state(raw: Optional[dict], normalized: Optional[dict], field: str) -> str:
    """present (in the client's trace) / null (set to None in the raw state, dropped) / absent."""
    if normalized and field in normalized:
        return "present"
    if raw and field in raw and raw[field] is None:
        return "null"
    return "absent"


def trace_frame(raw: Optional[dict], normalized: Optional[dict], group: tuple[str, ...]) -> pd.DataFrame:
    rows = []
    for f in group:
        state = field_state(raw, normalized, f)
        value: Any = normalized.get(f) if normalized and f in normalized else (None if state == "null" else ABSENT)
        if isinstance(value, list) and value and isinstance(value[0], dict):
            shown = f"[{len(value)} items]"
        else:
            shown = format_value(value, max_chars=200)
        rows.append({"field": f, "state": state, "value": shown, "meaning": FIELD_MEANINGS[f]})
    return pd.DataFrame(rows, columns=["field", "state", "value", "meaning"])


def render_trace(raw: Optional[dict], *, key: str = "trace") -> None:
    if raw is None:
        st.info("`rag_trace` is absent: no retrieval has run yet in this run (the spec starts the trace at the "
                "first retrieval, or at synthesis for a complex question).")
        return
    try:
        normalized = normalize_rag_trace(raw) or {}
    except InvalidTraceError as exc:  # a collaborator wrote a field of the wrong type
        st.error(f"The trace does not fit the protocol, so a client would get an error instead of it: {exc}")
        with st.expander("Raw trace (as the run left it)"):
            st.json(raw)
        return
    counts = {"present": 0, "null": 0, "absent": 0}
    for group in FIELD_GROUPS.values():
        for f in group:
            counts[field_state(raw, normalized, f)] += 1
    st.caption(f"{counts['present']} present · {counts['null']} null (dropped by normalization) · "
               f"{counts['absent']} absent — of the 59 protocol fields")
    only_present = st.toggle("Only fields that are present", key=f"{key}_present", value=False)
    for name, group in FIELD_GROUPS.items():
        frame = trace_frame(raw, normalized, group)
        present = int((frame["state"] == "present").sum())
        if only_present:
            frame = frame[frame["state"] == "present"]
        with st.expander(f"{name} ({present}/{len(group)})",
                         expanded=name in ("tool and retrieval", "grade and route")):
            st.table(frame.assign(value=frame["value"].map(as_text))) if not frame.empty else st.caption("none present")
    subs = normalized.get("sub_traces") or []
    if subs:
        st.markdown("**sub_traces**")
        for i, sub in enumerate(subs, start=1):
            with st.expander(f"{i}. {as_text(sub.get('query'))} → {as_text(sub.get('route'))} / "
                             f"{as_text(sub.get('retrieval_status'))}"):
                st.json(sub, expanded=1)
    extras = {k: v for k, v in raw.items() if k not in FIELD_MEANINGS}
    if extras:
        with st.expander("Raw-only keys (not protocol fields, dropped by normalization)"):
            st.json(extras)
    st.download_button(
        "Download normalized trace (JSON)", data=json.dumps(normalized, ensure_ascii=False, indent=2),
        file_name="rag_trace.json", mime="application/json", key=f"{key}_download",
    )
