"""The trace explorer: protocol fields grouped as in the spec, with meanings, and present / null /
absent made visible; sub-traces as a tree; JSON download.

The table's data keys (`field`, `state`, `value`, `meaning`) and the state values stay the same in every
language (tests and code read them); only what is shown is renamed (`display_frame`)."""
from __future__ import annotations

import json
from typing import Any, Optional

import pandas as pd
import streamlit as st

from rag.errors import InvalidTraceError
from rag.i18n import N_, _, ngettext
from rag.trace import FIELD_GROUPS, normalize_rag_trace
from rag.trace_meanings import FIELD_MEANINGS, group_title, meaning
from rag_debugger.debugger import ABSENT, format_value
from rag_debugger.debugger.state_diff import ABSENT_TEXT
from rag_debugger.ui.language import with_headings
from rag_debugger.views.markdown_text import as_text

COLUMNS: dict[str, str] = {"field": N_("field"), "state": N_("state"), "value": N_("value"), "meaning": N_("meaning")}
"""Data key -> the column heading shown (translated when shown)."""
STATES: dict[str, str] = {"present": N_("present"), "null": N_("null"), "absent": N_("absent")}
"""A field's state -> the word shown for it."""


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
            shown = ngettext("[{n} item]", "[{n} items]", len(value)).format(n=len(value))
        else:
            shown = format_value(value, max_chars=200)
        rows.append({"field": f, "state": state, "value": shown, "meaning": meaning(f)})
    return pd.DataFrame(rows, columns=list(COLUMNS))


def display_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` as shown: values escaped for markdown, states and column headings in the reader's language."""
    shown = frame.reset_index(drop=True)  # a filtered frame's index would show as a column of its own
    absent = "‹" + _("absent") + "›"
    shown = shown.assign(value=shown["value"].map(lambda v: absent if v == ABSENT_TEXT else as_text(v)),
                         state=shown["state"].map(lambda s: _(STATES.get(str(s), str(s)))))
    return with_headings(shown, COLUMNS)


def render_trace(raw: Optional[dict], *, key: str = "trace") -> None:
    if raw is None:
        st.info(_("`rag_trace` is absent: no retrieval has run yet in this run (the spec starts the trace at the "
                  "first retrieval, or at synthesis for a complex question)."))
        return
    try:
        normalized = normalize_rag_trace(raw) or {}
    except InvalidTraceError as exc:  # a collaborator wrote a field of the wrong type
        st.error(_("The trace does not fit the protocol, so a client would get an error instead of it: {error}")
                 .format(error=as_text(exc)))
        with st.expander(_("Raw trace (as the run left it)")):
            st.json(raw)
        return
    counts = {"present": 0, "null": 0, "absent": 0}
    for group in FIELD_GROUPS.values():
        for f in group:
            counts[field_state(raw, normalized, f)] += 1
    st.caption(_("{present} present · {null} null (dropped by normalization) · {absent} absent — of the 59 protocol "
                 "fields").format(present=as_text(counts["present"]), null=as_text(counts["null"]),
                                  absent=as_text(counts["absent"])))
    only_present = st.toggle(_("Only fields that are present"), key=f"{key}_present", value=False)
    for name, group in FIELD_GROUPS.items():
        frame = trace_frame(raw, normalized, group)
        present = int((frame["state"] == "present").sum())
        if only_present:
            frame = frame[frame["state"] == "present"]
        with st.expander(f"{as_text(group_title(name))} ({as_text(present)}/{len(group)})",
                         expanded=name in ("tool and retrieval", "grade and route")):
            st.table(display_frame(frame)) if not frame.empty else st.caption(_("none present"))
    subs = normalized.get("sub_traces") or []
    if subs:
        st.markdown("**sub_traces**")
        for i, sub in enumerate(subs, start=1):
            with st.expander(f"{as_text(i)}. {as_text(sub.get('query'))} → {as_text(sub.get('route'))} / "
                             f"{as_text(sub.get('retrieval_status'))}"):
                st.json(sub, expanded=1)
    extras = {k: v for k, v in raw.items() if k not in FIELD_MEANINGS}
    if extras:
        with st.expander(_("Raw-only keys (not protocol fields, dropped by normalization)")):
            st.json(extras)
    st.download_button(
        _("Download normalized trace (JSON)"), data=json.dumps(normalized, ensure_ascii=False, indent=2),
        file_name="rag_trace.json", mime="application/json", key=f"{key}_download",
    )
