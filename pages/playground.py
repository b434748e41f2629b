import streamlit as st

st.title("🧪 Prompt playground")
st.info("Coming in this release.")
