"""Every state field as a JSON tree, drawn only while the inspector's switch asks for it: a RAG
state is tens of kilobytes and most Steps do not need it."""
from __future__ import annotations

import json

import streamlit as st

from rag.i18n import _
from rag_debugger.debugger import format_value


def render_full_state(values: dict) -> None:
    with st.container(border=True, key="full_state"):
        st.markdown("**" + _("Full state") + "**")
        st.json({k: _jsonable(v) for k, v in values.items()}, expanded=1)


def _jsonable(value):
    try:
        json.dumps(value, ensure_ascii=False)
        return value
    except TypeError:
        return format_value(value)
