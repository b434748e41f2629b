"""Hand-made evidence for the offline rules: chunk dicts as the retrieval seam returns them."""
from __future__ import annotations

from rag.models.base import GraderInput


def doc(text: str, filename: str = "kb.md", score: float | None = 1.0, rank: int | None = None) -> dict:
    return {"filename": filename, "text": text, "score": score, "rrf_rank": rank}


def grader_input(question: str, *docs: dict, **kw) -> GraderInput:
    docs_list = list(docs)
    context = "\n\n".join(f"[{i}] ({d['filename']})\n{d['text']}" for i, d in enumerate(docs_list, 1))
    return GraderInput(question=question, context=context, docs=docs_list, **kw)
