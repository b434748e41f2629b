"""Evidence of the current state: the chunks, the context the grader sees, and the grade (HTML for
the inspector; see `debugger.html_view` for why HTML)."""
from __future__ import annotations

from debugger.html_view import code, details, esc, table

CHUNK_COLUMNS = ("#", "filename", "page", "score", "rrf_rank", "rerank_score", "text")
CONTEXT_MAX_CHARS = 20_000


def _cell(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def chunk_rows(chunks: list[dict]) -> list[tuple]:
    return [
        (i, c.get("filename"), _cell(c.get("page_number")), _cell(c.get("score")), _cell(c.get("rrf_rank")),
         _cell(c.get("rerank_score")), (c.get("text") or "")[:300])
        for i, c in enumerate(chunks, start=1)
    ]


EXPLAIN_COLUMNS = ("chunk", "file", "level", "sparse rank", "dense rank", "RRF score", "auto-merge", "rrf rank",
                   "rerank score", "outcome")


def explain_rows(candidates: list[dict]) -> list[tuple]:
    """One row per candidate of `rag_trace.retrieval_candidates` (rag/retrieval/explain.py)."""
    rows = []
    for c in candidates:
        if c.get("from_merge"):
            merge = "parent brought in by auto-merge"
        elif c.get("merged_into"):
            merge = f"replaced by parent {c['merged_into']}"
        else:
            merge = "—"
        rows.append((c.get("chunk_id"), c.get("filename"), _cell(c.get("level")), _cell(c.get("sparse_rank")),
                     _cell(c.get("dense_rank")), _cell(c.get("rrf_score")), merge, _cell(c.get("rrf_rank")),
                     _cell(c.get("rerank_score")), c.get("outcome")))
    return rows


def explain_summary(candidates: list[dict]) -> str:
    counts: dict[str, int] = {}
    for c in candidates:
        counts[c.get("outcome") or "?"] = counts.get(c.get("outcome") or "?", 0) + 1
    return f"{len(candidates)} candidates: " + ", ".join(f"{n} {k}" for k, n in counts.items())


def retrieval_explain_html(trace: dict) -> str:
    """Why each recalled chunk is in or out of this retrieval: a table, folded (it has tens of rows)."""
    candidates = trace.get("retrieval_candidates") or []
    if not candidates:
        return ""
    outcomes = [f'class="rdi-outcome-{esc(str(c.get("outcome", "")).split()[0])}"' for c in candidates]
    body = (f'<p class="rdi-caption">Stage {code(trace.get("retrieval_stage", "?"))}: sparse and dense ranks are '
            "each leg's order (— = that leg did not find it); RRF fuses them; auto-merge may replace sibling "
            "chunks by their parent; then rerank (or score order), top-k and the min-score threshold cut.</p>"
            + table(EXPLAIN_COLUMNS, explain_rows(candidates), table_id="retrieval_explain", row_attrs=outcomes,
                    css="rdi-explain"))
    return details(f"Why these chunks? {explain_summary(candidates)}", body, ident="retrieval_explain")


def evidence_html(values: dict) -> str:
    trace = values.get("rag_trace") or {}
    docs = values.get("docs") or []
    grade = values.get("grade")
    out = ['<h4>Evidence</h4>']
    if not trace and not docs:
        out.append('<p class="rdi-caption">No retrieval yet in this run.</p>')
        return "".join(out)
    shown = docs or trace.get("retrieved_chunks") or []
    label = "usable evidence (docs)" if docs else "candidates in the trace (not handed to the answerer)"
    if shown:
        out.append(f'<p class="rdi-caption">{len(shown)} chunks — {esc(label)}; stage '
                   f'{code(trace.get("retrieval_stage", "?"))}, mode {code(trace.get("retrieval_mode", "?"))}</p>')
        out.append(table(CHUNK_COLUMNS, chunk_rows(shown), table_id="chunks", css="rdi-chunks"))
    else:
        out.append('<p class="rdi-caption">No chunks.</p>')
    out.append(retrieval_explain_html(trace))
    if trace.get("retrieval_error"):
        out.append(f'<div class="rdi-warning">Retrieval failed: {esc(trace["retrieval_error"])}</div>')
    if values.get("context"):
        text = values["context"][:CONTEXT_MAX_CHARS]
        out.append(details("Context text the grader sees", f'<pre class="rdi-text">{esc(text)}</pre>',
                           ident="grader_context"))
    if grade:
        out.append(
            f'<p><b>Grade</b>: relevance {code(grade.get("relevance"))} · answerability '
            f'{code(grade.get("answerability"))} · ambiguity {code(grade.get("ambiguity"))} · confidence '
            f'{code(grade.get("confidence"))} · model proposed {code(grade.get("route"))} → decided '
            f'<b>{code(values.get("route"))}</b></p>'
        )
        if grade.get("reason"):
            out.append(f'<p class="rdi-caption">Reason: {esc(grade["reason"])}</p>')
    if trace.get("grading_error"):
        out.append(f'<div class="rdi-warning">Grader unavailable, failed closed: {esc(trace["grading_error"])}</div>')
    return "".join(out)
