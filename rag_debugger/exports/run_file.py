"""A run as one self-contained HTML file: what the debugger shows, for someone who has no app.

Why pre-rendered: the file must show exactly what the app shows (the same chunk cards, grade badges,
lanes, waterfall and answer), so every position's sections are drawn here by the inspector's own
functions (`rag_debugger.views.inspector_html.inspector_sections`, with no browser session behind it), once per
language, and stored once each (most sections repeat from one position to the next). A small script
only puts them in place: clicking a timeline row or pressing ← / → travels, two buttons switch the
language. Everything shown was escaped when it was drawn, as in the app; the page's own header is
escaped here. A Content-Security-Policy forbids every fetch: the one inline script runs by its hash,
images are `data:` URIs, and the file makes no request at all when opened.
"""
from __future__ import annotations

import base64
import hashlib
import io
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional

from rag.i18n import N_, _, use_language
from rag.i18n.languages import LANGUAGES
from rag_debugger.debugger.html_page import esc, html_lang

STATIC = Path(__file__).resolve().parent / "static"
SECTIONS = ("head", "graph", "docs", "step", "timeline", "evidence", "progress")
"""The inspector's sections a file shows (no controls: nothing runs)."""
SHARED = ("docs", "timeline", "progress")
"""Sections that do not change with the position."""
LAYOUT = (
    '<div class="rdi-root">'
    '<div class="rdi-cols"><div class="rdi-left"><div data-sec="graph"></div><div data-sec="docs"></div></div>'
    '<div class="rdi-right"><div data-sec="head"></div><div data-sec="step"></div></div></div>'
    '<div data-sec="timeline"></div><div data-sec="evidence"></div><div data-sec="progress"></div></div>'
)
PAGE_CSS = """
body{font-family:"Source Sans Pro",system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans CJK SC",sans-serif;
margin:0 auto;max-width:1280px;padding:16px 24px;color:#262730;background:#fff}
.rdr-head h1{font-size:1.5rem;margin:0 0 4px}.rdr-meta{color:#6b6f7b;font-size:.9rem;margin:2px 0}
.rdr-langs{float:right}.rdr-langs button{border:1px solid #d0d3da;background:#fff;padding:4px 10px;cursor:pointer}
.rdr-langs button[aria-pressed=true]{background:#fde8e8;border-color:#ff4b4b;color:#c62828}
.rdr-settings{font-size:.85rem}.rdr-settings td{padding:1px 8px 1px 0;vertical-align:top}
.rdr-hitl{border-left:3px solid #ffbd45;padding:4px 10px;margin:8px 0;background:#fffaf0}
"""


class _AllOpen(frozenset):
    """Every folded part counts as open, so its body is in the file (it starts closed)."""

    def __contains__(self, item: object) -> bool:  # noqa: D105
        return True


_OPEN_LAZY = re.compile(r'(<details data-lazy data-id="[^"]*") open>')


def _closed(section: str) -> str:
    """Folded parts the app builds only while open start closed in the file (their body is there)."""
    return _OPEN_LAZY.sub(r"\1>", section) if "data-lazy" in section else section


def script_hash(script: str) -> str:
    """The CSP source that lets exactly this inline script run."""
    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


@lru_cache(maxsize=1)
def _script() -> str:
    return (STATIC / "run_file.js").read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _style() -> str:
    from rag_debugger.views.inspector_html import style_sheet

    return style_sheet() + PAGE_CSS


