"""What a comparison of two runs says, as a list of blocks (headings, text, tables, folded parts),
written once and drawn two ways: by the Compare page with Streamlit elements (`rag_debugger.ui.compare_view`) and
as one self-contained HTML file (`rag_debugger.exports.compare_file`).

Why blocks and not two renderers: the page and the file must say the same things in the same words;
with the wording here, a change to what a comparison shows reaches both. Texts in blocks are plain
(user and model text is not escaped here): each renderer escapes for its medium. `code` spans are
marked with backticks in `md` blocks, whose other text is escaped by the renderer.
"""
from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Mapping, Optional

from rag.i18n import N_, _
from rag.runs.divergence import outcome_differences, prompt_version_name
from rag_debugger.debugger.html_page import esc
from rag_debugger.views.markdown_text import as_text, in_code

CAUSES = {
    "none": N_("The runs took the same steps with the same values: no divergence."),
    "input": N_("A different input (question, HITL answer or edited field)."),
    "settings": N_("Different settings."),
    "prompt": N_("A different prompt version."),
    "chunks": N_("Different retrieved chunks."),
    "grade_or_route": N_("A different grade or route."),
    "other": N_("The runs computed a different value."),
    "different_graphs": N_("The runs went through different graphs; what could be aligned is shown."),
    # runs of a graph of your own: said in generic terms (`rag.runs.divergence.classify_generic`)
    "graph_input": N_("A different input: `{field}` differs from the first step on."),
    "edited": N_("An edited field: a what-if fork set `{edit}` after step {edit_step}, and the runs differ from there."),
    "path": N_("The runs went different ways at `{node}`: a step only one run has."),
    "value": N_("A different value at node `{node}`: from the same state it wrote `{field}` differently."),
}
NO_ROUTE = N_("none (the run did not finish)")
"""A run that ended without a route (stopped, abandoned): an empty code chip would read as a route named ""."""
#: The parts of an outcome that can differ when the steps do not (`rag.runs.divergence.outcome_differences`).
OUTCOME_PARTS = {"route": N_("the route"), "answer": N_("the answer"), "evidence": N_("the evidence for the answer"),
                 "settings": N_("the settings"), "prompts": N_("the prompts"), "final_state": N_("the final state")}
ROW_KINDS = {"same": N_("same"), "differs": N_("differs"), "only_a": N_("only in A"), "only_b": N_("only in B")}
CHUNK_CHANGES = {"added": N_("added"), "removed": N_("removed"), "moved_up": N_("moved up"),
                 "moved_down": N_("moved down"), "same": N_("same rank")}
#: What a RAG step is read as, side by side (only those that differ, unless "all fields").
VIEW_FIELDS = ("route", "retrieval_status", "complexity", "grade", "query", "sub_questions", "hitl_answer",
               "rewrite_count")

Kind = Literal["subheader", "md", "caption", "success", "warning", "table", "code", "fold", "answer_diff", "text"]


@dataclass(frozen=True)
class Block:
    """One thing a comparison shows. `md`: a line whose backtick spans are code and `**` spans bold
    (`args` are plain values put into it, escaped by the renderer); `table`: `rows` of column → text;
    `fold`: a folded part titled `text` holding `children` (`open_`: unfolded at first); `answer_diff`:
    the two answers' words (`args`)."""

    kind: Kind
    text: str = ""
    args: tuple = ()
    rows: tuple = ()
    children: tuple = ()
    open_: bool = False
    code_language: Optional[str] = None
    only_all: bool = False
    """Shown only with "all fields" on."""


@dataclass
class _Out:
    blocks: list[Block] = field(default_factory=list)

    def add(self, kind: Kind, text: str = "", **kw: Any) -> None:
        self.blocks.append(Block(kind, text, **kw))




def short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit] + "…"


def word_diff_html(a: str, b: str) -> str:
    """A word-level diff: removed words struck through, added ones marked (all text escaped)."""
    wa, wb = (a or "").split(), (b or "").split()
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(esc(" ".join(wa[i1:i2])))
            continue
        if i2 > i1:
            out.append(f'<del style="background:#fdd">{esc(" ".join(wa[i1:i2]))}</del>')
        if j2 > j1:
            out.append(f'<ins style="background:#dfd">{esc(" ".join(wb[j1:j2]))}</ins>')
    return " ".join(out)


