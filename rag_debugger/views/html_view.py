"""HTML fragments of a stepping session: the diff table, the parallel lanes, the timeline, the graph.

Why HTML strings and not one Streamlit element per table: the debugger redraws all of these on
every Step, and each Streamlit element (a data grid above all) costs the browser a React update and
layout; one custom component that swaps in one HTML string costs a fraction of that (see
`rag_debugger/views/inspector_html.py` and bench/ui_step.py). Pure functions of the records, so tests can read
the same HTML the browser shows. Every value is escaped here; nothing knows about RAG.
"""
from __future__ import annotations

import base64
import json
from typing import Any, Iterable, Mapping, Optional, Sequence

from rag_debugger.debugger.graph_view import END_ID, START_ID, _drawable, _node_order
from rag_debugger.debugger.html_page import esc
from rag_debugger.debugger.i18n import N_, _
from rag_debugger.debugger.records import StepRecord
from rag_debugger.debugger.state_diff import TABLE_COLUMNS, DiffRow, diff_cells, diff_states, kind_label
from rag_debugger.debugger.timeline import TIMELINE_COLUMNS
from rag_debugger.views.value_view import TypedValues, container_html

DIFF_MAX_CHARS = 400
LANE_MAX_CHARS = 300


def code(value: Any) -> str:
    return f"<code>{esc(value)}</code>"