def _json_in_html(value: Any) -> str:
    """JSON that cannot end the <script> element holding it, in ASCII (see `_ascii`)."""
    text = json.dumps(value, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _ascii(markup: str) -> str:
    """HTML text with every other character as a character reference: the file is then ASCII, one byte a
    character in memory while it is written (a single Chinese word made Python hold the whole file at two
    bytes a character), and reads the same in a browser."""
    return markup.encode("ascii", "xmlcharrefreplace").decode("ascii")


def _stored(section: str) -> str:
    """A drawn part as the file holds it: its JSON string, in ASCII. Parts are kept in this form from the
    moment they are drawn: the file is written from them without a copy, and ASCII text costs one byte a
    character where one "…" made Python hold a whole part at two."""
    return _json_in_html(_closed(section))


def _data_pieces(data: dict[str, Any]) -> Iterator[str]:
    """`data` as JSON for the page, in pieces: the drawn parts (`data["parts"]`, nearly all of the file,
    already JSON: see `_stored`) one by one, each let go once written, so writing a file costs its text
    once more, not the text, a list of every JSON token and three escaped copies (a 200-node stand-in
    run's file peaked at ten times its run's size that way)."""
    yield "{"
    for i, (key, value) in enumerate(data.items()):
        yield ("," if i else "") + json.dumps(key) + ":"
        if key != "parts":
            yield _json_in_html(value)
            continue
        yield "["
        for n in range(len(value)):
            yield ("," if n else "") + value[n]
            value[n] = None  # the page holds its copy now
        yield "]"
    yield "}"


def position_count(session: Any) -> int:
    """The positions a file can show: after each step, then the end (result and answer)."""
    return len(session.all_steps()) + 1


class _Drawn:
    """A position's drawing whose marks (what had run, what runs next: node names, the same in every
    language) are worked out once for all languages; the drawing itself is drawn per language (a title
    may be translated)."""

    def __init__(self, drawing: Any, marks: dict[Optional[int], dict], travel: Optional[int]) -> None:
        self._drawing = drawing
        self._shared = marks
        self._travel = travel

    def __getattr__(self, name: str) -> Any:
        return getattr(self._drawing, name)

    def marks(self) -> dict:
        if self._travel not in self._shared:
            self._shared[self._travel] = self._drawing.marks()
        return self._shared[self._travel]


class _Still:
    """The session as the file sees it: a run that does not move while its file is written, so what every
    position reads again (the list of steps, a position's marks) is worked out once, not once per position
    and language. Everything else is the session's own."""

    def __init__(self, session: Any) -> None:
        self._session = session
        self._steps: Optional[list] = None
        self._marks: dict[Optional[int], dict] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)

    def all_steps(self) -> list:
        if self._steps is None:
            self._steps = self._session.all_steps()
        return self._steps

    def drawing(self, travel: Optional[int] = None) -> _Drawn:
        return _Drawn(self._session.drawing(travel), self._marks, travel)


def render_positions(session: Any, *, parts: Any = None, langs: Iterable[str] = tuple(LANGUAGES),
                     header: Optional[Callable[[], str]] = None, as_data: Optional[bool] = None) -> dict:
    """Every position's sections in every language, each distinct HTML stored once; or, for a session
    whose positions the file's script can draw (`as_data` None: whenever it can), their data
    (rag_debugger/exports/run_file_data.py)."""
    import rag_debugger.debugger.i18n as debugger_i18n
    from rag.i18n import gettext, ngettext
    from rag_debugger.exports.run_file_data import DataStore, render_data, scripted
    from rag_debugger.views.inspector_html import RAG_PARTS, inspector_sections, position_html

    debugger_i18n.install(gettext, ngettext)  # the core's words follow `use_language` below, as in the app
    parts = parts or RAG_PARTS
    session = _Still(session)
    if as_data is not False and scripted(session, parts):
        return render_data(session, parts, DataStore(langs, _stored), _AllOpen(), header)
    table: dict[str, int] = {}
    stored: list[str] = []

    def ref(text: str) -> int:
        text = _stored(text)
        if text not in table:
            table[text] = len(stored)
            stored.append(text)
        return table[text]

    steps = len(session.all_steps())
    out: dict[str, Any] = {}
    for lang in langs:
        with use_language(lang):
            # The timeline, the node docs and the session's progress are the same at every position: drawn
            # once (the script marks the selected timeline row), so a long run costs one pass per step.
            once, _values = inspector_sections(session, None, parts=parts, opened=_AllOpen(), interactive=False)
            once["timeline"] = once.get("timeline", "").replace(' class="rdi-selected"', "")
            line = position_html(session, idle_hint=parts.idle_hint)  # where the run stands: the same everywhere
            shared: dict[str, int] = {}  # stored at the first position, not looked for again (the timeline grows)
            positions = []
            for travel in [*range(steps), None]:
                sections = once if travel is None else inspector_sections(
                    session, travel, parts=parts, opened=_AllOpen(), interactive=False, per_position_only=True,
                    position_line=line)[0]
                row = []
                for name in SECTIONS:
                    if name not in SHARED:
                        row.append(ref(sections.get(name, "")))
                    else:
                        if name not in shared:
                            shared[name] = ref(once.get(name, ""))
                        row.append(shared[name])
                positions.append(row)
            out[lang] = {"pos": positions, "header": header() if header else ""}
    return {"langs": out, "parts": stored, "positions": steps + 1}


