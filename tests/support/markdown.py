"""Where a markdown source still has live markup: enough of CommonMark's inline rules (backslash escapes,
code spans with their backtick runs, paragraphs) to tell text shown as text from text that would become an
image, a link, raw HTML or Streamlit's colour / icon directives in a viewer's browser."""
from __future__ import annotations

import re

#: Markup that does something when it is not escaped: an image or link (`![`, `[`...`](`), raw HTML or an
#: autolink (`<`), a reference link or its definition (`][`, `[r]: url`), Streamlit's directives
#: (`:red[`, `:material/`), math (`$`).
_LIVE = re.compile(r"!\[|\]\(|\]\[|^[ \t]*\[[^\]]*\]:|<[A-Za-z/!?]|:[a-z]+\[|:material/|\$", re.MULTILINE)


def _outside_code(paragraph: str) -> str:
    """The paragraph with escaped characters and code spans blanked out, as a renderer reads it."""
    out, i, n = [], 0, len(paragraph)
    while i < n:
        ch = paragraph[i]
        if ch == "\\" and i + 1 < n:
            out.append("  ")
            i += 2
            continue
        if ch == "`":
            run = re.match(r"`+", paragraph[i:]).group(0)
            closing = re.compile(r"(?<!`)" + run + r"(?!`)")
            end = closing.search(paragraph, i + len(run))
            if end is None:  # no closing run: the backticks are literal
                out.append(" " * len(run))
                i += len(run)
                continue
            out.append(" " * (end.end() - i))
            i = end.end()
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def live_markup(source: str) -> list[str]:
    """The pieces of `source` that a markdown renderer would turn into markup (empty when it is all text)."""
    found = []
    for paragraph in re.split(r"\n[ \t]*\n", source):
        found += _LIVE.findall(_outside_code(paragraph))
    return found


def shown(source: str) -> str:
    """What a reader sees of a markdown source whose text was escaped (`rag_debugger.views.markdown_text.as_text`): the backslash
    escapes removed, the rest as it is."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", source)
