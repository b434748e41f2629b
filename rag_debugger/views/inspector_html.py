"""The inspector's HTML: every section a Step changes (position, graph, timeline, the step's lanes and
diff, the result, the evidence), built as text without Streamlit.

Why apart from the component (rag_debugger/ui/panels/inspector.py, which mounts these sections and takes
the browser's events): the same functions draw the page and a run's HTML file (rag_debugger/exports/run_file.py,
with no browser session behind it), and tests read the HTML the browser shows without a browser. Built on
the debugger's views (`rag_debugger.views.html_view`, `rag_debugger.views.value_view`) and the RAG sections
beside them (`rag_debugger.views.evidence_html` and the others).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, MutableMapping, Optional, Sequence

from rag.graph.progress_labels import translate_progress
from rag.i18n import N_, _, current_language, ngettext
from rag.outcome_words import outcome_words
from rag_debugger.debugger.html_page import esc, style_element
from rag_debugger.debugger.protocol import InspectedSession
from rag_debugger.debugger.records import StepRecord
from rag_debugger.debugger.state_diff import diff_states
from rag_debugger.debugger.timeline import timeline_rows
from rag_debugger.views.answer_html import answer_html
from rag_debugger.views.control_rule import control_state
from rag_debugger.views.debugger_controls import controls_html, target_texts
from rag_debugger.views.degradation_html import degraded_html
from rag_debugger.views.evidence_html import evidence_html
from rag_debugger.views.html_view import code, details, diff_html, dot_source_html, graph_html, step_html, timeline_html
from rag_debugger.views.icons import progress_mark, svg_icon
from rag_debugger.views.plausibility_html import plausibility_html
from rag_debugger.views.progress_html import progress_html
from rag_debugger.views.svg import layout_svg, mark_svg
from rag_debugger.views.value_view import TypedValues, state_html
from rag_debugger.views.values_html import RAG_VALUES, query_rewrite_html
from rag_debugger.views.waterfall import waterfall_html
from rag_debugger.views.waterfall_note import waterfall_note
from rag_debugger.workbench.graphs import route_decision
from rag_debugger.workbench.run_names import shown_name

STATIC = Path(__file__).resolve().parent / "static"


@lru_cache(maxsize=1)
def style_sheet() -> str:
    """The inspector's style sheet (every rule scoped to .rdi-root): the page puts it in once, outside its
    fragment; a run's HTML file carries it inline."""
    return (STATIC / "inspector.css").read_text(encoding="utf-8")


def style_html() -> str:
    """The style sheet as the page puts it in (`st.html`)."""
    return style_element(style_sheet())


TIMELINE_CACHE_KEY = "_timeline_rows"
TIMELINE_COLUMNS = (N_("step"), N_("run"), N_("nodes"), N_("lanes"), N_("duration_ms"), N_("decision"),
                    N_("progress (ms since the run began)"), N_("error"))
"""A step's progress events show as the first word of their label + elapsed ms (their emoji icons
need a font the app does not bring); their full text is the row's tooltip."""


def lazy_details(summary: str, build: Callable[[], str], *, ident: str, opened: frozenset[str]) -> str:
    """A folded part whose body is built and sent only while the browser has it open: a Step does
    not pay for what nobody looks at (the waterfall, every progress step). Opening it reruns the
    page once (inspector.js reports the open ids), and the body comes with that update."""
    body = build() if ident in opened else ""
    return details(summary, body, ident=ident, open_=ident in opened).replace("<details ", "<details data-lazy ", 1)


KEYS_HINT = N_('<p class="rdi-caption rdi-keys">Keys: <kbd>s</kbd> Step · <kbd>c</kbd> Continue · '
               '<kbd>←</kbd> <kbd>→</kbd> back / forward through the timeline</p>')
"""Handled by inspector.js (not while typing in a field)."""

