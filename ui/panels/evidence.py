"""Evidence of the current state: the chunks, the context the grader sees, and the grade."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from ui.panels.lazy import lazy_expander

CHUNK_COLUMNS = ["#", "filename", "page", "score", "rrf_rank", "rerank_score", "text"]


def chunks_frame(chunks: list[dict]) -> pd.DataFrame:
    rows = [
        {
            "#": i,
            "filename": c.get("filename"),
            "page": c.get("page_number"),
            "score": c.get("score"),
            "rrf_rank": c.get("rrf_rank"),
            "rerank_score": c.get("rerank_score"),
            "text": (c.get("text") or "")[:300],
        }
        for i, c in enumerate(chunks, start=1)
    ]
    return pd.DataFrame(rows, columns=CHUNK_COLUMNS)


def render_evidence(values: dict) -> None:
    trace = values.get("rag_trace") or {}
    docs = values.get("docs") or []
    candidates = trace.get("retrieved_chunks") if trace else None
    grade = values.get("grade")
    st.markdown("#### Evidence")
    if not trace and not docs:
        st.caption("No retrieval yet in this run.")
        return
    shown = docs or candidates or []
    label = "usable evidence (docs)" if docs else "candidates in the trace (not handed to the answerer)"
    if shown:
        st.caption(f"{len(shown)} chunks — {label}; stage `{trace.get('retrieval_stage', '?')}`, "
                   f"mode `{trace.get('retrieval_mode', '?')}`")
        st.dataframe(chunks_frame(shown), hide_index=True, width="stretch", key="evidence_chunks")
    else:
        st.caption("No chunks.")
    if trace.get("retrieval_error"):
        st.warning(f"Retrieval failed: {trace['retrieval_error']}")
    if values.get("context"):
        with lazy_expander("Context text the grader sees", key="grader_context") as is_open:
            if is_open:
                st.text(values["context"][:20000])
    if grade:
        st.markdown(
            f"**Grade**: relevance `{grade.get('relevance')}` · answerability `{grade.get('answerability')}` · "
            f"ambiguity `{grade.get('ambiguity')}` · confidence `{grade.get('confidence')}` · model proposed "
            f"`{grade.get('route')}` → decided **`{values.get('route')}`**"
        )
        if grade.get("reason"):
            st.caption(f"Reason: {grade['reason']}")
    if trace.get("grading_error"):
        st.warning(f"Grader unavailable, failed closed: {trace['grading_error']}")
