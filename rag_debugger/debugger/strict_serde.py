"""Reading a checkpointer the debugger did not write: LangGraph's msgpack allow-list, strictly.

A checkpoint blob or pending write is msgpack whose extension types name a module and a callable to
rebuild a value with; LangGraph's default serializer imports and calls whatever is named (a crafted write
`("os", "system", "…")` runs a command when the thread is opened). Here only the types LangGraph itself
counts safe (`SAFE_MSGPACK_TYPES`, messages, documents, `Send`, `Interrupt`...) and the types the loaded
graph's own schemas name (`graph._serde_allowlist`, what LangGraph's strict mode allows) are rebuilt;
anything else becomes a visible `undecodable` marker and nothing is imported or called.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

import ormsgpack
from langgraph.checkpoint.serde import _msgpack as lg_msgpack
from langgraph.checkpoint.serde.jsonplus import (
    EXT_CONSTRUCTOR_KW_ARGS,
    EXT_CONSTRUCTOR_POS_ARGS,
    EXT_CONSTRUCTOR_SINGLE_ARG,
    EXT_METHOD_SINGLE_ARG,
    EXT_PYDANTIC_V1,
    EXT_PYDANTIC_V2,
    JsonPlusSerializer,
    _create_msgpack_ext_hook,
)

UNDECODABLE = "⚠ undecodable"
_CONSTRUCTORS = {EXT_CONSTRUCTOR_SINGLE_ARG, EXT_CONSTRUCTOR_POS_ARGS, EXT_CONSTRUCTOR_KW_ARGS, EXT_PYDANTIC_V1,
                 EXT_PYDANTIC_V2}


def undecodable(module: Any, name: Any) -> str:
    """What a blocked value shows as: a plain string, so every view (diff, JSON, HTML) shows it as text."""
    return f"{UNDECODABLE}: {str(module)[:80]}.{str(name)[:80]} is not on the allow-list; it was not rebuilt"


def _names(data: bytes) -> Optional[tuple]:
    """The (module, name, ..., method) of an extension value, without rebuilding anything in it."""
    try:
        tup = ormsgpack.unpackb(data, ext_hook=lambda _code, _data: None, option=ormsgpack.OPT_NON_STR_KEYS)
    except Exception:  # noqa: BLE001 - a malformed value is undecodable too
        return None
    return tuple(tup) if isinstance(tup, (list, tuple)) and len(tup) >= 2 else None


class StrictSerializer(JsonPlusSerializer):
    """`JsonPlusSerializer` with `allowed_msgpack_modules` = LangGraph's safe types + `allowed`, no pickle, no
    JSON-module revival, and a blocked value shown as `undecodable(...)` instead of silently as its arguments."""

    def __init__(self, allowed: Iterable[tuple[str, ...]] = ()) -> None:
        self.allowed = frozenset(tuple(a) for a in allowed)
        inner = _create_msgpack_ext_hook(set(self.allowed) or None)

        def hook(code: int, data: bytes) -> Any:
            if code in _CONSTRUCTORS or code == EXT_METHOD_SINGLE_ARG:
                names = _names(data)
                if names is None:
                    return undecodable("?", "?")
                key = (str(names[0]), str(names[1]))
                if code == EXT_METHOD_SINGLE_ARG:
                    ok = len(names) > 3 and (*key, str(names[3])) in lg_msgpack.SAFE_MSGPACK_METHODS
                else:
                    ok = key in lg_msgpack.SAFE_MSGPACK_TYPES or key in self.allowed
                if not ok:
                    return undecodable(*key)
            return inner(code, data)

        super().__init__(pickle_fallback=False, allowed_json_modules=None,
                         allowed_msgpack_modules=tuple(self.allowed) or None, __unpack_ext_hook__=hook)

    def with_msgpack_allowlist(self, extra_allowlist: Iterable[Any]) -> "StrictSerializer":
        extra = {tuple(a) if not isinstance(a, type) else (a.__module__, a.__name__) for a in extra_allowlist}
        return self if extra <= self.allowed else StrictSerializer(self.allowed | extra)


def graph_allowlist(graph: Any) -> frozenset[tuple[str, ...]]:
    """The types the loaded graph's own schemas name, as LangGraph collects them at compile time."""
    found = getattr(graph, "_serde_allowlist", None)
    if found is None:
        try:
            from langgraph._internal._serde import build_serde_allowlist

            schema = getattr(getattr(graph, "builder", None), "state_schema", None)
            found = build_serde_allowlist(schemas=[schema] if schema is not None else [],
                                          channels=getattr(graph, "channels", None))
        except Exception:  # noqa: BLE001 - an unusual graph: the safe types only
            found = set()
    return frozenset(tuple(a) for a in found)


__all__ = ["StrictSerializer", "UNDECODABLE", "graph_allowlist", "undecodable"]