SECTIONS = ("controls", "head", "live", "graph", "dot", "docs", "step", "timeline", "evidence", "progress")
"""The inspector's parts, in page order. The browser replaces only the parts whose HTML changed
(the controls only when one turns on or off, the graph picture and the node docs only when the
graph changes, the evidence only when retrieval ran), so a Step re-lays out less and a focused
button stays focused."""
TEMPLATE = (
    '<div class="rdi-root"><div data-sec="controls"></div>'
    '<div class="rdi-cols"><div class="rdi-left"><div data-sec="graph"></div><div data-sec="dot"></div>'
    '<div data-sec="docs"></div></div>'
    '<div class="rdi-right"><div data-sec="head"></div><div data-sec="live"></div><div data-sec="step"></div></div></div>'
    '<div data-sec="timeline"></div><div data-sec="evidence"></div><div data-sec="progress"></div></div>'
)
"""Graph and the step's diff side by side right under the controls (the position line, the result
and the answer head the diff's column), so a Step's effect is on one screen at projector sizes
(1280x720, 1024x768) without scrolling; the timeline spans the width below them, so none of its
columns is cut."""


@dataclass(frozen=True)
class InspectorParts:
    """What the inspector shows that depends on the graph. The defaults are the RAG debugger's; the
    "Your graph" page passes its own (no evidence, no RAG node docs) and a session of the same
    protocol (`rag_debugger.debugger.protocol.InspectedSession`, e.g. `rag_debugger.debugger.session.GraphSession`)."""

    decision: Optional[Callable[[dict], Any]] = None
    """The timeline's "decision" of a step's state (None: the RAG route)."""
    evidence: bool = True
    node_docs: Optional[Callable[[], str]] = None
    """HTML of the node help (None: the RAG nodes')."""
    idle_hint: str = N_("type a question or pick a demo, then Step or Run.")
    """Shown through `_()`: mark it with `N_`."""
    controls_caption: Optional[str] = None
    timeline_columns: Optional[tuple[str, ...]] = None
    """The timeline's columns (None: the RAG debugger's)."""
    values: TypedValues = RAG_VALUES
    """How state values are drawn (typed cards for the RAG state; a generic tree elsewhere)."""
    link: Optional[Callable[[Any, Optional[int]], dict[str, str]]] = None
    """The query parameters the page's URL gets for a view (None: the RAG debugger's `?run=&step=`,
    `rag_debugger.views.run_link.link_for`); the page writes them (rag_debugger/ui/panels/inspector.py)."""


RAG_PARTS = InspectorParts()


def join_sections(sections: dict[str, str]) -> str:
    return "".join(sections.get(name, "") for name in SECTIONS)