def table(columns: Sequence[str], rows: Iterable[Sequence[Any]], *, table_id: str = "",
          row_attrs: Optional[Sequence[str]] = None, css: str = "", translate: bool = False) -> str:
    """A plain table; cells are escaped text, `row_attrs[i]` is raw attribute text for row i (the
    caller builds it from escaped parts). `translate`: the column names are English messages marked
    with `N_` and are shown in the page's language (the names stay the data's keys)."""
    head = "".join(f"<th>{esc(_(c) if translate else c)}</th>" for c in columns)
    body = []
    for i, row in enumerate(rows):
        attrs = f" {row_attrs[i]}" if row_attrs and row_attrs[i] else ""
        body.append(f"<tr{attrs}>" + "".join(f"<td>{esc(v)}</td>" for v in row) + "</tr>")
    ident = f' id="{esc(table_id)}"' if table_id else ""
    klass = f' class="{esc(css)}"' if css else ""
    return (f'<div class="rdi-scroll"><table{ident}{klass}><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


FOLD_OVER_CHARS = 16_000
"""A changed value whose typed HTML is longer than this is folded to one line and drawn only while
opened (a finished run's `rag_trace.sub_traces` is ~34 KB: every chunk of every lane again)."""


NO_CHANGE = N_("This step changed no state field.")
STEP_TITLE = N_("Step {n}: {nodes} · {ms} ms")
STEP_FAILED = N_("This step failed: {error}")
PAUSED = N_("{node} paused in <code>interrupt()</code> and waits for an answer: {value}")
SHOW_UNCHANGED = N_("Show unchanged fields")
ABSENT_NULL_EMPTY = N_("‹absent› = key not in the state · null = set to None · [] = empty list — three different things.")
TIMELINE_TIP = N_("View the state after this step")
"""The words of a step and the timeline, named so a run's HTML file can hand them to its own script
(rag_debugger/exports/run_file_data.py) in each language."""


def diff_html(rows: Iterable[DiffRow], *, table_id: str = "diff", max_chars: int = DIFF_MAX_CHARS,
              view: Optional[TypedValues] = None, opened: Optional[frozenset] = None,
              fold_over: int = FOLD_OVER_CHARS) -> str:
    """Every diff row; unchanged rows carry a class the page hides until "show unchanged" is on.
    The kind is also a row class, so appended / added / removed rows are coloured apart.

    With `view`, the rows that changed draw their values typed (cards, trees, a list diff: see
    `rag_debugger.views.value_view`); unchanged rows stay one cut text line, as they are hidden and a Step
    must not pay for drawing them.

    `opened`: given, a value longer than `fold_over` is folded (a `data-lazy` details whose id is
    `<table_id>:<field>`) and drawn only when its id is in `opened` (the page reports the open ones)."""
    rows = list(rows)
    if not any(r.kind != "unchanged" for r in rows):
        note = '<p class="rdi-caption">' + esc(_(NO_CHANGE)) + "</p>"
    else:
        note = ""
    if view is None:
        attrs = [row_attrs(r) for r in rows]
        cells = [_shown_kind(diff_cells(r, max_chars=max_chars)) for r in rows]
        return note + table(TABLE_COLUMNS, cells, table_id=table_id, row_attrs=attrs, css="rdi-diff", translate=True)
    containers = container_paths(rows)
    body = [diff_row_html(r, view, table_id=table_id, max_chars=max_chars, opened=opened, fold_over=fold_over,
                          container=r.path in containers) for r in rows]
    head = "".join(f"<th>{esc(_(c))}</th>" for c in TABLE_COLUMNS)
    return (note + f'<div class="rdi-scroll"><table id="{esc(table_id)}" class="rdi-diff rdi-typed"><thead><tr>{head}'
            f'</tr></thead><tbody>{"".join(body)}</tbody></table></div>')


def row_attrs(row: DiffRow) -> str:
    return f'class="rdi-kind-{esc(row.kind)}" data-field="{esc(row.path)}"'


def diff_row_html(r: DiffRow, view: TypedValues, *, table_id: str = "diff", max_chars: int = DIFF_MAX_CHARS,
                  opened: Optional[frozenset] = None, fold_over: int = FOLD_OVER_CHARS, container: bool = False) -> str:
    """One `<tr>` of a typed diff (see `diff_html`); `container`: a dict whose keys have rows of their own."""
    a = row_attrs(r)
    ident = f"{table_id}:{r.path}"
    if r.kind == "unchanged":
        tds = "".join(f"<td>{esc(v)}</td>" for v in _shown_kind(diff_cells(r, max_chars=max_chars)))
        return f"<tr {a}>{tds}</tr>"
    if container:  # its keys have rows of their own, below: drawing it whole sent it twice
        field, before, after, kind = esc(r.path), container_html(r.before), container_html(r.after), esc(
            kind_label(r.kind))
    elif opened is not None and ident not in opened and _longer_than(r, fold_over // HTML_PER_JSON):
        field, kind = esc(r.path), esc(kind_label(r.kind))
        before, after = _folded_cells(ident, r, "", "", opened)  # closed: no body drawn
    else:
        field, before, after, kind = view.cells(r)
        if opened is not None and len(before) + len(after) > fold_over:
            before, after = _folded_cells(ident, r, before, after, opened)
    return f"<tr {a}><td>{field}</td><td>{before}</td><td>{after}</td><td>{kind}</td></tr>"


def _shown_kind(cells: tuple[str, str, str, str]) -> tuple[str, str, str, str]:
    """The kind cell in the page's language (the row's class keeps the kind itself)."""
    return (*cells[:3], kind_label(cells[3]))


HTML_PER_JSON = 3
"""Typed HTML (cards, badges, trees) runs two to three times the value's JSON: a value whose JSON is
over a third of `FOLD_OVER_CHARS` is folded without being drawn."""


def _longer_than(row: DiffRow, limit: int) -> bool:
    """Whether a row's JSON (one C call) is longer than `limit`: such a value is folded before it is
    drawn, since drawing it only to throw it away cost a finished run's Step ~10 ms. Shorter
    values are drawn and measured as HTML."""
    try:
        size = len(json.dumps([row.before, row.after], ensure_ascii=False, default=str))
    except (TypeError, ValueError):  # circular or odd values: draw them and measure the HTML
        return False
    return size > limit


def _folded_cells(ident: str, row: DiffRow, before: str, after: str, opened: frozenset) -> tuple[str, str]:
    """A long value's cells: one summary line each; the after cell opens on the whole value."""
    is_open = ident in opened
    return ((before if is_open else container_html(row.before)),
            f'<details data-lazy data-id="{esc(ident)}"{" open" if is_open else ""}>'
            f'<summary>{container_html(row.after)}</summary>{after if is_open else ""}</details>')


def container_paths(rows: Sequence[DiffRow]) -> set[str]:
    """Rows of a dict diffed key by key (`rag_trace` null -> dict, then `rag_trace.route` ...)."""
    paths = {r.path for r in rows}
    return {p.split(".", 1)[0] for p in paths if "." in p and p.split(".", 1)[0] in paths}


def lane_title(i: int, node: str, writes: Mapping[str, Any] | None) -> str:
    """`Lane 2: <sub-question>` when the lane wrote a result with a question, else the node."""
    subs = (writes or {}).get("sub_results") or []
    if subs and isinstance(subs[0], Mapping) and subs[0].get("question"):
        return _("Lane {i}: {name}").format(i=i, name=str(subs[0]['question'])[:60])
    return _("Lane {i}: {name}").format(i=i, name=node)


def lane_marks(lane: Any) -> list[str]:
    """What LangGraph did with a task beyond running it once: an error handler's task, retries, a cache
    hit, answered interrupts. Plain sentences (escaped by the caller)."""
    marks = []
    handles = getattr(lane, "handles", None)
    if handles == "*":
        marks.append(_("the graph's default error handler: it ran because a node failed"))
    elif handles:
        marks.append(_("error_handler of {node}: it ran because {node} failed").format(node=handles))
    attempts = getattr(lane, "attempts", 1) or 1
    if attempts > 1:
        failed = getattr(lane, "failed_attempts", ()) or ()
        marks.append(_("ran {n} times (RetryPolicy); failed tries: {errors}").format(
            n=attempts, errors="; ".join(failed)[:300]))
    if getattr(lane, "cached", False):
        marks.append(_("cache hit (CachePolicy): the node did not run, its writes come from the cache"))
    for value in getattr(lane, "answered", ()) or ():
        marks.append(_("answered: interrupt({value})").format(value=str(value)[:LANE_MAX_CHARS]))
    return marks


def _marks_html(lane: Any) -> str:
    return "".join(f'<div class="rdi-note rdi-lane-mark">{esc(m)}</div>' for m in lane_marks(lane))


def lanes_html(record: StepRecord, *, view: Optional[TypedValues] = None) -> str:
    """A `Send` fan-out runs several tasks in one superstep: one lane each, with its own update. A step
    whose one task failed and was handled has two: the node's and its error handler's."""
    if len(record.lanes) < 2:
        return ""
    if any(getattr(lane, "handles", None) for lane in record.lanes):
        heading = _('<p><b>{n} tasks</b> in one superstep</p>').format(n=len(record.lanes))
    else:
        heading = _('<p><b>{n} parallel lanes</b> (one <code>Send</code> task each, one superstep)</p>').format(
            n=len(record.lanes))
    parts = [heading, '<div class="rdi-lanes">']
    for i, lane in enumerate(record.lanes, start=1):
        parts.append(f'<div class="rdi-lane" data-lane="{i}"><div class="rdi-lane-title">'
                     f'{esc(lane_title(i, lane.node, lane.writes))}</div>')
        parts.append(_marks_html(lane))
        if lane.error:
            parts.append(f'<div class="rdi-error">{esc(lane.error)}</div>')
        parts.append(diff_html(diff_states({}, lane.writes or {}), table_id=f"lane{i}", max_chars=LANE_MAX_CHARS,
                               view=view))
        parts.append("</div>")
    parts.append("</div>")
    return "".join(parts)


def step_html(record: Optional[StepRecord], *, progress_table: str = "", view: Optional[TypedValues] = None,
              opened: Optional[frozenset] = None, number: Optional[int] = None, empty: Optional[str] = None) -> str:
    """The current step: its title, error, lanes and diff (with the show-unchanged switch); `opened`:
    see `diff_html`. `number`: the step's number as the page counts steps (across a session's runs, like
    the timeline and the URL); by default its index in its own run. `empty`: the note (HTML) when there is
    no step to show, for a run that continues another (a resume, a fork): "Nothing has run yet" beside
    the steps of the run before it would contradict the timeline."""
    if record is None:
        return ('<div class="rdi-note">'
                + (empty or _("Nothing has run yet. Press <b>Step</b> to run the first node, or <b>Run</b> to run to "
                              "the end."))
                + '</div>')
    title = ", ".join(record.nodes)
    out = ['<h4 class="rdi-step-title">' + _(STEP_TITLE).format(
        n=number if number is not None else record.index + 1, nodes=code(title), ms=f"{record.duration_ms:.0f}") + '</h4>']
    if record.error:
        out.append('<div class="rdi-error">' + esc(_(STEP_FAILED).format(error=record.error)) + '</div>')
    for lane in record.lanes:
        for value in lane.interrupts:
            out.append('<div class="rdi-note">' + _(PAUSED).format(
                node=code(lane.node), value=esc(value[:LANE_MAX_CHARS])) + '</div>')
    if len(record.lanes) == 1:
        out.append(_marks_html(record.lanes[0]))
    out.append(lanes_html(record, view=view))
    out.append('<label class="rdi-switch"><input type="checkbox" class="rdi-unchanged-toggle"> '
               + esc(_(SHOW_UNCHANGED)) + '</label>')
    out.append(diff_html(record.diff, view=view, opened=opened))
    out.append('<p class="rdi-caption">' + esc(_(ABSENT_NULL_EMPTY)) + '</p>')
    out.append(progress_table)
    return "".join(out)


TIMELINE_TABLE_COLUMNS: tuple[str, ...] = (N_("step"), N_("run")) + tuple(c for c in TIMELINE_COLUMNS[1:] if c != "notes")


def timeline_html(rows: Sequence[Mapping[str, Any]], *, selected: Optional[int] = None,
                  columns: Sequence[str] = TIMELINE_TABLE_COLUMNS) -> str:
    """The steps so far; a row is a button that travels to the state after that step. A row's
    notes (the progress steps it emitted) are its tooltip: as a column they made every row tall."""
    if not rows:
        return ""
    attrs = []
    tip = esc(_(TIMELINE_TIP))
    for i, row in enumerate(rows):
        klass = ' class="rdi-selected"' if selected == i else ""
        notes = f" — {row['notes']}" if row.get("notes") else ""
        attrs.append(f'data-travel="{i}" tabindex="0" role="button" title="{tip}{esc(notes)}"{klass}')
    cells = [[row.get(c, "") for c in columns] for row in rows]
    return table(columns, cells, table_id="timeline", row_attrs=attrs, css="rdi-timeline", translate=True)


def details(summary: str, body: str, *, ident: str, open_: bool = False) -> str:
    """A collapsible section; `ident` lets the page keep it open across updates."""
    flag = " open" if open_ else ""
    return f'<details data-id="{esc(ident)}"{flag}><summary>{esc(summary)}</summary>{body}</details>'


#: The picture's alternative text (also written by a run file's script, exports/static/run_file.js).
GRAPH_ALT = N_("the workflow graph with the current position")


def graph_html(svg: Optional[str], graph: Any = None, marks: Optional[Mapping[str, Any]] = None) -> str:
    """The graph, then its legend. The picture is the SVG laid out once and marked for this
    position (`rag_debugger.views.svg.mark_svg`), shown as an image: to the page it is one box, not ~400 SVG
    elements to style and lay out again on every Step (inline, Chrome counted about twice the layout
    time per Step). Without a layout program, the nodes as a list in graph order, with their edges
    and the same marks."""
    if svg:
        data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
        alt = esc(_(GRAPH_ALT))
        body = f'<div class="rdi-graph"><img alt="{alt}" src="data:image/svg+xml;base64,{data}"></div>'
    elif graph is not None:
        body = graph_list_html(graph, marks)
    else:
        body = ""
    return body + legend_html()


def legend_html() -> str:
    """The graph's legend, in the page's language."""
    words = [esc(w) for w in (_("legend"), _("about to run"), _("already run"), _("not run"), _("conditional"),
                              _("Send fan-out"))]
    return (
        '<div class="rdi-legend" aria-label="{0}">'
        '<span class="rdi-lg-node rdi-current">{1}</span>'
        '<span class="rdi-lg-node rdi-done">{2}</span>'
        '<span class="rdi-lg-node">{3}</span>'
        '<span class="rdi-lg-item"><span class="rdi-lg-edge rdi-lg-dashed"></span>{4}</span>'
        '<span class="rdi-lg-item"><span class="rdi-lg-edge rdi-lg-send"></span>{5}</span>'
        "</div>"
    ).format(*words)


def graph_list_html(graph: Any, marks: Optional[Mapping[str, Any]] = None) -> str:
    """The graph without a layout program: one row per node in graph order, with where it goes
    (dashed: conditional), and the same marks as the picture (about to run, already run)."""
    g = _drawable(graph)
    current = set((marks or {}).get("current") or ())
    done = set((marks or {}).get("done") or ())
    names = {START_ID: "START", END_ID: "END"}
    out = ['<ol class="rdi-graph-list">']
    for node_id in _node_order(g):
        targets = [e for e in g.edges if e.source == node_id]
        arrows = ", ".join(
            f'<span class="{"rdi-cond" if e.conditional else ""}" data-edge="{esc(e.source)}->{esc(e.target)}">'
            f"{esc(names.get(e.target, e.target))}</span>" for e in targets)
        mark = " class=\"rdi-current\"" if node_id in current else " class=\"rdi-done\"" if node_id in done else ""
        out.append(f'<li data-node="{esc(node_id)}"{mark}><span class="rdi-gnode">{esc(names.get(node_id, node_id))}</span>'
                   + (f" → {arrows}" if arrows else "") + "</li>")
    out.append("</ol>")
    return "".join(out)


def dot_source_html(dot: str) -> str:
    """The DOT of the drawing, marks included, one click away."""
    return details(_("DOT source"), f'<pre class="rdi-dot">{esc(dot)}</pre>', ident="dot")
