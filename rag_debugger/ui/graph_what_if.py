"""What if, on the Your graph page: pick a past step, edit one field of the state after it, and run forward
as a fork (`rag_debugger.debugger.session.GraphSession.fork`, LangGraph's `update_state(..., as_node=...)`). The
inspector then shows the fork beside the original, with both final states compared.

The RAG debugger's panel (`rag_debugger.ui.panels.what_if`) knows the RAG state (the route, chunk tables); this one
knows only the graph's own fields, and reads the value the same way (JSON, else plain text).
Folded and built only while open: a Step must not pay for it."""
from __future__ import annotations

import json
from typing import Any, Callable, Optional

import streamlit as st

from rag.i18n import _, ngettext
from rag_debugger.debugger.fork import message_fields
from rag_debugger.debugger.session import GraphSession
from rag_debugger.ui.panels.lazy import lazy_expander
from rag_debugger.ui.panels.time_travel import reset_time_travel
from rag_debugger.ui.panels.what_if import parse_value, value_text
from rag_debugger.ui.streamlit_state import flash, guarded
from rag_debugger.views.markdown_text import as_text, in_code
from rag_debugger.workbench.run_names import shown_name

STEP_KEY = "yg_what_if_step"
FIELD_KEY = "yg_what_if_field"
VALUE_KEY = "yg_what_if_value"


def editable_fields(values: dict, append_fields: Any, message_fields: Any = ()) -> list[str]:
    """The fields a fork may edit: every field of the state but those with an appending reducer (a write
    would append to the list, not replace it); a messages field (`add_messages`) is edited by message id."""
    return [k for k in values if k not in set(append_fields or ()) - set(message_fields or ())]


def message_text(message: Any) -> str:
    """A message as the JSON the box starts with: its role, content and id (keep the id to replace it)."""
    role = {"human": "user", "ai": "assistant"}.get(getattr(message, "type", ""), getattr(message, "type", "user"))
    return json.dumps({"role": role, "content": getattr(message, "content", ""), "id": getattr(message, "id", None)},
                      ensure_ascii=False, indent=1, default=str)


def edit_said(edit: Any) -> str:
    """What a what-if on a messages field did, in words."""
    if edit is None:
        return ""
    parts = []
    if edit.replaced:
        parts.append(_("replaced the message with id {ids}").format(ids=", ".join(edit.replaced)))
    if edit.appended:
        parts.append(ngettext("appended {n} message", "appended {n} messages", edit.appended).format(n=edit.appended))
    return "; ".join(parts)


def fork_now(session: GraphSession, step: int, field: str, text: str) -> None:
    """Fork after timeline step `step` (0-based) with `field` set to the value `text` reads as."""
    seg = guarded(session.fork, step, field, parse_value(text))
    if seg is not None:
        reset_time_travel()
        said = edit_said(seg.message_edit)
        flash("success", _("{run}: `{field}` edited after step {n} and run forward. The original steps stay in the "
                           "timeline; the final states are compared above.").format(
                  run=as_text(shown_name(seg.label)), field=in_code(field), n=step + 1)
              + (" " + _("The edit {what} (add_messages).").format(what=as_text(said)) if said else ""))


def _on_fork(get_session: Callable[[], Optional[GraphSession]]) -> None:
    session = get_session()
    if session is None:
        return
    step = int(st.session_state.get(STEP_KEY) or 1) - 1
    field = st.session_state.get(FIELD_KEY)
    if not field:
        return
    fork_now(session, step, field, st.session_state.get(f"{VALUE_KEY}_{step}_{field}", ""))


def render_graph_what_if(session: GraphSession, travel: Optional[int],
                         get_session: Callable[[], Optional[GraphSession]]) -> None:
    pairs = session.all_steps()
    with lazy_expander(_("What if… edit the state after a step and run forward as a fork"),
                       key="yg_what_if_folded") as is_open:
        if not is_open:
            return
        if not pairs:
            st.caption(_("Step or run the graph first (or open a recorded run); a fork starts from one of its steps."))
            return
        if session.replay_mode:
            st.caption(_("A recorded run: the fork runs live from the recorded state, on a new thread."))
        default = (travel + 1) if isinstance(travel, int) else len(pairs)
        step = st.number_input(_("After step"), min_value=1, max_value=len(pairs), value=min(default, len(pairs)),
                               key=STEP_KEY, help=_("The timeline's step number; the fork starts from the state after it."))
        _seg, record = pairs[int(step) - 1]
        messages = message_fields(session.graph)
        fields = editable_fields(record.values_after, record.append_fields, messages)
        if not fields:
            st.caption(_("The state after this step has no field a fork can replace."))
            return
        field = st.selectbox(_("Field"), fields, key=FIELD_KEY,
                             help=_("Fields with an appending reducer cannot be replaced, only appended to."))
        current = record.values_after.get(field)
        if field in messages:
            st.caption(_("A messages field (add_messages): a message whose id is already in the list replaces it; "
                         "one without an id, or with a new one, is appended. The box starts with the last message."))
            start = message_text(current[-1]) if current else '{"role": "user", "content": ""}'
        else:
            start = value_text(current)
        st.text_area(_("New value (JSON, or plain text)"), value=start,
                     key=f"{VALUE_KEY}_{int(step) - 1}_{field}", height=120)
        st.button(_("Run the fork"), key="yg_what_if_run", on_click=_on_fork, args=(get_session,), type="primary",
                  help=_("Writes the value as {node}'s output (LangGraph update_state, as_node) and runs to the end.")
                  .format(node=as_text(record.nodes[-1] if record.nodes else "?")))
