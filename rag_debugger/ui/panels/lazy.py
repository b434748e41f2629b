"""Expanders and popovers whose content is built only while they are open.

A plain expander sends its content on every rerun even when closed (the debugger's folded demo
list is 14 buttons). With a key and `on_change="rerun"`, Streamlit reports whether the expander is
open, so a closed one costs nothing.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import streamlit as st


@contextmanager
def lazy_expander(label: str, *, key: str) -> Iterator[bool]:
    """`with lazy_expander("Demo questions", key="x") as is_open: if is_open: ...`"""
    container = st.expander(label, key=key, on_change="rerun")
    with container:
        yield bool(container.open)


@contextmanager
def lazy_popover(label: str, *, key: str, help: str | None = None) -> Iterator[bool]:
    """The same as a popover: a button that opens a panel, built only while open. Takes one row
    where an expander would take a line of its own (the debugger's question row)."""
    container = st.popover(label, key=key, on_change="rerun", width="stretch", help=help)
    with container:
        yield bool(container.open)
