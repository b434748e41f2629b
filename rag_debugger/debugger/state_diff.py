"""State diffing: what one superstep changed, as rows a table can show.

Why a hand-rolled diff: a debugger of a graph state must keep three states apart that a generic
`==` or JSON diff merges — a key that is *absent*, a key set to `None`, and a key set to `[]` — and
it must show reducer-appended list items (an `operator.add` channel) as *appended*, not as "the
whole list changed". Everything here is a pure function of plain dicts; nothing knows about RAG.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Iterable, Literal, Mapping, Sequence

if TYPE_CHECKING:
    import pandas as pd

from pydantic import BaseModel, ConfigDict

from rag_debugger.debugger.i18n import N_, _

DiffKind = Literal["added", "changed", "removed", "appended", "unchanged"]
DIFF_KINDS: tuple[str, ...] = ("added", "changed", "removed", "appended", "unchanged")
TABLE_COLUMNS: tuple[str, ...] = (N_("field"), N_("before"), N_("after"), N_("kind"))
"""Data keys, and the English headings; the HTML views show `_(column)`."""
KIND_LABELS: dict[str, str] = {"added": N_("added"), "changed": N_("changed"), "removed": N_("removed"),
                               "appended": N_("appended"), "unchanged": N_("unchanged")}


def kind_label(kind: str) -> str:
    """A diff kind as people read it in the page's language (the kind itself stays the row's class)."""
    return _(KIND_LABELS[kind]) if kind in KIND_LABELS else kind


class _Absent:
    """The value of a key that is not in the dict at all (distinct from `None` and `[]`)."""

    _instance: "_Absent | None" = None

    def __new__(cls) -> "_Absent":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False

    def __copy__(self) -> "_Absent":
        return self

    def __deepcopy__(self, memo: dict) -> "_Absent":
        return self

    def __reduce__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()
ABSENT_TEXT = N_("‹absent›")
"""The English marker; pages show `absent_text()`, in their language."""


ROOT_KEY = "__root__"
"""The one field a state that is a single value is shown as (LangGraph's own name for its channel)."""


def state_values(values: Any) -> dict[str, Any]:
    """A state as the field → value dict every view reads. A state that is one value (a root channel,
    `StateGraph(Annotated[list, operator.add])`, or an `@entrypoint`'s return) is one field, `__root__`;
    no state yet (an entrypoint before its first step) is no field."""
    if values is None:
        return {}
    if isinstance(values, Mapping):
        return dict(values)
    return {ROOT_KEY: values}


def graph_values(values: Mapping[str, Any]) -> Any:
    """The inverse of `state_values`: what `update_state` takes for a graph whose state is one value."""
    if set(values) == {ROOT_KEY}:
        return values[ROOT_KEY]
    return dict(values)


def absent_text() -> str:
    return _(ABSENT_TEXT)


class DiffRow(BaseModel):
    """One line of a state diff. `before`/`after` hold raw values (ABSENT when the key is missing)."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    path: str
    before: Any = ABSENT
    after: Any = ABSENT
    kind: DiffKind


def _plain(value: Any) -> Any:
    """Pydantic models and dataclass-like objects compare and print by their data."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return value


_LEAVES = (str, int, float, bool, type(None))


def same_value(a: Any, b: Any) -> bool:
    """Strict equality: `0`, `False`, `0.0` and `None`/`[]`/ABSENT are all different.

    Python's `==` says `False == 0` and `1 == 1.0`; a debugger that hides a bool turning into an
    int would hide a real bug, so types must match too (recursively for containers). Speed matters
    (a RAG state holds thousands of leaves and every Step diffs it): a plain `==` answers "different"
    in C, and leaves are compared inline instead of through a call each.
    """
    if a is b:
        return True
    a, b = _plain(a), _plain(b)
    if type(a) is not type(b):
        return False
    try:
        if not a == b:  # strict equality implies ==, so this difference is final
            return False
    except Exception:  # e.g. numpy arrays: ambiguous truth value
        return repr(a) == repr(b)
    if isinstance(a, dict):
        return _same_items([a[k] for k in a], [b[k] for k in a])
    if isinstance(a, (list, tuple)):
        return _same_items(a, b)
    return True


def _same_items(xs: Any, ys: Any) -> bool:
    for x, y in zip(xs, ys, strict=False):
        kind = type(x)
        if kind is type(y) and kind in _LEAVES:
            if x != y:
                return False
        elif not same_value(x, y):
            return False
    return True


_LEAF_TYPES = frozenset(_LEAVES)


def _is_prefix(old: Sequence[Any], new: Sequence[Any]) -> bool:
    """Whether `old` is `new`'s start, strictly (`same_value` item by item). A reducer list grows every
    step, so a long loop checks this once per step over the whole list: when both hold leaves of the same
    types, item for item, Python's own list comparison answers in C (equal leaves of one type are strictly
    equal); anything else goes item by item."""
    head = new[:len(old)]
    kinds = list(map(type, old))
    if kinds == list(map(type, head)) and _LEAF_TYPES.issuperset(kinds):
        return list(old) == list(head)
    return _same_items(old, head)


def format_value(value: Any, *, max_chars: int | None = None) -> str:
    """Render a value for a table cell so absent, null, [] and "" never look alike.

    JSON is used for everything else, so the string "null" shows as `"null"` (quoted) and cannot be
    mistaken for a null value. With `max_chars`, a container is encoded only as far as the cell
    shows it: the retrieved chunks of a RAG state are tens of kilobytes and the table shows 400.
    """
    if value is ABSENT:
        return absent_text()
    try:
        text = _encode(_plain(value), max_chars)
    except (TypeError, ValueError):
        text = repr(value)
    if max_chars is not None and len(text) > max_chars:
        text = text[: max(0, max_chars - 1)] + "…"
    return text


def _encode(value: Any, max_chars: int | None) -> str:
    if max_chars is None or not isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False, default=json_default)
    return json.dumps(_clip(value, max_chars + 1)[0], ensure_ascii=False, default=json_default)