def settings_rows(settings: Optional[dict]) -> str:
    """The run's public settings (never a key: RunInfo keeps `public_dict()` only)."""
    rows = "".join(f"<tr><td>{esc(str(k))}</td><td>{esc(json.dumps(v, ensure_ascii=False))}</td></tr>"
                   for k, v in sorted((settings or {}).items()) if not k.endswith("api_key"))
    summary = esc(_("Settings of the run"))
    return f'<details><summary>{summary}</summary><table class="rdr-settings">{rows}</table></details>'


def rag_header(session: Any) -> str:
    """The question, when and by whom, the prompt version and settings, and each HITL question with the
    answer that was given (in the current language)."""
    from rag.i18n.formatting import date_time

    first = session.segments[0] if session.segments else None
    info = getattr(first, "info", None)
    question = getattr(session, "question", "") or (info.question if info else "")
    out = [f"<h1>{esc(question)}</h1>"]
    if info is not None:
        run, when, who, provider = info.run_id, info.created_at, info.run_by, info.provider
        version, settings = info.prompt_version, info.settings
    else:  # a live session: what it runs with now
        settings_obj = getattr(session, "settings", None)
        run = getattr(first, "run_id", None) or "-"
        when = getattr(first, "started_at", None)
        who = ""
        provider = getattr(getattr(first, "ctx", None), "roles", None)
        provider = getattr(provider, "provider", None)
        version = getattr(first, "prompt_version", None)
        settings = settings_obj.public_dict() if settings_obj is not None and hasattr(settings_obj, "public_dict") else None
    if first is not None:
        out.append('<p class="rdr-meta">' + esc(_("Run {run} · {date} · by {person} · provider {provider}").format(
            run=run, date=date_time(when), person=who or _("(no name)"), provider=provider or "?")) + "</p>")
        out.append('<p class="rdr-meta">' + esc(_("Prompt version: {version}").format(
            version=version or "default")) + "</p>")
        out.append(settings_rows(settings))
    for before, seg in zip(session.segments, session.segments[1:], strict=False):
        if seg.kind != "resume":
            continue
        trace = (before.stepper.current_values() or {}).get("rag_trace") or {}
        answer = seg.answer or (seg.stepper.all_steps[0].values_before.get("hitl_answer")
                                if getattr(seg.stepper, "all_steps", None) else "")
        options = ", ".join(str(o) for o in trace.get("hitl_options") or [])
        out.append('<div class="rdr-hitl">' + esc(_("The workflow asked: {prompt}").format(
            prompt=trace.get("hitl_prompt") or "?")) + (
            "<br>" + esc(_("Options: {options}").format(options=options)) if options else "")
            + "<br><b>" + esc(_("Answered: {answer}").format(answer=answer or "?")) + "</b></div>")
    return "".join(out)


MADE_BY = N_("Written by the RAG debugger; opens with no server and no network.")


def _in(lang: str, message: str) -> str:
    """`message` in `lang`, escaped (a file's fixed sentences follow its language switch)."""
    with use_language(lang):
        return esc(_(message))


