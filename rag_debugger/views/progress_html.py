"""Progress steps (the `ProgressStep` events a run emits) as a table: a DataFrame for Streamlit
pages, HTML for the inspector. The engine's English labels are shown in the page's language
(`rag.graph.progress_labels`), recorded runs' too."""
from __future__ import annotations

import pandas as pd

from rag.graph.progress_labels import translate_progress
from rag.i18n import N_
from rag_debugger.views.html_view import table

PROGRESS_COLUMNS = (N_("step"), N_("detail"), N_("group"), N_("elapsed_ms"), N_("stage_ms"))
"""No icon column: the engine's icons are emoji, which need a font the app does not bring."""


def _progress_rows(progress: list[dict]) -> list[tuple]:
    return [
        (translate_progress(p.get("label", "")), translate_progress(p.get("detail", "")), p.get("group_label") or "",
         p.get("elapsed_ms", 0), p.get("stage_elapsed_ms", 0))
        for p in progress
    ]


def progress_frame(progress: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(_progress_rows(progress), columns=list(PROGRESS_COLUMNS))


def progress_html(progress: list[dict], *, table_id: str) -> str:
    return table(PROGRESS_COLUMNS, _progress_rows(progress), table_id=table_id, css="rdi-progress", translate=True)
