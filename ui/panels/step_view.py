"""Progress steps (the `ProgressStep` events a run emits) as a table, and the full state on demand."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from debugger import format_value
from debugger.html_view import table

PROGRESS_COLUMNS = ("", "step", "detail", "group", "elapsed_ms", "stage_ms")


def _progress_rows(progress: list[dict]) -> list[tuple]:
    return [
        (p.get("icon", ""), p.get("label", ""), p.get("detail", ""), p.get("group_label") or "",
         p.get("elapsed_ms", 0), p.get("stage_elapsed_ms", 0))
        for p in progress
    ]


def progress_frame(progress: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(_progress_rows(progress), columns=list(PROGRESS_COLUMNS))


def progress_html(progress: list[dict], *, table_id: str) -> str:
    return table(PROGRESS_COLUMNS, _progress_rows(progress), table_id=table_id, css="rdi-progress")


def render_full_state(values: dict) -> None:
    """Every state field as a JSON tree. Drawn only while asked for (the switch in the inspector):
    a RAG state is tens of kilobytes and most Steps do not need it."""
    with st.container(border=True, key="full_state"):
        st.markdown("**Full state**")
        st.json({k: _jsonable(v) for k, v in values.items()}, expanded=1)


def _jsonable(value):
    import json

    try:
        json.dumps(value, ensure_ascii=False)
        return value
    except TypeError:
        return format_value(value)