def inspector_sections(session: InspectedSession, travel: Optional[int], *, full_state: bool = False,
                       box: str = "", parts: InspectorParts = RAG_PARTS,
                       opened: frozenset[str] = frozenset(), interactive: bool = True,
                       per_position_only: bool = False, position_line: Optional[str] = None,
                       timeline_cache: Optional[MutableMapping[Any, Any]] = None) -> tuple[dict[str, str], dict]:
    """(HTML per section, state values shown). `opened`: the folded parts the browser has open
    (`lazy_details`); the others are sent without their body. `interactive=False`: for a file with no
    server behind it (rag_debugger/exports/run_file.py): no controls, no switches, nothing read from a browser session.
    `per_position_only`: only the sections that change with the position (head, graph, step, evidence); the
    timeline, the node docs and the session-wide progress are left empty (a file draws them once).
    `position_line`: `position_html` already drawn (it says where the session stands, whatever the view).
    `timeline_cache`: where the timeline's rows are kept between draws (the page's session state; only while
    `interactive`). The page's URL is the page's to add (`InspectorParts.link`)."""
    seg = session.current
    pairs = session.all_steps()
    # the latest step of the run the page is in: a resume that has not stepped yet shows no step of the run
    # before it (its position line says "0 steps"), and the step's number is the timeline's and the URL's
    record = pairs[-1][1] if pairs and pairs[-1][0] is seg else None
    number: Optional[int] = len(pairs) if record is not None else None
    values = seg.stepper.current_values() if seg else {}
    head = position_html(session, idle_hint=parts.idle_hint) if position_line is None else position_line
    if travel is not None and travel < len(pairs):
        travel_seg, record = pairs[travel]
        number = travel + 1
        # the app reads the checkpoint (nothing is re-run); a file of a finished run has the record's copy
        values = (record.values_after if not interactive and record.values_after
                  else travel_seg.stepper.state_at(record.after_checkpoint_id or ""))  # "" is refused as None was
        head += travel_note_html(travel, record.nodes)
    else:
        travel = None
    head += degraded_html(values)  # a failed model or retriever, said before the route it led to
    head += plausibility_html(record)  # where the model seems to have guessed (the route stands)
    if travel is None:
        head += result_html(session.result())
        head += answer_html(session.answer())  # after the graph, outside it (rag/answering.py); None elsewhere
        head += fork_html(session, parts.values)
    drawing = session.drawing(travel)
    step_progress = step_progress_html(record)
    if seg and interactive:
        checked = " checked" if full_state else ""
        head += ('<label class="rdi-switch"><input type="checkbox" class="rdi-full-state-toggle"'
                 f'{checked}> ' + esc(_("Show the full state below")) + "</label>")
    sections: dict[str, Any] = {
        "controls": controls_html(control_state(session, box=box), box=box, loaded=session.question,
                                  caption=parts.controls_caption)
        if interactive else "",
        "head": head,
        "live": "",  # the running step's model calls (rag_debugger/views/live_call_html.py), filled while one runs
        "graph": graph_section(drawing),
        "dot": dot_source_html(drawing.dot()) if interactive else "",
        "docs": "" if per_position_only else (parts.node_docs or _node_docs_html)(),
        "timeline": "" if per_position_only else _timeline_section(
            session, pairs, travel, decision=parts.decision, columns=parts.timeline_columns,
            cache=timeline_cache if interactive else None),
        "step": (query_rewrite_html(record.values_before, record.values_after) if record and parts.evidence else "")
        # with no run loaded the position line and the controls' caption already say what to do: a third
        # "Nothing has run yet. Press Step…" under them repeated it
        + (step_html(record, progress_table=step_progress, view=parts.values, opened=opened, number=number,
                     empty=no_step_note(session, pairs)) if seg else "")
        + (_(KEYS_HINT) if interactive else ""),
        "evidence": evidence_html(values) if seg and parts.evidence else "",
        "progress": "",
    }
    if interactive:
        sections["texts"] = target_texts()  # not a section: the words inspector.js writes itself
    if seg and full_state:  # typed, beside the raw JSON the page draws below
        sections["step"] += details(_("Full state, typed"), state_html(values, parts.values), ident="typed_state",
                                    open_=True)
    if per_position_only:
        return sections, values
    sections["progress"] = session_progress_html(pairs, parts, opened)
    return sections, values


VIEWING = N_("Viewing the state after step {n} ({nodes}) — read from the checkpoint, nothing was re-run.")
BACK_TO_LATEST = N_("Back to the latest step")
TIMELINE = N_("Timeline")


def travel_note_html(travel: int, nodes: Sequence[str]) -> str:
    """The line that says a past step is shown, with the way back."""
    return ('<div class="rdi-travel">' + esc(_(VIEWING).format(n=travel + 1, nodes=", ".join(nodes)))
            + '<button class="rdi-latest" data-travel="-1">' + esc(_(BACK_TO_LATEST)) + "</button></div>")


