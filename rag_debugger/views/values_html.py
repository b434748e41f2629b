"""The RAG workflow's own values, drawn as what they are: a chunk is a card, a grade is badges with
its reason, a rewrite shows the question and the rewritten query side by side, sub-questions and
sub-results are lists. Everything else falls back to the debugger's generic tree
(`rag_debugger.views.value_view`), which stays free of RAG.

Pure functions of plain state values (the state is JSON), so tests read the same HTML the browser
shows; every text goes through `esc`.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

from rag.i18n import _, ngettext
from rag_debugger.debugger.html_page import esc
from rag_debugger.views.html_view import code
from rag_debugger.views.value_view import TypedValues, base_field, leaf_html, tree_html

CHUNK_PREVIEW_CHARS = 90
CHUNK_TEXT_MAX_CHARS = 4_000
CHUNK_LIST_FIELDS = frozenset({"docs", "retrieved_chunks", "initial_retrieved_chunks", "rewrite_retrieved_chunks",
                               "hitl_targeted_retrieved_chunks"})
GRADE_BADGES = ("relevance", "answerability", "ambiguity", "route", "confidence")
BADGE_TONE = {
    "strong": "good", "sufficient": "good", "answer": "good", "none": "neutral",
    "weak": "warn", "partial": "warn", "rewrite": "warn", "missing_slot": "warn", "multiple_candidates": "warn",
    "clarify": "warn", "scope_select": "warn", "no_knowledge": "bad",
}


def _num(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def is_chunk(value: Any) -> bool:
    return isinstance(value, Mapping) and "text" in value and "filename" in value


def chunk_key(chunk: Any) -> Any:
    """Two chunks are "the same chunk" in a list diff when their id (else file + page + text start) match."""
    if not isinstance(chunk, Mapping):
        return repr(chunk)
    return chunk.get("chunk_id") or (chunk.get("filename"), chunk.get("page_number"), (chunk.get("text") or "")[:80])


def chunk_card(chunk: Mapping[str, Any], *, number: Optional[int] = None) -> str:
    """File, page, level, the scores, and the text: a preview that expands to the whole chunk."""
    text = str(chunk.get("text") or "")
    preview = text[:CHUNK_PREVIEW_CHARS] + ("…" if len(text) > CHUNK_PREVIEW_CHARS else "")
    full = text[:CHUNK_TEXT_MAX_CHARS] + (_(" … ({n} more characters)").format(n=len(text) - CHUNK_TEXT_MAX_CHARS)
                                          if len(text) > CHUNK_TEXT_MAX_CHARS else "")
    num = f'<span class="rdi-chunk-n">[{number}]</span> ' if number is not None else ""
    meta = [_("page {n}").format(n=_num(chunk.get("page_number")))]
    if chunk.get("level") is not None:
        meta.append(_("level {n}").format(n=_num(chunk.get("level"))))
    score_parts = ((_("retrieval score"), _("score {n}").format(n=_num(chunk.get("score")))),
                   (_("rank in the fused (RRF) list"), _("rrf #{n}").format(n=_num(chunk.get("rrf_rank")))),
                   (_("reranker score"), _("rerank {n}").format(n=_num(chunk.get("rerank_score")))))
    scores = "".join(f'<span class="rdi-score" title="{esc(tip)}">{esc(text)}</span>' for tip, text in score_parts)
    ident = f' data-chunk="{esc(chunk.get("chunk_id"))}"' if chunk.get("chunk_id") else ""
    if len(text) <= CHUNK_PREVIEW_CHARS:  # short: nothing to expand
        body = f'<div class="rdi-chunk-text">{esc(text)}</div>'
    else:
        body = (f'<details class="rdi-chunk-text"><summary>{esc(preview)}</summary>'
                f'<div class="rdi-longtext">{esc(full)}</div></details>')
    return (f'<div class="rdi-chunk"{ident}><div class="rdi-chunk-head">{num}<b class="rdi-chunk-file">'
            f'{esc(chunk.get("filename"))}</b> <span class="rdi-caption">{esc(" · ".join(meta))}</span> {scores}</div>'
            f'{body}</div>')


def chunks_html(chunks: list) -> str:
    if not chunks:
        return "<code>[]</code>"
    cards = "".join(chunk_card(c, number=i) if is_chunk(c) else tree_html(c)
                    for i, c in enumerate(chunks, start=1))
    count = esc(ngettext("{n} chunk", "{n} chunks", len(chunks)).format(n=len(chunks)))
    return f'<div class="rdi-chunks-list"><p class="rdi-caption">{count}</p>{cards}</div>'


def badge(name: str, value: Any) -> str:
    tone = BADGE_TONE.get(str(value), "neutral")
    shown = _num(value)
    return (f'<span class="rdi-badge rdi-tone-{tone}" data-badge="{esc(name)}">'
            f'<span class="rdi-badge-k">{esc(name)}</span> {esc(shown)}</span>')


def grade_html(grade: Mapping[str, Any]) -> str:
    """The grader's verdict: one badge per dimension, the reason under them, then anything else."""
    badges = "".join(badge(k, grade.get(k)) for k in GRADE_BADGES if k in grade)
    out = [f'<div class="rdi-grade"><div class="rdi-badges">{badges}</div>']
    if grade.get("reason"):
        out.append(f'<div class="rdi-reason">{esc(grade["reason"])}</div>')
    if grade.get("missing_slots"):
        out.append('<div class="rdi-caption">' + esc(_("missing: {slots}").format(
            slots=", ".join(map(str, grade["missing_slots"])))) + "</div>")
    if grade.get("hitl_prompt"):
        opts = grade.get("hitl_options") or []
        out.append('<div class="rdi-caption">' + esc(_("asks: {prompt}").format(prompt=grade["hitl_prompt"]))
                   + (esc(_(" — options: {options}").format(options=" / ".join(map(str, opts)))) if opts else "")
                   + "</div>")
    out.append("</div>")
    return "".join(out)