def report_html(session: Any, *, start: Optional[int] = None, lang: str = "en", parts: Any = None,
                title: str = "", header: Optional[Callable[[], str]] = None, as_data: Optional[bool] = None) -> str:
    """The whole file. `start`: the step shown when it opens (a timeline index; None: the end). `as_data`:
    see `render_positions`."""
    data = render_positions(session, parts=parts, header=header, as_data=as_data)
    latest = data["positions"] - 1
    data.update(lang=lang, sections=list(SECTIONS), start=latest if start is None else min(max(start, 0), latest))
    script = _script()
    csp = (f"default-src 'none'; script-src '{script_hash(script)}'; style-src 'unsafe-inline'; img-src data:; "
           "base-uri 'none'; form-action 'none'")
    buttons = "".join(f'<button type="button" data-lang="{code}">{esc(name)}</button>'
                      for code, name in (("en", "English"), ("zh", "中文")) if code in data["langs"])
    headers = "".join(f'<div data-rdr-lang="{code}"{"" if code == lang else " hidden"}>{body["header"]}</div>'
                      for code, body in data["langs"].items())
    made_by = "".join(f'<span data-rdr-lang="{code}"{"" if code == lang else " hidden"}>{_in(code, MADE_BY)}</span>'
                      for code in data["langs"])
    title = esc(title or _("Run report"))
    head = (
        f'<!DOCTYPE html>\n<html lang="{html_lang(lang)}"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_ascii(title)}</title><style>{_style()}</style></head><body>"
        f'<div class="rdr-head"><div class="rdr-langs">{_ascii(buttons)}</div>{_ascii(headers)}</div>'
        f"{LAYOUT}"
        f'<p class="rdr-meta">{_ascii(made_by)}</p>'
        '<script type="application/json" id="rdr-data">'
    )
    buf = io.StringIO()  # written piece by piece, each let go once written: the file is held once
    buf.write(head)
    for piece in _data_pieces(data):
        buf.write(piece)
    buf.write(f"</script><script>{script}</script></body></html>\n")
    return buf.getvalue()


def rag_report(session: Any, *, start: Optional[int] = None, lang: str = "en") -> str:
    """A RAG debugger session (live or replayed) as a file."""
    question = getattr(session, "question", "") or ""
    return report_html(session, start=start, lang=lang, title=question[:120], header=lambda: rag_header(session))


def replay_session(history: Any, run_id: str) -> Any:
    """A recorded run of `history` opened read-only and replayed to its end (UserInputError when it
    cannot be replayed)."""
    from rag_debugger.workbench.session import DebugSession

    session = DebugSession(history=history)
    session.open_replay(history, run_id)
    assert session.current is not None  # open_replay made the replay the current segment
    session.current.stepper.run_to_end()
    return session


def history_run_report(history: Any, run_id: str, *, lang: str = "en", step: Optional[int] = None) -> str:
    """A run of the history as a file (Run history's download, `python -m rag_debugger.run_to_html`)."""
    return rag_report(replay_session(history, run_id), start=step, lang=lang)


def graph_header(session: Any) -> str:
    """A Your-graph run: the graph it ran and its input."""
    spec = esc(str(getattr(session, "spec", "")))
    given = getattr(session, "last_input", None)
    out = [f"<h1><code>{spec}</code></h1>"]
    if given is not None:
        text = json.dumps(given, ensure_ascii=False, default=str)
        out.append('<p class="rdr-meta">' + esc(_("Input: {input}").format(input=text[:2000])) + "</p>")
    return "".join(out)


def graph_report(session: Any, *, start: Optional[int] = None, lang: str = "en",
                 note: Optional[Callable[[], str]] = None, as_data: Optional[bool] = None) -> str:
    """A Your-graph session (live or replayed) as a file, without the RAG panels. `note`: a sentence for the
    header, in the language being drawn (why the drawing is the recording's, for a graph not imported)."""
    from rag_debugger.views.graph_parts import graph_parts

    def header() -> str:
        extra = f'<p class="rdr-meta">{esc(note())}</p>' if note is not None else ""
        return graph_header(session) + extra

    return report_html(session, start=start, lang=lang, parts=graph_parts(session), title=str(getattr(session, "spec", "")),
                       header=header, as_data=as_data)
