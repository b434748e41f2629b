"""A comparison of two runs as one self-contained HTML file (issue 27), the twin of a run's file
(rag_debugger/exports/run_file.py): it says what the Compare page says (`rag_debugger.views.compare_content`), in both languages.

Why no script: everything the file switches (the language, "all fields", folded steps) is done with
form controls and CSS (`:checked` selectors, `<details>`), so the Content-Security-Policy allows no
script at all and no fetch: `default-src 'none'; style-src 'unsafe-inline'`. Every text is escaped
when it is written; backtick spans of the page's own sentences become `<code>` after escaping.
"""
from __future__ import annotations

import re
from typing import Any, Iterable

from rag.i18n import _, use_language
from rag.i18n.formatting import date_time
from rag.i18n.languages import LANGUAGES
from rag_debugger.debugger.html_page import esc, page
from rag_debugger.views.compare_content import Block, comparison_blocks, word_diff_html

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
CSS = """
body{font-family:"Source Sans Pro",system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans CJK SC",sans-serif;
margin:0 auto;max-width:1280px;padding:16px 24px;color:#262730;background:#fff;line-height:1.45}
h1{font-size:1.5rem;margin:0 0 6px}h2{font-size:1.2rem;margin:18px 0 6px}
table{border-collapse:collapse;margin:6px 0;font-size:.9rem}td,th{border:1px solid #e1e3e8;padding:3px 8px;
text-align:left;vertical-align:top;white-space:pre-wrap;word-break:break-word}th{background:#f6f7f9}
code{background:#f0f2f6;padding:0 3px;border-radius:3px}.cap{color:#6b6f7b;font-size:.9rem}
.ok{background:#e8f5e9;padding:6px 10px}.warn{background:#fff4e5;padding:6px 10px}
details{border:1px solid #e1e3e8;border-radius:4px;margin:6px 0;padding:4px 10px}summary{cursor:pointer}
pre{background:#f6f7f9;padding:8px;overflow:auto}.switches{float:right;font-size:.9rem}
.switches label{margin-left:12px;cursor:pointer}
"""
_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*([^*]+)\*\*")


def inline(text: str) -> str:
    """A sentence of the page's own: escaped, then its `code` and **bold** spans marked."""
    return _BOLD.sub(r"<b>\1</b>", _CODE.sub(r"<code>\1</code>", esc(text)))


def table_html(rows: Iterable[dict]) -> str:
    rows = list(rows)
    if not rows:
        return ""
    columns = list(dict.fromkeys(k for row in rows for k in row))
    head = "".join(f"<th>{esc(str(c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{esc(str(row.get(c, '')))}</td>" for c in columns) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def blocks_html(blocks: Iterable[Block]) -> str:
    out = []
    for block in blocks:
        kind = block.kind
        if kind == "subheader":
            out.append(f"<h2>{inline(block.text)}</h2>")
        elif kind == "md":
            out.append(f"<p>{inline(block.text)}</p>")
        elif kind == "caption":
            out.append(f'<p class="cap">{esc(block.text)}</p>')
        elif kind == "success":
            out.append(f'<p class="ok">{inline(block.text)}</p>')
        elif kind == "warning":
            out.append(f'<p class="warn">{inline(block.text)}</p>')
        elif kind == "text":
            out.append(f"<p>{esc(block.text)}</p>")
        elif kind == "table":
            out.append(table_html(block.rows))
        elif kind == "code":
            out.append(f"<pre>{esc(block.text)}</pre>")
        elif kind == "answer_diff":
            out.append(f"<p>{word_diff_html(*block.args)}</p>")
        elif kind == "fold":
            opened = " open" if block.open_ else ""
            out.append(f"<details{opened}><summary>{inline(block.text)}</summary>{blocks_html(block.children)}</details>")
    return "".join(out)


def _header(rc: Any, side_a: Any, side_b: Any) -> str:
    lines = ["<h1>" + esc(_("Compare two runs")) + "</h1>"]
    for name, side in (("A", side_a), ("B", side_b)):
        run = side.main.run
        lines.append('<p class="cap">' + esc(_("Run {side}: {run} · {date} · {question}").format(
            side=name, run=run.run_id, date=date_time(run.created_at), question=run.question)) + "</p>")
    return "".join(lines)


def comparison_report(rc: Any, side_a: Any, side_b: Any, *, lang: str = "en") -> str:
    """The whole file, opening in `lang`; both languages and both views ("what differs", "all fields")
    are in it, switched by CSS."""
    bodies = []
    for code in LANGUAGES:
        with use_language(code):
            for show_all in (False, True):
                body = _header(rc, side_a, side_b) + blocks_html(comparison_blocks(rc, side_a, side_b,
                                                                                   show_all=show_all))
                bodies.append(f'<div class="v v-{code}-{"all" if show_all else "diff"}">{body}</div>')
    radios = "".join(f'<input type="radio" name="lang" id="lang-{code}" hidden{" checked" if code == lang else ""}>'
                     for code in LANGUAGES)
    marks = "".join(f"#lang-{code}:checked~.switches label[for=lang-{code}]{{font-weight:bold}}" for code in LANGUAGES)
    marks += ('.switches label[for=all]::before{content:"\\2610  "}'
              '#all:checked~.switches label[for=all]::before{content:"\\2611  "}')
    hide = marks + "".join(f"#lang-{code}:checked~main .v:not(.v-{code}-diff){{display:none}}"
                   f"#lang-{code}:checked~#all:checked~main .v:not(.v-{code}-all){{display:none}}"
                   f"#lang-{code}:checked~#all:checked~main .v-{code}-all{{display:block}}"
                   for code in LANGUAGES)
    with use_language(lang):
        all_fields = esc(_("Show all fields of each step"))
        title = _("Compare two runs")
    names = {"en": "English", "zh": "中文"}
    langs = "".join(f'<label for="lang-{code}">{names.get(code, code)}</label>' for code in LANGUAGES)
    return page(title=title, lang=lang, csp=CSP, style=CSS + hide,
                body=f'{radios}<input type="checkbox" id="all" hidden>'
                     f'<div class="switches">{langs}<label for="all">{all_fields}</label></div>'
                     f"<main>{''.join(bodies)}</main>")