def answer_diff_html(a: str, b: str) -> str:
    """The answers' word diff as the Compare page shows it (one `st.html` element)."""
    return f'<div class="rdc-answer-diff">{word_diff_html(a, b)}</div>'


def comparison_blocks(rc: Any, side_a: Any, side_b: Any, *, show_all: bool) -> list[Block]:
    """Everything below the run pickers: the first divergence and its cause, the outcome, settings
    and prompts that differ, the aligned steps, each differing step side by side, the answers."""
    out = _Out()
    first = rc.comparison.first
    differs = outcome_differences(rc)
    if first is None and not differs and rc.graphs[0] == rc.graphs[1]:
        out.add("success", _(CAUSES["none"]))
    elif first is None and not differs:  # one run went on where the other stopped: not "no divergence"
        out.add("md", _("The steps both runs have took the same values."))
    elif first is None:  # the same steps, yet not the same runs: never "no divergence"
        out.add("warning", _("The runs took the same steps with the same values, but they differ in: {what}.").format(
            what=", ".join(_(OUTCOME_PARTS[d]) for d in differs)))
    else:
        node = in_code(first.node or "-")
        where = _("The runs first differ at step {step} (`{node}`)").format(step=int(first.step), node=node)
        if first.field:
            where += _(", in `{field}`").format(field=in_code(first.field))
        out.add("subheader", where)
        edit = getattr(rc, "edit", None) or (0, "-")
        out.add("md", _(CAUSES.get(rc.cause, CAUSES["other"])).format(
            node=node, field=in_code(first.field or "-"), edit=in_code(edit[1]), edit_step=int(edit[0])))
    if rc.graphs[0] != rc.graphs[1]:
        out.add("warning", _("Run A is {a} and run B is {b}: only the steps they share are aligned.").format(
            a=f"`{in_code(rc.graphs[0])}`", b=f"`{in_code(rc.graphs[1])}`"))
    if getattr(rc, "generic", False):
        _generic_rows(out, rc, side_a, side_b, show_all)
        return out.blocks
    outcome = _("Route: {a} → {b}").format(
        a=f"`{in_code(rc.route[0])}`" if rc.route[0] else _(NO_ROUTE),
        b=f"`{in_code(rc.route[1])}`" if rc.route[1] else _(NO_ROUTE))
    if rc.answered:
        outcome += " · " + (_("the same answer") if rc.answer_same else _("a different answer"))
    elif rc.route[0] and rc.route[1]:  # a run without a route never reached the answerer: nothing to compare
        outcome += " · " + (_("the same evidence for the answer") if rc.answer_same
                            else _("different evidence for the answer"))
    out.add("md", outcome)
    _settings(out, rc)
    _aligned_steps(out, rc, _steps(side_a), _steps(side_b), show_all, _step_pair, with_segment=True)
    _answers(out, side_a, side_b)
    return out.blocks


def _steps(side: Any) -> list:
    return [s for seg in side.segments() for s in seg.steps]


def _state_rows(va: Mapping[str, Any], vb: Mapping[str, Any], fields: Optional[tuple] = None) -> tuple:
    """The two states' differences path by path (`rag_debugger.debugger.state_diff.diff_states`), limited to `fields` (top-level
    names) unless None."""
    from rag_debugger.debugger.state_diff import ABSENT, diff_states

    def cell(value: Any) -> str:
        return _("(not set)") if value is ABSENT else short(value)

    rows = [r for r in diff_states(va, vb) if r.kind != "unchanged"
            and (fields is None or str(r.path).split(".", 1)[0].split("[", 1)[0] in fields)]
    return tuple({_("field"): r.path, "A": cell(r.before), "B": cell(r.after)} for r in rows)


