"""What the inspector sends on a Step: only the sections the browser does not already show.

A Step reran the inspector with every section's HTML: the graph picture (a new ~15 KB image per
position, though a run visits a dozen positions and revisits them on Restart and time travel), the
DOT source and the node help (the same on every Step), and the step's own diff. Serialising,
sending, parsing and comparing ~55 KB per click was a good part of what a Step cost over
Streamlit's one-button floor (bench/ui_step.py). Now the server remembers what the mounted
inspector shows (a digest per section, and the digests of the graph pictures the browser keeps)
and sends a section's HTML only when the browser has not got it; otherwise `kept` names the
digest to show.

When the browser lacks a kept section (the component was mounted afresh: another page and back,
a reload), inspector.js asks once for everything ("resend"); a page's full run always sends
everything. Pure functions, so the rules are tested as a table (tests/ui/test_delivery.py).
"""
from __future__ import annotations

import hashlib
from typing import Mapping, Optional

from pydantic import BaseModel, Field

GRAPH_CACHE_SIZE = 48
"""How many graph pictures the browser keeps (inspector.js keeps as many): a graph has a dozen or
so positions, the RAG debugger shows two graphs (the main run and the resume)."""
CACHED_SECTIONS = frozenset({"graph"})
"""Sections the browser keeps several versions of, by digest (the others: only the one shown)."""


class Delivered(BaseModel):
    """What the mounted inspector shows: a digest per section, and the cached graph pictures (oldest first)."""

    shown: dict[str, str] = Field(default_factory=dict)
    cached: list[str] = Field(default_factory=list)


def digest(html: str) -> str:
    return hashlib.blake2b(html.encode("utf-8"), digest_size=8).hexdigest()


def payload(sections: Mapping[str, str], names: tuple[str, ...], delivered: Optional[Delivered],
            *, cache_size: int = GRAPH_CACHE_SIZE) -> tuple[dict, Delivered]:
    """(the data to send, what the browser will show once it has it).

    `sections`: every section's HTML plus other values (sent as they are); `names`: which keys are
    sections; `delivered`: what the browser shows now (None: nothing known, send everything)."""
    data: dict = {k: v for k, v in sections.items() if k not in names}
    hashes: dict[str, str] = {}
    kept: dict[str, str] = {}
    cached = list(delivered.cached) if delivered else []
    for name in names:
        html = sections.get(name, "")
        h = digest(html)
        hashes[name] = h
        known = delivered is not None and (delivered.shown.get(name) == h
                                           or (name in CACHED_SECTIONS and h in cached))
        if known:
            kept[name] = h
        else:
            data[name] = html
        if name in CACHED_SECTIONS:
            if h in cached:
                cached.remove(h)
            cached.append(h)
    data["hashes"] = hashes
    data["kept"] = kept
    return data, Delivered(shown=hashes, cached=cached[-cache_size:])

