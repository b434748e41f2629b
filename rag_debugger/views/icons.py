"""Icons that need no font the app does not bring.

Why: emoji need a colour-emoji font (Debian's `fonts-noto-color-emoji`), which
`pip install -r requirements.txt` does not install; without it a plain Chromium draws them as
empty boxes. Streamlit bundles Material Symbols for `:material/name:` icons in its own elements
(titles, buttons, page links, alerts), so those use `MATERIAL`; the inspector's own HTML uses the
inline SVGs below; and the engine's progress events, whose icon is an emoji by protocol, are shown
by their label instead of their icon.
"""
from __future__ import annotations

import re
from typing import Mapping

from rag.graph.progress_labels import translate_progress
from rag.i18n import _
from rag_debugger.debugger.html_page import esc

# 24x24 paths of the Material Icons set (Apache-2.0), drawn in the text colour.
_PATHS: Mapping[str, str] = {
    "run": "M8 5v14l11-7z",
    "step": "M6 18l8.5-6L6 6v12zM16 6v12h2V6h-2z",
    "continue": "M4 18l8.5-6L4 6v12zm9-12v12l8.5-6L13 6z",
    "restart": "M12 5V1L7 6l5 5V7c3.31 0 6 2.69 6 6s-2.69 6-6 6-6-2.69-6-6H4c0 4.42 3.58 8 8 8s8-3.58 "
               "8-8-3.58-8-8-8z",
    "answer": "M12 2C6.48 2 2 6.48 2 12s4.48 10 10 10 10-4.48 10-10S17.52 2 12 2zm-2 15l-5-5 1.41-1.41L10 "
              "14.17l7.59-7.59L19 8l-9 9z",
    "no_knowledge": "M12 2C6.48 2 2 6.48 2 12s4.48 10 10 10 10-4.48 10-10S17.52 2 12 2zM4 12c0-4.42 3.58-8 "
                    "8-8 1.85 0 3.55.63 4.9 1.69L5.69 16.9A7.9 7.9 0 0 1 4 12zm8 8c-1.85 0-3.55-.63-4.9-1.69"
                    "L18.31 7.1A7.9 7.9 0 0 1 20 12c0 4.42-3.58 8-8 8z",
    "rewrite": "M3 17.25V21h3.75L17.81 9.94l-3.75-3.75L3 17.25zM20.71 7.04a1 1 0 0 0 0-1.41l-2.34-2.34a1 1 0 0 "
               "0-1.41 0l-1.83 1.83 3.75 3.75 1.83-1.83z",
    "stop": "M6 6h12v12H6z",
    "info": "M12 2C6.48 2 2 6.48 2 12s4.48 10 10 10 10-4.48 10-10S17.52 2 12 2zm1 15h-2v-6h2v6zm0-8h-2V7h2v2z",
}


def svg_icon(name: str, *, label: str = "") -> str:
    """An inline SVG icon for the inspector's HTML (`info` for an unknown name). Decorative
    unless `label` is given."""
    path = _PATHS.get(name, _PATHS["info"])
    a11y = f' role="img" aria-label="{esc(label)}"' if label else ' aria-hidden="true"'
    return (f'<svg class="rdi-icon rdi-icon-{name if name in _PATHS else "info"}" viewBox="0 0 24 24"{a11y}>'
            f'<path d="{path}"/></svg>')


MATERIAL: Mapping[str, str] = {
    "debugger": ":material/step_over:",
    "trace": ":material/receipt_long:",
    "playground": ":material/science:",
    "history": ":material/history:",
    "settings": ":material/settings:",
    "your_graph": ":material/account_tree:",
    "knowledge_bases": ":material/library_books:",
    "evaluate": ":material/fact_check:",
    "app": ":material/travel_explore:",
    "replay": ":material/videocam:",
    "eject": ":material/eject:",
    "play": ":material/play_arrow:",
    "ask": ":material/contact_support:",
    "model": ":material/smart_toy:",
    "offline": ":material/science:",
    "save": ":material/save:",
    "compare": ":material/balance:",
    "valid": ":material/check_circle:",
    "invalid": ":material/block:",
    "package": ":material/inventory_2:",
    "open": ":material/open_in_new:",
    "download": ":material/download:",
    "delete": ":material/delete:",
    "lock": ":material/lock:",
}
"""Streamlit's own elements: `:material/<name>:` icons, drawn from the font Streamlit ships."""


_MARK_END = re.compile(r"[\s(（:：→]")


def progress_mark(step: Mapping) -> str:
    """A progress event as plain text for a table cell: its label's first word ("Retrieval",
    "Grade", "Sub-question"; "检索", "评分" in Chinese) instead of its emoji icon."""
    label = translate_progress(step.get("label") or "").strip()
    return _MARK_END.split(label, 1)[0] or label if label else _("step")
