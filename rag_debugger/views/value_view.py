"""State values as HTML a person reads at a glance: a collapsible tree instead of a JSON string, and a
list diff that marks which items were added, removed or changed.

Why here and generic: the diff, the lanes and the full state of ANY graph hold nested dicts and
lists; one long JSON string per cell hides their shape. A graph that knows its own value types (the
RAG workflow's chunks, grades, rewrites) passes a `ValueRenderer` that draws them, and falls back to
the tree for the rest (`rag_debugger/views/values_html.py`). Pure functions; every text is escaped; nothing here
knows about RAG.
"""
from __future__ import annotations

import difflib
import json
import re
from typing import Any, Callable, Mapping, Optional, Sequence

from rag_debugger.debugger.html_page import esc
from rag_debugger.debugger.i18n import N_, _, ngettext
from rag_debugger.debugger.state_diff import ABSENT, DiffRow, absent_text, format_value, json_default, kind_label, same_value

ValueRenderer = Callable[[str, Any], Optional[str]]
"""(field path such as `docs` or `sub_results[1]`, value) -> HTML, or None for "draw it generically"."""

LEAF_PREVIEW_CHARS = 160
LEAF_MAX_CHARS = 6_000
TREE_MAX_ITEMS = 60
TREE_OPEN_DEPTH = 1


def base_field(path: str) -> str:
    """`sub_results[2]` -> `sub_results`, `rag_trace.route` -> `rag_trace`: what a renderer keys on."""
    return re.split(r"[.\[]", path, maxsplit=1)[0]


def leaf_html(value: Any, *, preview: int = LEAF_PREVIEW_CHARS, limit: int = LEAF_MAX_CHARS) -> str:
    """A scalar: JSON-quoted so `"null"` and null stay apart; a long string shows a preview that
    expands (only the first `limit` characters are sent to the page)."""
    if value is ABSENT:
        return f'<span class="rdi-absent">{esc(absent_text())}</span>'
    if isinstance(value, str) and len(value) > preview:
        shown = value[:limit]
        more = _(" … ({n} more characters)").format(n=len(value) - limit) if len(value) > limit else ""
        chars = esc(_("{n} chars").format(n=len(value)))
        return (f'<details class="rdi-long"><summary><code>{esc(json.dumps(value[:preview], ensure_ascii=False)[:-1])}'
                f'…"</code> <span class="rdi-caption">{chars}</span></summary>'
                f'<div class="rdi-longtext">{esc(shown)}{esc(more)}</div></details>')
    return f"<code>{esc(format_value(value))}</code>"


def _summary(value: Any) -> str:
    if isinstance(value, Mapping):
        keys = list(value)
        names = ", ".join(str(k) for k in keys[:4]) + (", …" if len(keys) > 4 else "")
        return "{" + ngettext("{n} key: {names}", "{n} keys: {names}", len(keys)).format(n=len(keys), names=names) + "}"
    return "[" + ngettext("{n} item", "{n} items", len(value)).format(n=len(value)) + "]"


def container_html(value: Any) -> str:
    """A dict or list in one line (its size, a dict's first keys): a dict whose keys the diff lists
    row by row, or a value too long to draw on every Step (a finished run's trace is ~40 KB)."""
    if isinstance(value, (Mapping, list, tuple)) and value:
        return f"<code>{esc(_summary(value))}</code>"
    return leaf_html(value)