def session_progress_html(pairs: list, parts: InspectorParts, opened: frozenset[str]) -> str:
    """The session-wide folds below the timeline: the waterfall (RAG) and every progress step."""
    out = ""
    if pairs and parts.evidence:
        records = [rec for _, rec in pairs]
        out += lazy_details(_("Where the time went (waterfall)"),
                            # how many model calls, or why none are shown (rag_debugger/views/waterfall_note.py)
                            lambda: waterfall_html(records, note=waterfall_note(records)),
                            ident="waterfall", opened=opened)
    all_progress = [p for _, rec in pairs for p in rec.annotations.get("progress") or []]
    if all_progress:
        out += lazy_details(_("All progress steps of this session ({n})").format(n=len(all_progress)),
                            lambda: progress_html(all_progress, table_id="all_progress"),
                            ident="all_progress", opened=opened)
    return out


def step_progress_html(record: Optional[StepRecord]) -> str:
    """The progress steps a step emitted, folded under its diff ("" when it emitted none)."""
    progress = (record.annotations.get("progress") or []) if record else []
    return details(_("Progress steps emitted ({n})").format(n=len(progress)),
                   progress_html(progress, table_id="step_progress"), ident="step_progress") if progress else ""


def graph_section(drawing) -> str:
    """The picture laid out once per graph (cached on its unmarked DOT), marked for this position;
    without a layout program, the node list with the same marks."""
    marks = drawing.marks()
    picture = _marked_picture(drawing.layout_dot(), json.dumps(marks, sort_keys=True), current_language())
    return picture if picture is not None else graph_html(None, drawing.graph, marks)


@lru_cache(maxsize=128)
def _marked_picture(layout_dot: str, marks_json: str, lang: str) -> Optional[str]:
    """A graph has a dozen or so positions: each one's HTML is built once (marks, base64: 1-4 ms) per
    language (`lang` is part of the key: the legend is in it)."""
    svg = layout_svg(layout_dot)
    return graph_html(mark_svg(svg, json.loads(marks_json))) if svg else None


def fork_html(session: InspectedSession, view: TypedValues) -> str:
    """A what-if fork: what was edited, and the original branch's final state against the fork's."""
    compared = session.fork_comparison()
    current = session.current
    if compared is None or current is None:  # a comparison exists only while a fork is current
        return ""
    original, fork = compared
    origin, index, field, value = current.fork_of
    before = origin.stepper.steps[index].values_after.get(field)
    rows = diff_states(original, fork, nested_fields={"rag_trace"})
    changed = [r for r in rows if r.kind != "unchanged"]
    words = dict(fork=esc(shown_name(current.label)), field=code(field), run=esc(shown_name(origin.label)),
                 n=index + 1, nodes=code(", ".join(origin.stepper.steps[index].nodes)),
                 before=_folded(view, field, before), after=_folded(view, field, value))
    if "route" in original or "route" in fork:  # the RAG workflow's outcome, said in the headline
        headline = _("<b>{fork}</b>: {field} after {run} step {n} ({nodes}) was {before} and is now {after} · route "
                     "{old_route} → <b>{new_route}</b>").format(
            **words, old_route=code(original.get("route")), new_route=code(fork.get("route")))
    else:
        headline = _("<b>{fork}</b>: {field} after {run} step {n} ({nodes}) was {before} and is now {after}").format(
            **words)
    if not changed:  # an empty diff table under "0 fields differ" said "This step changed no state field"
        return ('<div class="rdi-fork">' + headline + '<p class="rdi-caption">'
                + esc(_("Final states compared: the fork ends in the same state as the original (no field differs)."))
                + "</p></div>")
    return ('<div class="rdi-fork">' + headline
            + details(ngettext("Final states compared: original → fork ({n} field differs)",
                               "Final states compared: original → fork ({n} fields differ)", len(changed)).format(
                n=len(changed)),
                      diff_html(rows, table_id="fork_diff", view=view), ident="fork_diff", open_=True)
            + "</div>")


def _folded(view: TypedValues, field: str, value: Any) -> str:
    """A list or dict folded to one line (the header stays short); a scalar as it is."""
    if isinstance(value, (list, dict)) and value:
        count = esc(ngettext("{n} item", "{n} items", len(value)).format(n=len(value)))
        return f'<details class="rdi-tree"><summary>{count}</summary>{view.value(field, value)}</details>'
    return view.value(field, value)


