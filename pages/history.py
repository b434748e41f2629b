import streamlit as st

st.title("🗂️ Run history")
st.info("Coming in this release.")
