"""A Your-graph run's HTML file as data that the file's own script draws (rag_debugger/exports/static/run_file.js).

Why: a file whose every position is drawn here, in both languages, costs ~0.45 ms a step to write, so a
300-step run took 30 times as long as a 10-step one. Most of what a generic graph's position shows is
small and regular: the step's title, a diff whose rows hold short text, whole numbers, booleans, null
or nothing, the "viewing step n" line and the timeline. Those go into the file as data and the script
draws them with the words of each language written here once. Everything else is drawn here by the
app's own functions and stored once per language (deduplicated): rows holding trees, lists, long text
or floats, parallel lanes, progress tables, a degraded run's banner, and the last position whole. The
graph's picture is stored unmarked, once, and the script marks it for each position (`marked_pictures`).
So a position costs what its unusual parts cost, and a plain step costs a few microseconds.

Kept in step with the app by tests/ui/test_browser_report_data.py: in Chromium, every position of
several runs, in both languages, must draw the same DOM as the app's functions draw (the file written
with everything pre-drawn).
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

from rag.i18n import _, use_language
from rag_debugger.debugger.state_diff import ABSENT, KIND_LABELS, TABLE_COLUMNS, absent_text, kind_label
from rag_debugger.debugger.timeline import timeline_rows
from rag_debugger.views.degradation_html import degraded_html
from rag_debugger.views.html_view import (
    ABSENT_NULL_EMPTY,
    GRAPH_ALT,
    LANE_MAX_CHARS,
    NO_CHANGE,
    PAUSED,
    SHOW_UNCHANGED,
    STEP_FAILED,
    STEP_TITLE,
    TIMELINE_TIP,
    container_paths,
    diff_row_html,
    lanes_html,
    legend_html,
)
from rag_debugger.views.inspector_html import (
    BACK_TO_LATEST,
    TIMELINE,
    VIEWING,
    InspectorParts,
    graph_section,
    inspector_sections,
    position_html,
    session_progress_html,
    step_progress_html,
    timeline_notes,
)
from rag_debugger.views.svg import MARK_STYLE, layout_svg
from rag_debugger.views.value_view import LEAF_PREVIEW_CHARS

SCRIPT_COLUMNS = frozenset({"step", "nodes", "lanes", "duration_ms", "error"})
"""The timeline columns the script draws (language-free cells)."""
SAFE_INT = 2 ** 53
ABSENT_MARK = {"absent": 1}
"""How a key that is not in the state travels (null is None)."""


def scripted(session: Any, parts: InspectorParts) -> bool:
    """Whether a file of `session` drawn with `parts` can be written as data: generic values (no typed
    renderer, no RAG panels), a timeline of language-free columns, and a session that names its pictures."""
    return (not parts.evidence and parts.values.render is None and hasattr(session, "drawing_keys")
            and set(parts.timeline_columns or ()) <= SCRIPT_COLUMNS)


def drawn_by_script(value: Any) -> bool:
    """A value the script draws exactly as `rag_debugger.views.value_view.leaf_html` does: JSON text the same in
    Python and JavaScript, short enough never to be folded or cut."""
    kind = type(value)
    if value is None or value is ABSENT or kind is bool:
        return True
    if kind is int:
        return -SAFE_INT < value < SAFE_INT
    if kind is str:
        return len(value) <= LEAF_PREVIEW_CHARS and value.isprintable()
    return False


class DataStore:
    """Drawn HTML, each distinct text once (the file's `parts`), and the languages drawn. `stored`: a drawn
    text as the file holds it (its JSON string: `rag_debugger.exports.run_file._stored`)."""

    def __init__(self, langs: Iterable[str], stored: Callable[[str], str]) -> None:
        self.langs = list(langs)
        self.parts: list[str] = []
        self._ids: dict[str, int] = {}
        self._stored = stored

    def ref(self, text: str) -> int:
        text = self._stored(text)
        if text not in self._ids:
            self._ids[text] = len(self.parts)
            self.parts.append(text)
        return self._ids[text]

    def per_lang(self, draw: Callable[[], str]) -> list[int]:
        out = []
        for lang in self.langs:
            with use_language(lang):
                out.append(self.ref(draw()))
        return out


def words(columns: Iterable[str]) -> dict[str, Any]:
    """The words the script writes, in the current language (the same messages the app's functions use)."""
    return {"title": _(STEP_TITLE), "failed": _(STEP_FAILED), "paused": _(PAUSED), "switch": _(SHOW_UNCHANGED),
            "none": _(NO_CHANGE), "caption": _(ABSENT_NULL_EMPTY), "cols": [_(c) for c in TABLE_COLUMNS],
            "kinds": {k: kind_label(k) for k in KIND_LABELS}, "absent": absent_text(), "viewing": _(VIEWING),
            "back": _(BACK_TO_LATEST), "timeline": _(TIMELINE), "tip": _(TIMELINE_TIP),
            "tcols": {c: _(c) for c in columns}}


def _cell(value: Any) -> Any:
    return ABSENT_MARK if value is ABSENT else value


def step_data(record: Any, store: DataStore, parts: InspectorParts, opened: frozenset) -> dict[str, Any]:
    """One step as the script draws it (`rag_debugger.views.html_view.step_html`), unusual parts pre-drawn."""
    out: dict[str, Any] = {"n": record.index + 1, "nodes": ", ".join(record.nodes), "ms": f"{record.duration_ms:.0f}"}
    if record.error:
        out["err"] = record.error
    asked = [[lane.node, value[:LANE_MAX_CHARS]] for lane in record.lanes for value in lane.interrupts]
    if asked:
        out["int"] = asked
    if len(record.lanes) >= 2:
        out["lanes"] = store.per_lang(lambda: lanes_html(record, view=parts.values))
    if record.annotations.get("progress"):
        out["prog"] = store.per_lang(lambda: step_progress_html(record))
    rows = record.diff
    containers = container_paths(rows)
    drawn: list[Any] = []
    for row in rows:
        if row.path not in containers and drawn_by_script(row.before) and drawn_by_script(row.after):
            drawn.append([row.path, row.kind, _cell(row.before), _cell(row.after)])
        else:
            drawn.append(store.per_lang(lambda r=row: diff_row_html(r, parts.values, opened=opened,  # type: ignore[misc]
                                                                    container=r.path in containers)))
    out["rows"] = drawn
    if all(r.kind == "unchanged" for r in rows):
        out["none"] = 1
    return out


def timeline_data(pairs: list, store: DataStore, parts: InspectorParts) -> dict[str, Any]:
    """The timeline's columns (the error column only when a step failed) and language-free cells."""
    records = [rec for _seg, rec in pairs]
    wanted = parts.timeline_columns or ()
    rows = timeline_rows(records, parts.decision if "decision" in wanted else None, notes=lambda a: "")
    columns = [c for c in wanted if c != "error" or any(r["error"] for r in rows)]
    cells = []
    for i, row in enumerate(rows, start=1):
        row["step"] = i  # numbered across the session's runs, as the app's timeline
        cells.append(["" if row.get(c) is None else str(row.get(c, "")) for c in columns])
    notes: dict[int, list[int]] = {}
    for i, rec in enumerate(records):
        if rec.annotations.get("progress"):
            notes[i] = store.per_lang(lambda r=rec: timeline_notes(r.annotations))  # type: ignore[misc]
    return {"cols": columns, "rows": cells, "notes": notes}


def render_data(session: Any, parts: InspectorParts, store: DataStore, opened: frozenset,
                header: Optional[Callable[[], str]] = None) -> dict[str, Any]:
    """The file's data: per language its words, header and the last position drawn whole; per step its
    data, its picture and the banner of a degraded state."""
    pairs = session.all_steps()
    steps: list[dict[str, Any]] = []
    pictures: list[list[int]] = []
    picture_of: list[int] = []
    banners: dict[int, list[int]] = {}
    seen: dict[tuple, int] = {}
    keys = [_compact(key) for key in session.drawing_keys()]
    marked = marked_pictures(session, keys, store)
    for travel, ((seg, rec), key) in enumerate(zip(pairs, keys, strict=True)):
        steps.append(step_data(rec, store, parts, opened))
        if marked is None and key not in seen:
            seen[key] = len(pictures)
            pictures.append(store.per_lang(lambda t=travel: graph_section(session.drawing(t))))  # type: ignore[misc]
        if marked is None:
            picture_of.append(seen[key])
        values = rec.values_after or seg.stepper.state_at(rec.after_checkpoint_id or "")
        if degraded_html(values):
            banners[travel] = store.per_lang(lambda v=values: degraded_html(v))  # type: ignore[misc]
    timeline = timeline_data(pairs, store, parts)
    langs: dict[str, Any] = {}
    for lang in store.langs:
        with use_language(lang):
            line = position_html(session, idle_hint=parts.idle_hint)
            last, _values = inspector_sections(session, None, parts=parts, opened=opened, interactive=False,
                                               per_position_only=True, position_line=line)
            last["docs"] = (parts.node_docs or (lambda: ""))()
            last["progress"] = session_progress_html(pairs, parts, opened)
            langs[lang] = {"words": {**words(timeline["cols"]), "alt": _(GRAPH_ALT)}, "line": store.ref(line),
                           "end": {name: store.ref(text) for name, text in last.items()},
                           "header": header() if header else "", "legend": store.ref(legend_html())}
    return {"mode": "data", "order": store.langs, "parts": store.parts, "langs": langs, "steps": steps, "pics": pictures,
            "pic": picture_of, "svgs": marked, "banners": banners, "timeline": timeline, "positions": len(pairs) + 1}


def _compact(key: tuple) -> tuple:
    """A drawing key that compares the same, smaller: its sets of node names as sorted tuples (a set of the
    nodes run so far costs a hash table at every position; 200 positions of a 200-node run held 1 MB)."""
    return tuple(tuple(sorted(part, key=str)) if isinstance(part, frozenset) else part for part in key)


def marked_pictures(session: Any, keys: list[tuple], store: DataStore) -> Optional[dict[str, Any]]:
    """The graph's pictures as the file's script marks them (`markSvg` in run_file.js, the twin of
    `views.svg.mark_svg`): each distinct unmarked layout once per language, and per position only the
    indices of its marked nodes. A file of K positions over a graph of K nodes then holds one picture and
    K short lists, not K pictures (a 200-node stand-in graph made a 338 MB file). None without a layout
    program: the node-list pictures are drawn here then."""
    layouts: list[list[int]] = []
    layout_ids: dict[tuple, int] = {}
    marks: list[dict[str, Any]] = []
    names: dict[str, int] = {}
    layout_of: list[int] = []
    mark_of: list[int] = []
    done: dict[tuple, tuple[int, int]] = {}
    for travel, key in enumerate(keys):
        if key not in done:
            drawing = session.drawing(travel)
            svgs = []
            for lang in store.langs:
                with use_language(lang):
                    svg = layout_svg(drawing.layout_dot())
                if svg is None:
                    return None
                svgs.append(store.ref(svg))
            layout = layout_ids.setdefault(tuple(svgs), len(layouts))
            if layout == len(layouts):
                layouts.append(svgs)
            found = drawing.marks()
            marks.append({"c": [names.setdefault(str(n), len(names)) for n in found.get("current") or ()],
                          "d": [names.setdefault(str(n), len(names)) for n in found.get("done") or ()],
                          "s": dict(found.get("send") or {})})
            done[key] = (layout, len(marks) - 1)
        layout_of.append(done[key][0])
        mark_of.append(done[key][1])
    return {"layouts": layouts, "layout": layout_of, "marks": marks, "mark": mark_of, "names": list(names),
            "style": MARK_STYLE}
