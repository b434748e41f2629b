"""What if: pick a step, edit one field of the state after it, and run forward as a fork
(`DebugSession.fork`, built on LangGraph's `update_state(..., as_node=...)`).

A list of retrieved chunks (`docs`, `retrieved_chunks`, ...) is also offered as a table with an order
column and a keep box: reordering and dropping chunks is the common what-if ("what if the best chunk
came first?", "what if this chunk were not there?") and was a JSON edit of kilobytes of text before.
The table feeds the same fork as the JSON box.

Folded and built only while open (rag_debugger/ui/panels/lazy.py): a Step must not pay for it."""
from __future__ import annotations

import json
import math
from typing import Any, Optional

import pandas as pd
import streamlit as st

from rag.i18n import N_, _
from rag_debugger.debugger.state_diff import json_default
from rag_debugger.ui.panels.lazy import lazy_expander
from rag_debugger.ui.panels.time_travel import reset_time_travel
from rag_debugger.ui.streamlit_state import flash, get_session, guarded
from rag_debugger.views.markdown_text import as_text, in_code
from rag_debugger.views.values_html import is_chunk
from rag_debugger.workbench.run_names import shown_name

STEP_KEY = "what_if_step"
FIELD_KEY = "what_if_field"
VALUE_KEY = "what_if_value"
EXAMPLES = N_("e.g. set `route` after grade_documents to \"rewrite\", edit `query` before a retrieval, or drop a "
              "chunk from `docs`")


def parse_value(text: str) -> Any:
    """JSON when it parses (a number, a list, "quoted text", null), else the text itself, so a
    plain word like rewrite needs no quotes."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def value_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1, default=json_default)


CHUNK_TABLE_KEY = "what_if_chunks"
CHUNK_PREVIEW_CHARS = 80


def is_chunk_list(value: Any) -> bool:
    """A non-empty list whose items are all chunks (the table can show it)."""
    return isinstance(value, list) and bool(value) and all(is_chunk(c) for c in value)


def chunk_table(chunks: list) -> pd.DataFrame:
    """One row per chunk in its current order: keep (on), order (1..n), and what identifies it.
    The column names are data keys; the page shows them translated (`_column_config`)."""
    return pd.DataFrame({
        "keep": [True] * len(chunks),
        "order": list(range(1, len(chunks) + 1)),
        "file": [str(c.get("filename") or "") for c in chunks],
        "page": [c.get("page_number") for c in chunks],
        "score": [c.get("score") for c in chunks],
        "text": [" ".join(str(c.get("text") or "").split())[:CHUNK_PREVIEW_CHARS] for c in chunks],
    })


def chunks_from_table(chunks: list, table: pd.DataFrame) -> list:
    """The chunks the edited table asks for: only the kept rows, sorted by their order number (ties
    and blank orders keep the original order, blanks last). Row i of the table is chunk i."""
    picked = []
    for i, row in enumerate(table.to_dict("records")[:len(chunks)]):
        if not bool(row.get("keep")):
            continue
        order = row.get("order")
        blank = order is None or (isinstance(order, float) and math.isnan(order))
        picked.append(((1, 0.0) if blank else (0, float(order)), i))
    return [chunks[i] for _, i in sorted(picked)]


def _column_config() -> dict:
    return {
        "keep": st.column_config.CheckboxColumn(_("keep"), help=_("Untick to drop the chunk from the list")),
        "order": st.column_config.NumberColumn(_("order"), min_value=1, step=1,
                                               help=_("The chunk's place in the list; the rows are sorted by it")),
        "file": st.column_config.TextColumn(_("file"), disabled=True),
        "page": st.column_config.NumberColumn(_("page"), disabled=True),
        "score": st.column_config.NumberColumn(_("score"), disabled=True, format="%.4g"),
        "text": st.column_config.TextColumn(_("text"), disabled=True),
    }


def _fork(step: int, field: Optional[str], value: Any) -> None:
    session = get_session()
    seg = guarded(session.fork, step, field, value)
    if seg is not None:
        reset_time_travel()
        route = seg.stepper.current_values().get("route")
        flash("success", _("{run}: `{field}` edited after step {n} and run forward — route now `{route}`. The original "
                           "steps stay in the timeline; the final states are compared above.").format(
            run=as_text(shown_name(seg.label)), field=in_code(field), n=step + 1, route=in_code(route)))


def _run_fork() -> None:
    step = int(st.session_state.get(STEP_KEY) or 1) - 1
    field = st.session_state.get(FIELD_KEY)
    _fork(step, field, parse_value(st.session_state.get(f"{VALUE_KEY}_{step}_{field}", "")))


def render_chunk_table(step: int, field: str, chunks: list) -> None:
    """The table of a chunk list and its own fork button; the button carries the list the table
    asks for now (every edit reruns the page, so it is never stale)."""
    st.caption(_("Reorder or drop chunks: change a row's order number, untick keep, then run the fork."))
    edited = st.data_editor(chunk_table(chunks), key=f"{CHUNK_TABLE_KEY}_{step}_{field}", hide_index=True,
                            num_rows="fixed", column_config=_column_config(), width="stretch")
    value = chunks_from_table(chunks, edited)
    st.button(_("Fork with these chunks ({n} of {total})").format(n=len(value), total=len(chunks)),
              key="what_if_run_chunks", on_click=_fork, args=(step, field, value), type="primary",
              help=_("Writes the kept chunks, in the table's order, as the field's new value and runs to the end."))


def render_what_if(travel: Any) -> None:
    session = get_session()
    pairs = session.all_steps()
    with lazy_expander(_("What if… edit the state after a step and run forward as a fork"),
                       key="what_if_folded") as is_open:
        if not is_open:
            return
        if not pairs:
            st.caption(_("Run or step a question first (or open a recorded run); a fork starts from one of its steps."))
            return
        if session.replay_mode:
            st.caption(_("A recorded run: the fork runs live from the recorded state, with this session's models and "
                         "knowledge base."))
        default = (travel + 1) if isinstance(travel, int) else len(pairs)
        step = st.number_input(_("After step"), min_value=1, max_value=len(pairs), value=min(default, len(pairs)),
                               key=STEP_KEY, help=_("The timeline's step number; the fork starts from the state after it."))
        seg, record = pairs[int(step) - 1]
        values = record.values_after
        fields = [k for k in values if k not in record.append_fields]
        field = st.selectbox(_("Field"), fields, index=fields.index("route") if "route" in fields else 0, key=FIELD_KEY,
                             help=_("Fields with an appending reducer (sub_results) cannot be replaced, only appended to."))
        if is_chunk_list(values.get(field)):
            render_chunk_table(int(step) - 1, field, values[field])
        st.text_area(_("New value (JSON, or plain text)"), value=value_text(values.get(field)),
                     key=f"{VALUE_KEY}_{int(step) - 1}_{field}", height=120, help=_(EXAMPLES))
        st.button(_("Run the fork"), key="what_if_run", on_click=_run_fork, type="primary",
                  help=_("Writes the value as {node}'s output (LangGraph update_state, as_node) and runs to the end.")
                  .format(node=as_text(record.nodes[-1])))