def tree_html(value: Any, *, render: Optional[ValueRenderer] = None, path: str = "", depth: int = 0,
              open_depth: int = TREE_OPEN_DEPTH, max_items: int = TREE_MAX_ITEMS) -> str:
    """A dict or list as nested <details> (open to `open_depth`), a scalar as `leaf_html`. `render`
    gets a chance at every node first (by its path), so typed values inside a generic dict still
    show as cards."""
    if render is not None and path:
        custom = render(path, value)
        if custom is not None:
            return custom
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json")
    if isinstance(value, (set, frozenset)):
        value = json_default(value)
    if not isinstance(value, (Mapping, list, tuple)):
        return leaf_html(value)
    if not value:
        return f"<code>{'{}' if isinstance(value, Mapping) else '[]'}</code>"
    items = list(value.items()) if isinstance(value, Mapping) else list(enumerate(value))
    rows = []
    for key, child in items[:max_items]:
        child_path = (f"{path}.{key}" if path else str(key)) if isinstance(value, Mapping) else f"{path}[{key}]"
        label = esc(key) if isinstance(value, Mapping) else f"[{key}]"
        inner = tree_html(child, render=render, path=child_path, depth=depth + 1, open_depth=open_depth,
                          max_items=max_items)
        rows.append(f'<li><span class="rdi-key">{label}</span>: {inner}</li>')
    if len(items) > max_items:
        rows.append('<li class="rdi-caption">' + esc(_("… {n} more").format(n=len(items) - max_items)) + "</li>")
    flag = " open" if depth < open_depth else ""
    return (f'<details class="rdi-tree"{flag}><summary>{esc(_summary(value))}</summary>'
            f'<ul class="rdi-tree-items">{"".join(rows)}</ul></details>')


def value_html(path: str, value: Any, render: Optional[ValueRenderer] = None) -> str:
    """One value of the state, typed when `render` knows it, else a tree."""
    if value is ABSENT:
        return leaf_html(ABSENT)
    if render is not None:
        custom = render(path, value)
        if custom is not None:
            return custom
    return tree_html(value, render=render, path=path)


ItemMark = str  # "added" | "removed" | "changed" | "same"
MARK_LABELS = {"added": N_("added"), "removed": N_("removed"), "changed": N_("changed"), "same": N_("same")}
MARK_COUNTS = {"added": N_("{n} added"), "removed": N_("{n} removed"), "changed": N_("{n} changed")}


def _default_key(item: Any) -> str:
    try:
        return json.dumps(item, sort_keys=True, ensure_ascii=False, default=json_default)
    except (TypeError, ValueError):
        return repr(item)


def list_diff(before: Sequence[Any], after: Sequence[Any],
              key: Optional[Callable[[Any], Any]] = None) -> list[tuple[ItemMark, Any, Any]]:
    """Item by item: (mark, before item or ABSENT, after item or ABSENT), in the after list's order
    with removed items where they were. `key` says which items are "the same item" (a chunk's id):
    same key and a different value is `changed`; without a key an item is its whole value, so an
    edit shows as removed + added. Two items replaced by two at the same place pair up as changed."""
    if key is None and len(after) >= len(before) and list(after[:len(before)]) == list(before):
        # appended to (a reducer that adds, the usual growth of a state): no need to match items
        return ([("same", x, x) for x in before] + [("added", ABSENT, y) for y in after[len(before):]])
    keyf = key or _default_key
    a_keys = [keyf(x) for x in before]
    b_keys = [keyf(x) for x in after]
    out: list[tuple[ItemMark, Any, Any]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a_keys, b=b_keys, autojunk=False).get_opcodes():
        if op == "equal":
            for x, y in zip(before[i1:i2], after[j1:j2], strict=False):
                out.append(("same" if same_value(x, y) else "changed", x, y))
        elif op == "replace" and (i2 - i1) == (j2 - j1) and key is None:
            out.extend(("changed", x, y) for x, y in zip(before[i1:i2], after[j1:j2], strict=False))
        else:
            out.extend(("removed", x, ABSENT) for x in before[i1:i2])
            out.extend(("added", ABSENT, y) for y in after[j1:j2])
    return out


SAME_RUN_SHOWN = 2
"""A run of unchanged items longer than twice this many is folded to its first and last
`SAME_RUN_SHOWN` items and a line that counts the rest: a list that grows by one item per step
draws what changed, not all of itself again at every step."""


