"""What counts as a usable piece of user text (a question, a HITL answer, a snapshot's question).

Pure rules shared by every entry point, so the API, the debugger, the playground, history replays and
resume snapshots accept exactly the same texts. A text is refused before anything runs, because a bad
one fails late and expensively otherwise: a lone surrogate ran the whole graph and then broke the
result's serialisation; an 8,000-character merged question was embedded in full.
"""
from __future__ import annotations

import unicodedata
from typing import Optional

from rag.i18n import N_, _

#: Control characters other than tab / newline / carriage return carry no meaning in a question and
#: break stores downstream (PostgreSQL refuses NUL in text), so they are removed.
_KEEP_CONTROLS = frozenset("\t\n\r")


def _is_invisible(ch: str) -> bool:
    """Whitespace, control and format characters (zero-width space / joiners, BOM, soft hyphen)."""
    return ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf")


def lone_surrogate_at(text: str) -> Optional[int]:
    """Index of the first lone surrogate (text that is not valid Unicode and cannot be encoded), or None."""
    for i, ch in enumerate(text):
        if 0xD800 <= ord(ch) <= 0xDFFF:
            return i
    return None


def clean_text(text: str) -> str:
    """The text without control characters (tab and line breaks kept) and without surrounding blanks."""
    return "".join(ch for ch in text if ch in _KEEP_CONTROLS or unicodedata.category(ch) != "Cc").strip()


#: The names of texts a user types, as a message shows them (other names, such as a snapshot's field
#: names, are data and stay as they are).
TEXT_NAMES = {"question": N_("question"), "HITL answer": N_("HITL answer")}


def is_blank(text: object) -> bool:
    """True for a text that `text_problem` refuses only because it is empty (nothing visible in it)."""
    return (isinstance(text, str) and lone_surrogate_at(text) is None
            and all(_is_invisible(ch) for ch in clean_text(text)))


def text_problem(text: object, *, what: str, limit: int, setting: str = "RAG_MAX_QUESTION_CHARS") -> Optional[str]:
    """Why `text` cannot be used, as a sentence for the user in the reader's language, or None when it can
    (after `clean_text`)."""
    name = _(TEXT_NAMES[what]) if what in TEXT_NAMES else what
    if not isinstance(text, str):
        return _("the {what} must be text, got {kind}").format(what=name, kind=type(text).__name__)
    pos = lone_surrogate_at(text)
    if pos is not None:
        return _("the {what} is not valid Unicode text (a lone surrogate at character {position})").format(
            what=name, position=pos + 1)
    cleaned = clean_text(text)
    if all(_is_invisible(ch) for ch in cleaned):
        return _("the {what} is empty").format(what=name)
    if len(cleaned) > limit:
        return _("the {what} has {count} characters; the limit is {limit} ({setting})").format(
            what=name, count=f"{len(cleaned):,}", limit=f"{limit:,}", setting=setting)
    return None
