"""A stored run document read with one copy of each repeated string.

Why: a recording stores the whole state at every checkpoint, so a state that grows step by step (a list
with an adding reducer, a conversation) repeats every earlier item in every later checkpoint. Read
naively, a 200-step run holds each item up to 200 times as separate strings: its document in memory was
twice its text, and a Download as HTML of it peaked at ten times its size. Equal strings are shared as
they are parsed (per object, so the copies never pile up), which keeps the document in memory close to
the size of what it says once.
"""
from __future__ import annotations

import json
from typing import Any


def _share_list(items: list, seen: dict[str, str]) -> None:
    for i, item in enumerate(items):
        if type(item) is str:
            items[i] = seen.setdefault(item, item)
        elif type(item) is list:
            _share_list(item, seen)


def loads_shared(text: str | bytes) -> Any:
    """`json.loads(text)`, with equal string values (in objects and lists) the same object."""
    seen: dict[str, str] = {}

    def share(obj: dict[str, Any]) -> dict[str, Any]:  # called per object, inner objects first
        for key, value in obj.items():
            if type(value) is str:
                obj[key] = seen.setdefault(value, value)
            elif type(value) is list:
                _share_list(value, seen)
        return obj

    return json.loads(text, object_hook=share)


__all__ = ["loads_shared"]