def _clip(value: Any, budget: int) -> tuple[Any, int]:
    """(`value` cut to what the first `budget` characters of its JSON show, a lower bound of the
    cut value's JSON length). The cut value's JSON starts with the same `budget` characters as the
    whole value's, and is encoded by json's C encoder in one call: Python's incremental encoder,
    stopped after a cell's worth, cost ~0.1 ms a cell, ~12 ms for a finished run's diff."""
    if isinstance(value, str):
        return value[:budget], min(len(value), budget) + 2
    if isinstance(value, dict):
        out: dict = {}
        at = 1  # the characters before the next item, at least: "{", then each "key": value
        for key, item in value.items():
            if at > budget:
                break
            at += len(str(key)) + 4  # "key": (the ", " between items is not counted: a lower bound)
            out[key], size = _clip(item, budget - at)
            at += size
        return out, at + 1
    if isinstance(value, (list, tuple)):
        items: list = []
        at = 1
        for item in value:
            if at > budget:
                break
            cut, size = _clip(item, budget - at)
            items.append(cut)
            at += size
        return items, at + 1
    return value, 1


def json_default(value: Any) -> Any:
    """`json.dumps(default=...)` for state values: pydantic models dumped, sets sorted, else repr."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    return repr(value)


def jsonable(value: Any) -> Any:
    """`value` as an export writes it: plain JSON values (the one copy; the history's recorders and the export
    each had their own)."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=json_default))


