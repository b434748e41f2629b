"""Human in the loop: the follow-up question, one button per option, a free-text answer, and the
snapshot that `resume_rag_from_hitl` receives."""
from __future__ import annotations

import streamlit as st

from ui.panels.icons import MATERIAL
from ui.panels.time_travel import reset_time_travel
from ui.streamlit_state import flash, get_session, guarded


def _answer(text: str) -> None:
    session = get_session()
    reset_time_travel()
    if guarded(session.answer_hitl, text) is not None:
        flash("success", f"Resuming with your answer “{text.strip()}”. Step through the resume path or press Continue.")


def _answer_from_box() -> None:
    _answer(st.session_state.get("hitl_text", ""))


def render_hitl(result: dict) -> bool:
    """Render the HITL prompt when the finished run asks the user; True when it did."""
    snapshot = result.get("hitl_resume_state")
    if not snapshot:
        return False
    trace = result.get("rag_trace") or {}
    route = result.get("route")
    with st.container(border=True):
        st.markdown(f"### {MATERIAL['ask']} The workflow asks you ({route})")
        st.markdown(trace.get("hitl_prompt") or "Please add more detail.")
        options = trace.get("hitl_options") or []
        if route == "scope_select" and options:
            cols = st.columns(min(len(options), 4))
            for i, option in enumerate(options):
                cols[i % len(cols)].button(option, key=f"hitl_opt_{i}", on_click=_answer, args=(option,),
                                           width="stretch")
        placeholder = "Your answer (e.g. the missing condition)" if route == "clarify" else "Or answer in your own words"
        st.text_input("Answer", key="hitl_text", placeholder=placeholder)
        st.button("Send answer", key="hitl_submit", on_click=_answer_from_box, type="primary")
        with st.expander("Resume snapshot (hitl_resume_state)"):
            st.json(snapshot)
    return True
