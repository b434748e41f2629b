"""Finding English UI text on a page that should be in Chinese.

The catalogue knows every English string the app can show; a page in Chinese must show none of them
(data, such as questions, chunks, node and field names, stays as it is). Two checks:
- the texts of controls (buttons, labels, tabs, headings, table headers) must not equal an English
  message, however short;
- the page's text must not contain an English phrase of two words or more from a message (the parts
  between `{placeholders}` and markup), which catches captions and messages without tripping on a
  single word that is also data (a route named "answer").
"""
from __future__ import annotations

import re
from functools import lru_cache

_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_MARKUP = re.compile(r"[*`_#>|\[\]()]+|:material/[a-z_]+:")
_WORDS = re.compile(r"[A-Za-z][A-Za-z'’-]*")


@lru_cache(maxsize=1)
def _messages() -> dict[str, str]:
    """English message -> its Chinese translation, for messages whose Chinese differs."""
    from rag.i18n.catalog import read_catalog

    out = {}
    for entry in read_catalog("zh"):
        if not entry.id:
            continue
        ids = entry.id if isinstance(entry.id, tuple) else (entry.id,)
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        for english in ids:
            if strings and strings[0] and strings[0] != english:
                out[english] = strings[0]
    return out


@lru_cache(maxsize=1)
def _phrases() -> tuple[str, ...]:
    found = set()
    for english in _messages():
        for part in _PLACEHOLDER.split(re.sub(r"`[^`]*`", " ", english)):  # code stays code in every language
            for chunk in re.split(r"[\n.:;!?,()\[\]·—–/]+", _MARKUP.sub(" ", part)):
                chunk = " ".join(chunk.split())
                if len(_WORDS.findall(chunk)) >= 2 and len(chunk) >= 8:
                    found.add(chunk)
    return tuple(sorted(found, key=len, reverse=True))


def english_controls(texts: list[str]) -> list[str]:
    """The control texts that are an English message (untranslated)."""
    english = _messages()
    out = []
    for text in texts:
        plain = " ".join(_MARKUP.sub(" ", text).split())
        if plain and (text.strip() in english or plain in english):
            out.append(text.strip())
    return out


def english_phrases(text: str, *, allowed: tuple[str, ...] = ()) -> list[str]:
    """English phrases of the app's messages found in `text` (page text), minus `allowed` (data)."""
    flat = " ".join(text.split())
    return [phrase for phrase in _phrases()
            if phrase in flat and not any(phrase in a for a in allowed)]


#: The page's control texts, for `english_controls`.
CONTROL_TEXTS_JS = """() => Array.from(document.querySelectorAll(
  'button, label, [role="tab"], summary, h1, h2, h3, th, [data-testid="stExpanderHeader"]'))
  .filter((el) => el.offsetParent !== null)
  .map((el) => el.innerText || '').filter((t) => t.trim())"""


def english_on_page(page, *, allowed: tuple[str, ...] = ()) -> list[str]:
    """Everything on a Playwright page that is still in English (see the module docstring)."""
    controls = english_controls(page.evaluate(CONTROL_TEXTS_JS))
    phrases = english_phrases(page.locator("body").inner_text(), allowed=allowed)
    return sorted(set(controls) | set(phrases))
