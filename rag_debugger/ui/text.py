"""User, model and imported text shown as text, never as markup.

Streamlit reads markdown in `st.markdown`, captions, alerts, `st.write`, button / expander / status labels
and `st.table` cells: a question like `![x](http://host/x.png)` made the browser fetch a URL, and
`:red[...]`, `$...$` or a heading would restyle the page. Every piece of such text goes through `as_text`
before it is put in one of those places; the HTML the inspector builds is escaped by `html.escape` instead.
Widgets that never read markdown (text inputs, select boxes' options, `st.json`, `st.code`, data grids)
get the raw text.
"""
from __future__ import annotations

import re

#: Markup that can start anywhere: backslash, emphasis and code (`*`, `~`, backtick), math (`$`), raw HTML and
#: autolinks (`<`), table cells (`|`), an image (`![`), a link target (`](`), Streamlit's `:emoji:`,
#: `:red[...]` and `:material/...:` (a colon before a letter), and `_` at the edge of a word (inside a
#: word, as in `scope_select`, it never emphasises). Other punctuation is left alone, so ordinary
#: sentences read the same in the page source as on screen.
_INLINE = re.compile(r"[\\`*~$<|]|!(?=\[)|(?<=\])\(|:(?=[A-Za-z])|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
#: Markup that only counts at the start of a line: headings, quotes, lists, rules, setext underlines.
_LINE_START = re.compile(r"^([ \t]*)(\d+(?=[.)])|)([.)#>+=-])", re.MULTILINE)


def as_text(value: object) -> str:
    """`value` as a string that Streamlit's markdown shows literally."""
    text = "" if value is None else str(value)
    text = _INLINE.sub(lambda m: "\\" + m.group(0), text)
    return _LINE_START.sub(lambda m: m.group(1) + m.group(2) + "\\" + m.group(3), text)


__all__ = ["as_text"]
