"""Evidence of the current state: the chunks, the context the grader sees, and the grade (HTML for
the inspector; see `rag_debugger.views.html_view` for why HTML)."""
from __future__ import annotations

from rag.i18n import N_, _, ngettext
from rag_debugger.debugger.html_page import esc
from rag_debugger.views.html_view import code, details, table

CHUNK_COLUMNS = (N_("#"), N_("filename"), N_("page"), N_("score"), N_("rrf_rank"), N_("rerank_score"), N_("text"))
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


EXPLAIN_COLUMNS = (N_("chunk"), N_("file"), N_("level"), N_("sparse rank"), N_("dense rank"), N_("RRF score"),
                   N_("auto-merge"), N_("rrf rank"), N_("rerank score"), N_("outcome"))


def explain_rows(candidates: list[dict]) -> list[tuple]:
    """One row per candidate of `rag_trace.retrieval_candidates` (rag/retrieval/explain.py)."""
    rows = []
    for c in candidates:
        if c.get("from_merge"):
            merge = _("parent brought in by auto-merge")
        elif c.get("merged_into"):
            merge = _("replaced by parent {chunk}").format(chunk=c["merged_into"])
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
    return _("{n} candidates: {counts}").format(n=len(candidates), counts=", ".join(f"{n} {k}" for k, n in counts.items()))


def retrieval_explain_html(trace: dict) -> str:
    """Why each recalled chunk is in or out of this retrieval: a table, folded (it has tens of rows)."""
    candidates = trace.get("retrieval_candidates") or []
    if not candidates:
        return ""
    outcomes = [f'class="rdi-outcome-{esc(str(c.get("outcome", "")).split()[0])}"' for c in candidates]
    body = ('<p class="rdi-caption">' + esc(_(
                "Stage {stage}: sparse and dense ranks are each leg's order (— = that leg did not find it); RRF "
                "fuses them; auto-merge may replace sibling chunks by their parent; then rerank (or score order), "
                "top-k and the min-score threshold cut.")).format(stage=code(trace.get("retrieval_stage", "?")))
            + "</p>"
            + table(EXPLAIN_COLUMNS, explain_rows(candidates), table_id="retrieval_explain", row_attrs=outcomes,
                    css="rdi-explain", translate=True))
    return details(_("Why these chunks? {summary}").format(summary=explain_summary(candidates)), body,
                   ident="retrieval_explain")


def lanes_evidence_html(lanes: list[dict]) -> str:
    """What each parallel lane (a `Send` per sub-question) retrieved and how it was graded, before
    synthesis merges them into the run's evidence."""
    out = ['<p class="rdi-caption">' + esc(ngettext(
        "{n} parallel lane retrieved for its sub-question; synthesis merges the lanes' evidence next.",
        "{n} parallel lanes retrieved, each for its sub-question; synthesis merges the lanes' evidence next.",
        len(lanes)).format(n=len(lanes))) + "</p>"]
    for i, lane in enumerate(lanes, start=1):
        docs = lane.get("docs") or []
        title = ngettext("Lane {i}: {question} — {n} chunk, route {route}",
                         "Lane {i}: {question} — {n} chunks, route {route}", len(docs)).format(
            i=i, question=lane.get("question") or "?", n=len(docs), route=lane.get("route") or "?")
        out.append(details(title, table(CHUNK_COLUMNS, chunk_rows(docs), table_id=f"chunks_lane_{i}", css="rdi-chunks",
                                        translate=True) if docs else esc(_("No chunks.")), ident=f"lane_evidence_{i}"))
    return "".join(out)


def evidence_html(values: dict) -> str:
    trace = values.get("rag_trace") or {}
    docs = values.get("docs") or []
    grade = values.get("grade")
    out = ["<h4>" + esc(_("Evidence")) + "</h4>"]
    lanes = [r for r in values.get("sub_results") or [] if isinstance(r, dict)]
    if lanes and not docs and not trace.get("retrieval_stage"):
        # the parallel lanes retrieved, each for its sub-question; synthesis merges them next
        out.append(lanes_evidence_html(lanes))
        return "".join(out)
    if not trace and not docs:
        out.append('<p class="rdi-caption">' + esc(_("No retrieval yet in this run.")) + "</p>")
        return "".join(out)
    shown = docs or trace.get("retrieved_chunks") or []
    label = _("usable evidence (docs)") if docs else _("candidates in the trace (not handed to the answerer)")
    if shown:
        out.append('<p class="rdi-caption">' + esc(ngettext("{n} chunk — {label}; stage {stage}, mode {mode}",
                                                           "{n} chunks — {label}; stage {stage}, mode {mode}",
                                                           len(shown))).format(
            n=len(shown), label=esc(label), stage=code(trace.get("retrieval_stage", "?")),
            mode=code(trace.get("retrieval_mode", "?"))) + "</p>")
        out.append(table(CHUNK_COLUMNS, chunk_rows(shown), table_id="chunks", css="rdi-chunks", translate=True))
    else:
        out.append('<p class="rdi-caption">' + esc(_("No chunks.")) + "</p>")
    out.append(retrieval_explain_html(trace))
    if trace.get("retrieval_error"):
        out.append('<div class="rdi-warning">' + esc(_("Retrieval failed: {error}").format(
            error=trace["retrieval_error"])) + "</div>")
    if values.get("context"):
        text = values["context"][:CONTEXT_MAX_CHARS]
        out.append(details(_("Context text the grader sees"), f'<pre class="rdi-text">{esc(text)}</pre>',
                           ident="grader_context"))
    if grade:
        out.append("<p>" + _(
            "<b>Grade</b>: relevance {relevance} · answerability {answerability} · ambiguity {ambiguity} · "
            "confidence {confidence} · model proposed {proposed} → decided <b>{decided}</b>").format(
            relevance=code(grade.get("relevance")), answerability=code(grade.get("answerability")),
            ambiguity=code(grade.get("ambiguity")), confidence=code(grade.get("confidence")),
            proposed=code(grade.get("route")), decided=code(values.get("route"))) + "</p>")
        if grade.get("reason"):
            out.append('<p class="rdi-caption">' + esc(_("Reason: {reason}").format(reason=grade["reason"])) + "</p>")
    if trace.get("grading_error"):
        out.append('<div class="rdi-warning">' + esc(_("Grader unavailable, failed closed: {error}").format(
            error=trace["grading_error"])) + "</div>")
    return "".join(out)
