"""User, model and imported text shown as text, never as markup.

Streamlit reads markdown in `st.markdown`, captions, alerts, `st.write`, button / expander / status labels
and `st.table` cells: a question like `![x](http://host/x.png)` made the browser fetch a URL, and
`:red[...]`, `$...$` or a heading would restyle the page. Every piece of such text goes through `as_text`
before it is put in one of those places; the HTML the inspector builds is escaped by
`rag_debugger.debugger.html_page.esc` instead.
Widgets that never read markdown (text inputs, select boxes' options, `st.json`, `st.code`, data grids)
get the raw text.

Inside a code span (between backticks) markdown escapes do not work: a backtick in the text closes the
span and the rest is read as markup (`x` ![](//host/p) made every viewer's browser fetch a URL), and a
blank line ends it. `code_span` builds a whole span whose fence is longer than any run of backticks in
the text; `in_code` makes text safe to put between the single backticks a translated message already has
(`Run `{run}` from ...`). Both put the text on one line. tests/house/test_outside_text.py fails when a
markdown-reading call builds its text from anything that did not come through here.
"""
from __future__ import annotations

import re

#: Markup that can start anywhere: backslash, emphasis and code (`*`, `~`, backtick), math (`$`), raw HTML and
#: autolinks (`<`), table cells (`|`), brackets (an image `![`, a link `[..](..)`, a reference `[..][..]`,
#: a footnote or Streamlit's `:red[...]`), Streamlit's `:emoji:`,
#: `:red[...]` and `:material/...:` (a colon before a letter), and `_` at the edge of a word (inside a
#: word, as in `scope_select`, it never emphasises). Other punctuation is left alone, so ordinary
#: sentences read the same in the page source as on screen.
_INLINE = re.compile(r"[\\`*~$<|\[\]]|:(?=[A-Za-z])|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
#: Markup that only counts at the start of a line: headings, quotes, lists, rules, setext underlines.
_LINE_START = re.compile(r"^([ \t]*)(\d+(?=[.)])|)([.)#>+=-])", re.MULTILINE)


def as_text(value: object) -> str:
    """`value` as a string that Streamlit's markdown shows literally."""
    text = "" if value is None else str(value)
    text = _INLINE.sub(lambda m: "\\" + m.group(0), text)
    return _LINE_START.sub(lambda m: m.group(1) + m.group(2) + "\\" + m.group(3), text)


#: Line and paragraph breaks, and other controls: a code span must stay on one line (a blank line ends it).
_BREAKS = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")
#: What stands for a backtick inside a span that already has its single-backtick fence: a grave accent
#: that markdown does not read (U+02CB MODIFIER LETTER GRAVE ACCENT).
_GRAVE = "\u02cb"


def in_code(value: object) -> str:
    """`value` as text to put between the single backticks of a message (`` `{name}` ``): it cannot close
    the span (its backticks become `ˋ`) nor end the paragraph (line breaks become spaces)."""
    text = "" if value is None else str(value)
    return _BREAKS.sub(" ", text).replace("`", _GRAVE) or " "


def code_span(value: object) -> str:
    """`value` as a whole inline code span, shown exactly (on one line): the fence is one backtick longer
    than the longest run of backticks in it, so nothing in the text can close it."""
    text = _BREAKS.sub(" ", "" if value is None else str(value)) or " "
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


__all__ = ["as_text", "code_span", "in_code"]