def rewrite_html(original: Any, rewritten: Any, method: Any = None) -> str:
    """The query before and after a rewrite, side by side, with the method that produced it."""
    head = ('<div class="rdi-caption">' + esc(_("rewrite · method {method}")).format(method=code(method)) + "</div>"
            if method else "")
    was, now = esc(_("original")), esc(_("rewritten"))
    return (f'<div class="rdi-rewrite">{head}<div class="rdi-side"><div><div class="rdi-caption">{was}'
            f'</div>{leaf_html(original)}</div><div><div class="rdi-caption">{now}</div>'
            f'{leaf_html(rewritten)}</div></div></div>')


def sub_questions_html(questions: list) -> str:
    if not questions:
        return "<code>[]</code>"
    return '<ol class="rdi-subq">' + "".join(f"<li>{esc(q)}</li>" for q in questions) + "</ol>"


def sub_result_html(result: Mapping[str, Any]) -> str:
    """One lane's result: its question, route and status, then its chunks as cards."""
    docs = result.get("docs") or []
    return (f'<div class="rdi-subresult"><div><b>{esc(result.get("question"))}</b></div>'
            f'<div>{badge("route", result.get("route"))}{badge("status", result.get("retrieval_status"))}</div>'
            f'{details_chunks(docs)}</div>')


def details_chunks(docs: list) -> str:
    if not docs:
        return '<div class="rdi-caption">' + esc(_("no chunks")) + "</div>"
    count = esc(ngettext("{n} chunk", "{n} chunks", len(docs)).format(n=len(docs)))
    return f'<details class="rdi-tree"><summary>{count}</summary>{chunks_html(docs)}</details>'


def sub_results_html(results: list) -> str:
    if not results:
        return "<code>[]</code>"
    return '<ol class="rdi-subres">' + "".join(
        f"<li>{sub_result_html(r) if isinstance(r, Mapping) else tree_html(r)}</li>" for r in results) + "</ol>"


def rag_value_html(path: str, value: Any) -> Optional[str]:
    """The renderer the inspector hands to the generic views: typed HTML for the workflow's own
    values (by field name), None for everything else (then a tree)."""
    field = base_field(path)
    leaf = path.rsplit(".", 1)[-1].split("[", 1)[0]
    item = path.endswith("]")
    if item:
        if is_chunk(value):
            return chunk_card(value)
        if field == "sub_results" and isinstance(value, Mapping):
            return sub_result_html(value)
        if field == "sub_questions" and isinstance(value, str):
            return leaf_html(value)
        return None
    if leaf in CHUNK_LIST_FIELDS and isinstance(value, list):
        return chunks_html(value)
    if leaf == "retrieval_candidates" and isinstance(value, list):
        from rag_debugger.views.evidence_html import explain_summary

        return ('<span class="rdi-caption">' + esc(_("{summary} — the table is under Evidence: “Why these chunks?”")
                                                   .format(summary=explain_summary(value))) + "</span>")
    if leaf == "grade" and isinstance(value, Mapping):
        return grade_html(value)
    if leaf == "sub_questions" and isinstance(value, list):
        return sub_questions_html(value)
    if leaf == "sub_results" and isinstance(value, list):
        return sub_results_html(value)
    return None


def rag_key_for(field: str) -> Optional[Callable[[Any], Any]]:
    """List items that are "the same item" across a change: chunks by id, sub-results by question."""
    if field in CHUNK_LIST_FIELDS:
        return chunk_key
    if field == "sub_results":
        return lambda r: r.get("question") if isinstance(r, Mapping) else repr(r)
    return None


RAG_VALUES = TypedValues(rag_value_html, rag_key_for)


def query_rewrite_html(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    """When a step changed `query`, the rewrite side by side (the trace names the method)."""
    if before.get("query") == after.get("query") or "query" not in after:
        return ""
    trace = after.get("rag_trace") or {}
    if not trace.get("rewrite_method") and not before.get("query"):
        return ""
    return rewrite_html(before.get("query") or before.get("question"), after.get("query"), trace.get("rewrite_method"))