def position_html(session: InspectedSession, *, idle_hint: str = RAG_PARTS.idle_hint) -> str:
    seg = session.current
    if not seg:
        return '<div class="rdi-position">' + esc(_("No run yet")) + f" · {esc(_(idle_hint))}</div>"
    chips = " → ".join(f"<b>{esc(shown_name(s.label))}</b>" if s is seg else esc(shown_name(s.label))
                       for s in session.segments)
    thread = getattr(seg, "thread", None)
    if seg.stepper.done and session.cut_short and thread is not None and thread.pending:
        where = esc(_("the stored thread is paused here: it waits for an answer to interrupt()"))
    elif seg.stepper.done and session.cut_short:
        where = esc(_("end of the recording: the run stopped here and never finished"))
    elif seg.stepper.done and getattr(seg, "fork_of", None) is not None and not seg.stepper.steps:
        where = esc(_("finished: the edit was made after the last step, so nothing was left to run"))
    elif seg.stepper.done and _asks(session):  # "finished" alone, above "The workflow asks you", read as a contradiction
        where = esc(_("finished: it waits for your answer"))
    elif seg.stepper.done:
        where = esc(_("finished"))
    else:
        nxt = seg.stepper.next_nodes
        where = esc(_("paused before {nodes}")).format(nodes=", ".join(code(n) for n in dict.fromkeys(nxt))) + (
            esc(_(" ×{n} (parallel)").format(n=len(nxt))) if len(nxt) > 1 else "")
    steps = esc(ngettext("{n} step", "{n} steps", len(seg.stepper.steps)).format(n=len(seg.stepper.steps)))
    replay = ('<span class="rdi-replay-chip">' + esc(_("Replay — recorded run")) + "</span> "
              if getattr(session, "replay_mode", False) else "")
    out = f'<div class="rdi-position">{replay}{chips} · {steps} · {where}</div>'
    if seg.stepper.error:
        out += ('<div class="rdi-error">'
                + esc(_("The last step failed: {error}. Press Step to retry it, or Restart.").format(
                    error=seg.stepper.error)) + '</div>')
    return out


def no_step_note(session: InspectedSession, pairs: Sequence[tuple[Any, StepRecord]]) -> Optional[str]:
    """The step panel's words when the run shown has no step yet but the runs before it have (a HITL resume
    that has not stepped, a fork edited after the last step); None for a session with no step at all."""
    seg = session.current
    if seg is None or seg.stepper.steps:
        return None
    if not pairs and getattr(session, "replay_mode", False):  # Run is off in a replay: "or Run" pointed at it
        return _("A recording: <b>Step</b> walks it one step at a time, <b>Continue</b> plays it to the end.")
    if not pairs:
        return None
    before = esc(ngettext("The step before it is in the timeline.", "The {n} steps before it are in the timeline.",
                          len(pairs)).format(n=len(pairs)))
    run = "<b>" + esc(shown_name(seg.label)) + "</b>"
    if seg.stepper.done:
        return _("Nothing was left to run in {run}: its state is the one it started from.").format(run=run) + " " + before
    nodes = ", ".join(code(n) for n in dict.fromkeys(seg.stepper.next_nodes))
    return _("{run} has not run a step yet: <b>Step</b> runs {nodes}.").format(run=run, nodes=nodes) + " " + before


def _asks(session: InspectedSession) -> bool:
    """The finished run stopped on a question to the user (the RAG workflow's clarify / scope_select)."""
    result = session.result()
    return bool(result and result.get("hitl_resume_state"))


