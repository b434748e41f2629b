"""The cold-start baseline of bench/startup.py: the smallest Streamlit page with a heading."""
import streamlit as st

st.title("Hello")
