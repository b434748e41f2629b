"""The floor Streamlit itself sets: a page with one button and a counter (bench/ui_step.py)."""
import streamlit as st

st.session_state.setdefault("clicks", 0)


def _click():
    st.session_state["clicks"] += 1


st.button("Step", key="step", on_click=_click)
st.markdown(f"clicks: {st.session_state['clicks']}")
