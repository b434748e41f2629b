"""Human in the loop: the follow-up question, one button per option, a free-text answer, and the
snapshot that `resume_rag_from_hitl` receives.

Every question that comes with options gets its buttons, whatever the route: a clarify question
("which platform?") offers them as much as a scope_select one. The free-text answer is a form, so
Enter in the box sends it, as people expect of a one-line answer."""
from __future__ import annotations

import streamlit as st

from rag.i18n import _
from rag_debugger.ui.step_controller import answered
from rag_debugger.ui.streamlit_state import get_session
from rag_debugger.views.icons import MATERIAL
from rag_debugger.views.markdown_text import as_text


def _answer(text: str) -> None:
    session = get_session()
    answered(lambda: session.answer_hitl(text),
             lambda _seg: _("Resuming with your answer “{answer}”. Step through the resume path or press Continue.")
             .format(answer=as_text(text.strip())))


def _answer_from_box() -> None:
    _answer(st.session_state.get(TEXT_KEY, ""))


TEXT_KEY = "hitl_text"


def render_hitl(result: dict) -> bool:
    """Render the HITL prompt when the finished run asks the user; True when it did."""
    snapshot = result.get("hitl_resume_state")
    if not snapshot:
        return False
    trace = result.get("rag_trace") or {}
    route = result.get("route")
    with st.container(border=True):
        st.markdown(f"### {MATERIAL['ask']} " + _("The workflow asks you ({route})").format(route=as_text(route)))
        st.markdown(as_text(trace.get("hitl_prompt") or _("Please add more detail.")))
        options = trace.get("hitl_options") or []
        if options:
            cols = st.columns(min(len(options), 4))
            for i, option in enumerate(options):
                cols[i % len(cols)].button(as_text(option), key=f"hitl_opt_{i}", on_click=_answer, args=(option,),
                                           width="stretch",
                                           help=_("Answer “{option}” and resume").format(option=as_text(option)))
        if route == "clarify" and not options:
            placeholder = _("Your answer (e.g. the missing condition)")
        else:
            placeholder = _("Or answer in your own words")
        with st.form("hitl_form", border=False, enter_to_submit=True):
            st.text_input(_("Answer"), key=TEXT_KEY, placeholder=placeholder, help=_("Press Enter to send"))
            st.form_submit_button(_("Send answer"), key="hitl_submit", on_click=_answer_from_box, type="primary")
        with st.expander(_("Resume snapshot (hitl_resume_state)")):
            st.json(snapshot)
    return True
