"""What if: pick a step, edit one field of the state after it, and run forward as a fork
(`DebugSession.fork`, built on LangGraph's `update_state(..., as_node=...)`).

Folded and built only while open (ui/panels/lazy.py): a Step must not pay for it."""
from __future__ import annotations

import json
from typing import Any

import streamlit as st

from debugger.diff import json_default
from rag.i18n import N_, _
from ui.panels.lazy import lazy_expander
from ui.panels.run_labels import run_label
from ui.panels.time_travel import reset_time_travel
from ui.streamlit_state import flash, get_session, guarded

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


def _run_fork() -> None:
    session = get_session()
    step = int(st.session_state.get(STEP_KEY) or 1) - 1
    field = st.session_state.get(FIELD_KEY)
    value = parse_value(st.session_state.get(f"{VALUE_KEY}_{step}_{field}", ""))
    seg = guarded(session.fork, step, field, value)
    if seg is not None:
        reset_time_travel()
        route = seg.stepper.current_values().get("route")
        flash("success", _("{run}: `{field}` edited after step {n} and run forward — route now `{route}`. The original "
                           "steps stay in the timeline; the final states are compared above.").format(
            run=run_label(seg.label), field=field, n=step + 1, route=route))


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
        st.text_area(_("New value (JSON, or plain text)"), value=value_text(values.get(field)),
                     key=f"{VALUE_KEY}_{int(step) - 1}_{field}", height=120, help=_(EXAMPLES))
        st.button(_("Run the fork"), key="what_if_run", on_click=_run_fork, type="primary",
                  help=_("Writes the value as {node}'s output (LangGraph update_state, as_node) and runs to the end.")
                  .format(node=record.nodes[-1]))