def result_html(result: Optional[dict]) -> str:
    """The finished run's outcome (a HITL question is drawn with its answer buttons elsewhere)."""
    if not result:
        return ""
    if result.get("hitl_resume_state"):  # the question and its answer buttons are below the graph
        trace = result.get("rag_trace") or {}
        return ('<div class="rdi-result rdi-asks"><b>' + esc(_("The workflow asks you ({route})").format(
            route=result.get("route"))) + "</b>: " + esc(trace.get("hitl_prompt") or "") + ' <span class="rdi-caption">'
            + esc(_("Answer below the graph.")) + "</span></div>")
    route = result.get("route")
    icon = svg_icon(route if route in ("answer", "no_knowledge", "rewrite") else "info")
    trace = result.get("rag_trace") or {}
    out = ['<div class="rdi-result"><h3>' + icon + " " + esc(outcome_words(route, result.get("retrieval_status")))
           + "</h3>",
           '<p class="rdi-caption">' + _("Result: {route} / {status}").format(
               route=code(route), status=code(result.get("retrieval_status"))) + "</p>",
           '<p class="rdi-caption">' + esc(_(
               "{n} chunks handed to the answering agent · provider {provider} · retriever {retriever}").format(
               n=len(result.get("docs") or []), provider=result.get("provider"), retriever=result.get("retriever")))
           + "</p>"]
    if trace.get("evidence_reason"):
        out.append('<p class="rdi-caption">' + esc(_("Reason: {reason}").format(reason=trace["evidence_reason"]))
                   + "</p>")
    out.append("</div>")
    return "".join(out)


def _timeline_section(session: InspectedSession, pairs: list, travel: Optional[int], *,
                      decision: Optional[Callable[[dict], Any]] = None, columns: Optional[tuple[str, ...]] = None,
                      cache: Optional[MutableMapping[Any, Any]] = None) -> str:
    if not pairs:
        return ""
    rows = _timeline_rows(session, pairs, decision or route_decision, cache=cache)
    columns = columns or TIMELINE_COLUMNS
    if columns[-1] == "error" and not any(r["error"] for r in rows):
        columns = columns[:-1]  # errors are rare
    return "<h4>" + esc(_(TIMELINE)) + "</h4>" + timeline_html(rows, selected=travel, columns=columns)


def _timeline_rows(session: InspectedSession, pairs: list, decision: Callable[[dict], Any] = route_decision, *,
                   cache: Optional[MutableMapping[Any, Any]] = None) -> list[dict]:
    """Timeline rows, rebuilt only when a step was added (not on every rerun: `cache` keeps them)."""
    key = (current_language(),) + tuple((seg.stepper.thread_id, len(seg.stepper.steps)) for seg in session.segments)
    cached = cache.get(TIMELINE_CACHE_KEY) if cache is not None else None
    if cached is not None and cached[0] == key:
        return cached[1]
    rows = timeline_rows([rec for _, rec in pairs], decision, notes=timeline_notes)
    for i, (row, (seg, rec)) in enumerate(zip(rows, pairs, strict=False), start=1):
        row["step"] = i  # numbered across the session's runs, not per run
        row["run"] = shown_name(seg.label)
        row["progress (ms since the run began)"] = " ".join(f"{progress_mark(p)} {p.get('elapsed_ms', 0)}"
                                        for p in rec.annotations.get("progress") or [])
    if cache is not None:
        cache[TIMELINE_CACHE_KEY] = (key, rows)
    return rows


def timeline_notes(annotations: dict) -> str:
    """A step's progress steps as its timeline row's tooltip."""
    return " · ".join(_("{label} ({ms} ms)").format(label=translate_progress(p.get("label", "")), ms=p.get("elapsed_ms", 0))
                    for p in annotations.get("progress") or [])


def _node_docs_html() -> str:
    return _node_docs_in(current_language())


@lru_cache(maxsize=4)
def _node_docs_in(lang: str) -> str:
    """Built once per language (`lang` is the cache key; the strings follow the active language)."""
    from rag.graph.build import node_docs

    items = "".join(f"<li><b>{code(name)}</b> — {esc(doc)}</li>" for name, doc in sorted(node_docs().items()))
    return details(_("What does each node do?"), f"<ul>{items}</ul>", ident="node_docs")