def list_diff_html(path: str, before: Sequence[Any], after: Sequence[Any], *,
                   render: Optional[ValueRenderer] = None, key: Optional[Callable[[Any], Any]] = None) -> str:
    """A list diff as an ordered list: every changed item drawn (typed if `render` knows `path[i]`),
    marked; long runs of unchanged items folded (`SAME_RUN_SHOWN`)."""
    marks = list_diff(before, after, key)
    counts: dict[str, int] = {}
    for mark, _old, _new in marks:
        counts[mark] = counts.get(mark, 0) + 1
    parts = []
    j = 0
    i = 0
    while i < len(marks):
        run_end = i
        while run_end < len(marks) and marks[run_end][0] == "same":
            run_end += 1
        if run_end - i > 2 * SAME_RUN_SHOWN + 1:  # fold the middle of a long unchanged run
            for mark, old, new in marks[i:i + SAME_RUN_SHOWN]:
                parts.append(_item_html(path, j, mark, old, new, render))
                j += 1
            hidden = run_end - i - 2 * SAME_RUN_SHOWN
            parts.append('<li class="rdi-item rdi-item-fold" data-mark="fold"><span class="rdi-caption">'
                         + esc(_("… {n} unchanged items …").format(n=hidden)) + "</span></li>")
            j += hidden
            i += SAME_RUN_SHOWN + hidden
            continue
        mark, old, new = marks[i]
        parts.append(_item_html(path, j, mark, old, new, render))
        if new is not ABSENT:
            j += 1
        i += 1
    head = " · ".join(_(MARK_COUNTS[m]).format(n=n) for m, n in counts.items() if m != "same") or _("same items")
    return f'<div class="rdi-listdiff"><p class="rdi-caption">{esc(head)}</p><ol>{"".join(parts)}</ol></div>'


def _item_html(path: str, j: int, mark: str, old: Any, new: Any, render: Optional[ValueRenderer]) -> str:
    item = new if new is not ABSENT else old
    index = f"{path}[{j}]" if new is not ABSENT else f"{path}[-]"
    body = value_html(index, item, render)
    if mark == "changed":
        was, now = esc(_("was")), esc(_("now"))
        body = (f'<div class="rdi-was"><span class="rdi-caption">{was}</span> '
                f'{value_html(index, old, render)}</div>'
                f'<div class="rdi-now"><span class="rdi-caption">{now}</span> {body}</div>')
    return (f'<li class="rdi-item rdi-item-{mark}" data-mark="{mark}">'
            f'<span class="rdi-mark">{esc(_(MARK_LABELS[mark]))}</span>{body}</li>')


def typed_cells(row: DiffRow, render: Optional[ValueRenderer] = None,
                key_for: Optional[Callable[[str], Optional[Callable[[Any], Any]]]] = None) -> tuple[str, str, str, str]:
    """One changed diff row as HTML cells (field, before, after, kind). A list that changed is
    drawn as a list diff in the after column (the before column says how long the list was)."""
    if (row.kind == "changed" and isinstance(row.before, (list, tuple)) and isinstance(row.after, (list, tuple))
            and row.before and row.after):  # from or to an empty list: the list itself says it all
        key = key_for(base_field(row.path)) if key_for else None
        return (esc(row.path),
                '<span class="rdi-caption">' + esc(_("{n} items, see the marks").format(n=len(row.before))) + "</span>",
                list_diff_html(row.path, row.before, row.after, render=render, key=key), esc(kind_label(row.kind)))
    return (esc(row.path), value_html(row.path, row.before, render), value_html(row.path, row.after, render),
            esc(kind_label(row.kind)))


class TypedValues:
    """How a page draws values: its renderer and, per field, what makes two list items "the same
    item" (for the list diff). `TypedValues()` alone gives trees and whole-value list diffs."""

    __slots__ = ("render", "key_for")

    def __init__(self, render: Optional[ValueRenderer] = None,
                 key_for: Optional[Callable[[str], Optional[Callable[[Any], Any]]]] = None) -> None:
        self.render = render
        self.key_for = key_for

    def cells(self, row: DiffRow) -> tuple[str, str, str, str]:
        return typed_cells(row, self.render, self.key_for)

    def value(self, path: str, value: Any) -> str:
        return value_html(path, value, self.render)


def state_html(values: Mapping[str, Any], view: Optional[TypedValues] = None) -> str:
    """The full state, one field per line, each typed or a tree (closed past the first level)."""
    view = view or TypedValues()
    rows = "".join(f'<li data-field="{esc(k)}"><span class="rdi-key">{esc(k)}</span>: {view.value(k, v)}</li>'
                   for k, v in values.items())
    return f'<ul class="rdi-state">{rows}</ul>'