def _generic_rows(out: _Out, rc: Any, side_a: Any, side_b: Any, show_all: bool) -> None:
    """Two runs of a graph of your own: the final state, the aligned steps and each differing step's state
    diff (its own fields that differ; every field with "all fields"); no RAG view."""
    steps_a, steps_b = _steps(side_a), _steps(side_b)
    if rc.final_fields:
        out.add("md", _("Final state: different in {fields}").format(
            fields=", ".join(f"`{in_code(f)}`" for f in rc.final_fields)))
    else:
        out.add("md", _("Final state: the same"))
    _aligned_steps(out, rc, steps_a, steps_b, show_all, _state_pair, with_segment=False)
    if rc.final_fields or show_all:
        fa = steps_a[-1].values_after if steps_a else {}
        fb = steps_b[-1].values_after if steps_b else {}
        out.add("subheader", _("Final state, A → B"))
        out.add("table", rows=_state_rows(fa, fb) or ({_("field"): _("(no difference)")},))


def _aligned_steps(out: _Out, rc: Any, steps_a: list, steps_b: list, show_all: bool,
                   pair: Callable[[Any, Any, Any, bool], list[Block]], *, with_segment: bool) -> None:
    """The aligned steps as a table, then each differing step (every step with "all fields") folded, its
    side-by-side view drawn by `pair`; the first divergence starts unfolded. `with_segment`: the RAG
    workflow's runs have segments (main run, resumes) to name."""
    out.add("subheader", _("Step by step"))
    out.add("table", rows=tuple({
        _("row"): str(r.row), **({_("segment"): r.segment} if with_segment else {}), _("step A"): str(r.a or ""),
        _("step B"): str(r.b or ""), _("node"): r.node, _("status"): _(ROW_KINDS[r.kind]),
        _("fields that differ"): ", ".join(r.fields[:6]),
    } for r in rc.comparison.rows))
    first = rc.comparison.first
    for row in rc.comparison.rows:
        if row.kind == "same" and not show_all:
            continue
        sa = steps_a[row.a - 1] if row.a else None
        sb = steps_b[row.b - 1] if row.b else None
        title = _("Step {a} / {b}: {node} ({status})").format(
            a=int(row.a) if row.a else "-", b=int(row.b) if row.b else "-", node=as_text(row.node),
            status=_(ROW_KINDS[row.kind]))
        out.add("fold", title, children=tuple(pair(row, sa, sb, show_all)),
                open_=first is not None and row.row == first.row, only_all=row.kind == "same")


def _only_one(sa: Any) -> Block:
    return Block("caption", _("Only run {side} has this step.").format(side="A" if sa is not None else "B"))


def _lanes(out: _Out, row: Any) -> None:
    """`Send` lanes only one of the two runs has at this step."""
    missing = [key for key, x, y in row.lanes if x is None or y is None]
    if missing:
        out.add("md", "**" + _("Parallel lanes only one run has") + "**")
        for key, x, _y in row.lanes:
            if key in missing:
                out.add("text", f"- {'A' if x is not None else 'B'}: {short(key, 120)}")


def _duration(out: _Out, sa: Any, sb: Any) -> None:
    out.add("caption", _("Duration: {a} ms → {b} ms ({delta:+.0f} ms)").format(
        a=round(sa.duration_ms), b=round(sb.duration_ms), delta=float(sb.duration_ms - sa.duration_ms)))


def _state_pair(row: Any, sa: Any, sb: Any, show_all: bool) -> list[Block]:
    """A step of two runs of a graph of your own: its state diff (its own differing fields, or all)."""
    if sa is None or sb is None:
        return [_only_one(sa)]
    out = _Out()
    rows = _state_rows(sa.values_after, sb.values_after, None if show_all else tuple(row.fields))
    out.add("table", rows=rows or ({_("field"): _("(no difference)")},))
    _lanes(out, row)
    _duration(out, sa, sb)
    return out.blocks


def _settings(out: _Out, rc: Any) -> None:
    if rc.settings:
        out.add("subheader", _("Settings that differ"))
        out.add("table", rows=tuple({_("setting"): k, "A": short(a), "B": short(b)} for k, a, b in rc.settings))
    if rc.prompt_versions[0] != rc.prompt_versions[1]:
        out.add("md", _("Prompt version: `{a}` → `{b}`").format(a=in_code(prompt_version_name(rc.prompt_versions[0])),
                                                                b=in_code(prompt_version_name(rc.prompt_versions[1]))))
    for role, text in rc.prompt_diffs.items():
        out.add("fold", _("Prompt of the {role} role, A → B").format(role=as_text(role)),
                children=(Block("code", text, code_language="diff"),))


