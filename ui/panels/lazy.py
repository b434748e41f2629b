"""Expanders whose content is built only while they are open.

A plain expander sends its content on every rerun even when closed; the debugger has several
(full state, progress lists, context text) and each Step reran them all. With a key and
`on_change="rerun"`, Streamlit reports whether the expander is open, so closed ones cost nothing.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import streamlit as st


@contextmanager
def lazy_expander(label: str, *, key: str) -> Iterator[bool]:
    """`with lazy_expander("Full state", key="x") as is_open: if is_open: ...`"""
    container = st.expander(label, key=key, on_change="rerun")
    with container:
        yield bool(container.open)