def _ordered_keys(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """State order first (the before dict), then keys that appeared; stable for tests and eyes."""
    keys = list(before.keys())
    keys.extend(k for k in after.keys() if k not in before)
    return keys


def _scalar_row(path: str, before: Any, after: Any) -> DiffRow:
    if before is ABSENT and after is ABSENT:
        kind: DiffKind = "unchanged"
    elif before is ABSENT:
        kind = "added"
    elif after is ABSENT:
        kind = "removed"
    elif same_value(before, after):
        kind = "unchanged"
    else:
        kind = "changed"
    return DiffRow(path=path, before=before, after=after, kind=kind)


def _append_rows(path: str, before: Any, after: Any) -> list[DiffRow]:
    """A reducer list: one `appended` row per new item when the old list is a prefix of the new.

    Anything else (the list shrank, an old item changed, a non-list value) is not an append and
    falls back to one whole-field row, so an unexpected overwrite is still visible as `changed`.
    """
    old = [] if before is ABSENT else before
    if isinstance(old, (list, tuple)) and isinstance(after, (list, tuple)):
        prefix = len(old) <= len(after) and _is_prefix(old, after)
        if prefix:
            if len(after) == len(old):
                if before is ABSENT:
                    return [DiffRow(path=path, before=ABSENT, after=after, kind="added")]
                return [DiffRow(path=path, before=before, after=after, kind="unchanged")]
            return [
                DiffRow(path=f"{path}[{i}]", before=ABSENT, after=after[i], kind="appended")
                for i in range(len(old), len(after))
            ]
    return [_scalar_row(path, before, after)]


def _nested_rows(path: str, before: Any, after: Any) -> list[DiffRow]:
    """A dict field diffed key by key (`rag_trace.route`).

    Key-level rows are used when each side is a dict or absent (an absent dict diffs as `{}`, so
    its keys show as added/removed). `None` <-> dict gives a container row plus the key rows. If a
    side is anything else (e.g. a string), one whole-field row is shown.
    """
    b_ok = before is ABSENT or isinstance(before, Mapping)
    a_ok = after is ABSENT or isinstance(after, Mapping)
    if before is None and isinstance(after, Mapping) or after is None and isinstance(before, Mapping):
        # null <-> dict: the container row says it was (or became) null; the key rows say what the
        # dict holds, so a trace that starts mid-run still reads key by key.
        container = _scalar_row(path, before, after)
        b = before if isinstance(before, Mapping) else {}
        a = after if isinstance(after, Mapping) else {}
        return [container] + [_scalar_row(f"{path}.{k}", b.get(k, ABSENT), a.get(k, ABSENT)) for k in _ordered_keys(b, a)]
    if not (b_ok and a_ok) or (before is ABSENT and after is ABSENT):
        return [_scalar_row(path, before, after)]
    b = {} if before is ABSENT else before
    a = {} if after is ABSENT else after
    if not b and not a:  # {} on both sides (or {} vs absent): keep one row so the field is listed
        return [_scalar_row(path, before, after)]
    return [_scalar_row(f"{path}.{k}", b.get(k, ABSENT), a.get(k, ABSENT)) for k in _ordered_keys(b, a)]


def diff_states(
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
    *,
    append_fields: Iterable[str] = frozenset(),
    nested_fields: Iterable[str] = frozenset(),
) -> list[DiffRow]:
    """Rows for every field of either state, unchanged ones included (filter with `kind`).

    `append_fields`: list channels with an appending reducer (see `reducer_fields`).
    `nested_fields`: dict fields to diff one level deep, key by key.
    """
    before = dict(before or {})
    after = dict(after or {})
    appends = set(append_fields)
    nested = set(nested_fields)
    rows: list[DiffRow] = []
    for key in _ordered_keys(before, after):
        b, a = before.get(key, ABSENT), after.get(key, ABSENT)
        if key in appends:
            rows.extend(_append_rows(key, b, a))
        elif key in nested:
            rows.extend(_nested_rows(key, b, a))
        else:
            rows.append(_scalar_row(key, b, a))
    return rows


def changed_rows(rows: Iterable[DiffRow]) -> list[DiffRow]:
    return [r for r in rows if r.kind != "unchanged"]


def reducer_fields(compiled_graph: Any) -> set[str]:
    """State fields whose channel folds writes with a binary operator (e.g. `operator.add`).

    Discovered from the compiled graph's channels rather than from type hints, because that is
    what actually decides whether a write appends or overwrites at run time.
    """
    from langgraph.channels.binop import BinaryOperatorAggregate

    channels = getattr(compiled_graph, "channels", None) or {}
    return {
        name
        for name, channel in channels.items()
        if isinstance(channel, BinaryOperatorAggregate) and not name.startswith("__")
    }


def diff_cells(row: DiffRow, *, max_chars: int | None = None) -> tuple[str, str, str, str]:
    """One row as the text of its cells, in TABLE_COLUMNS order (values by `format_value`)."""
    return (row.path, format_value(row.before, max_chars=max_chars), format_value(row.after, max_chars=max_chars),
            row.kind)


def diff_table(rows: Iterable[DiffRow], show_unchanged: bool = False, *, max_chars: int | None = None) -> pd.DataFrame:
    """A DataFrame (field, before, after, kind) of `diff_cells`."""
    import pandas as pd

    records = [diff_cells(r, max_chars=max_chars) for r in rows if show_unchanged or r.kind != "unchanged"]
    return pd.DataFrame(records, columns=list(TABLE_COLUMNS))