def _step_pair(row: Any, sa: Any, sb: Any, show_all: bool) -> list[Block]:
    if sa is None or sb is None:
        return [_only_one(sa)]
    out = _Out()
    va, vb = sa.values_after, sb.values_after
    fields = [f for f in VIEW_FIELDS if show_all or f in row.fields]
    trace_a, trace_b = va.get("rag_trace") or {}, vb.get("rag_trace") or {}
    rows = [{_("field"): f, "A": short(va.get(f)), "B": short(vb.get(f))} for f in fields if f in va or f in vb]
    rows += [{_("field"): f"rag_trace.{k}", "A": short(trace_a.get(k)), "B": short(trace_b.get(k))}
             for k in row.fields if k not in va and k not in vb and (k in trace_a or k in trace_b)]
    if rows:
        out.add("table", rows=tuple(rows))
    if "docs" in row.fields or (show_all and va.get("docs") is not None):
        from rag.runs.divergence import chunk_changes

        changes = chunk_changes(va.get("docs") or [], vb.get("docs") or [])
        out.add("md", "**" + _("Retrieved chunks, A → B") + "**")
        out.add("table", rows=tuple({
            _("chunk"): c.chunk_id, _("file"): c.filename, _("change"): _(CHUNK_CHANGES[c.change]),
            _("rank A"): str(c.rank_a or ""), _("rank B"): str(c.rank_b or ""),
            _("score A"): "" if c.score_a is None else f"{c.score_a:.4f}",
            _("score B"): "" if c.score_b is None else f"{c.score_b:.4f}"} for c in changes
            if show_all or c.change != "same" or c.score_a != c.score_b))
    _lanes(out, row)
    prompt_a, prompt_b = trace_a.get("hitl_prompt"), trace_b.get("hitl_prompt")
    if prompt_a != prompt_b or (show_all and (prompt_a or prompt_b)):
        out.add("md", "**" + _("HITL question") + "**")
        out.add("table", rows=({"A": short(prompt_a), "B": short(prompt_b)},
                               {"A": short(trace_a.get("hitl_options")), "B": short(trace_b.get("hitl_options"))}))
    _duration(out, sa, sb)
    if show_all:
        from rag_debugger.debugger.state_diff import diff_states

        diff = [r for r in diff_states(va, vb) if r.kind != "unchanged"]
        out.add("table", rows=tuple({_("field"): r.path, "A": short(r.before), "B": short(r.after)} for r in diff)
                if diff else ({_("field"): _("(no difference)")},))
    return out.blocks


def answer_text(result: Mapping[str, Any]) -> str:
    answer = result.get("answer")
    if isinstance(answer, Mapping):
        return str(answer.get("text") or "")
    return str(answer or "")


def _extractive_now(result: Mapping[str, Any]) -> str:
    """The extractive answer to a finished result that took the answer route but recorded no answer (an
    evaluation's run, an older file): computed from its evidence, so both sides show an answer."""
    from rag.answering import answer_for

    try:
        answer = answer_for(result)
    except Exception:  # noqa: BLE001 - a result too odd to answer: no answer shown rather than a failure
        return ""
    return answer.text if answer is not None else ""


def _answers(out: _Out, side_a: Any, side_b: Any) -> None:
    ra, rb = side_a.last.result or {}, side_b.last.result or {}
    ta, tb = answer_text(ra), answer_text(rb)
    if not (ta or tb):
        return
    out.add("subheader", _("Answer, A → B"))
    computed = []
    if not ta:
        ta = _extractive_now(ra)
        computed.append("A")
    if not tb:
        tb = _extractive_now(rb)
        computed.append("B")
    for side in computed:
        out.add("caption", _("Run {side} recorded no answer; shown: the extractive answer to its evidence, computed "
                             "now.").format(side=as_text(side)) if (ta if side == "A" else tb)
                else _("Run {side} gave no answer.").format(side=as_text(side)))
    if ta == tb:
        out.add("caption", _("The same answer."))
        out.add("text", ta)
    else:
        for side, text in (("A", ta), ("B", tb)):
            out.add("md", "**" + _("Answer of run {side}").format(side=as_text(side)) + "**")
            out.add("text", text or "—")
        out.add("fold", _("Word changes, A → B"), children=(Block("answer_diff", args=(ta, tb)),))
