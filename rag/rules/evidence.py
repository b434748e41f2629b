"""Evidence formatting and the post-grading evidence rules (docs/workflow.md §3.2, §3.5)."""
from __future__ import annotations

from typing import Any, Mapping, Sequence


def format_docs(docs: Sequence[Mapping[str, Any]]) -> str:
    """Numbered blocks with source, page and text: what the grader (and the answering agent) read."""
    blocks = []
    for i, doc in enumerate(docs, start=1):
        source = doc.get("filename") or "unknown"
        page = doc.get("page_number")
        where = f"{source}, page {page}" if page is not None else source
        blocks.append(f"[{i}] ({where})\n{(doc.get('text') or '').strip()}")
    return "\n\n".join(blocks)


def docs_after_grading(route: str, docs: list[dict]) -> list[dict]:
    """answer and rewrite keep the evidence; HITL routes and no_knowledge hand none to the answerer."""
    return list(docs) if route in ("answer", "rewrite") else []


def trace_chunks_after_grading(route: str, chunks: list[dict]) -> list[dict]:
    """In the trace, clarify / scope_select empty `retrieved_chunks`; no_knowledge may keep candidates."""
    return [] if route in ("clarify", "scope_select") else list(chunks)
