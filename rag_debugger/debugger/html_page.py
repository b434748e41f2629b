"""The one place that writes HTML's basics: escaping and a self-contained page's skeleton.

Why one module: escaping was spelled out five times (`html_view`, `value_view`, the sidebar's icons, the
comparison file, the evaluation file) and the page head three times (a run's file, a comparison's file, an
evaluation's file), each with its own `lang` rule and Content-Security-Policy placement; a fix to one did not
reach the others. It imports nothing but the standard library, so the sidebar's icons (drawn before the debugger
loads) and the engine's evaluation file (`rag.eval.report`; the debugger core is the layer below the engine) use
it as cheaply as the inspector does.
"""
from __future__ import annotations

import html


def esc(value: object) -> str:
    """Text as HTML text or an attribute value (quotes escaped too); None is empty."""
    return html.escape("" if value is None else str(value), quote=True)


def html_lang(lang: str) -> str:
    """The page's `lang` attribute for one of the UI's language codes."""
    return "zh-CN" if lang == "zh" else "en"


def style_element(css: str) -> str:
    """A style sheet as an element a page puts in once (Streamlit's `st.html` keeps a style-only element out of the
    layout)."""
    return f"<style>{css}</style>"


def page(*, title: str, body: str, lang: str, csp: str, style: str = "", viewport: bool = True) -> str:
    """A whole self-contained file: `csp` is its Content-Security-Policy (a file opened from disk makes no request
    it does not allow), `title` is plain text (escaped here), `style` and `body` are HTML already."""
    view = '<meta name="viewport" content="width=device-width, initial-scale=1">' if viewport else ""
    return (f'<!DOCTYPE html>\n<html lang="{html_lang(lang)}"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{csp}">{view}'
            f"<title>{esc(title)}</title><style>{style}</style></head><body>{body}</body></html>\n")


__all__ = ["esc", "html_lang", "page", "style_element"]
