"""The app's words in English and Simplified Chinese.

Every string a user reads is written in English in the code, wrapped in `_()` (or `ngettext()` when it
has a count), and looked up in the active language's gettext catalogue
(`rag/i18n/locales/<lang>/LC_MESSAGES/messages.po`). Strings defined at import time (table headings,
page titles, the trace fields' meanings) are marked with `N_()` and translated where they are shown,
because the language is only known per request.

Which language is active: `use_language()` (a context variable, for a service that embeds the engine),
else the source the app installs with `set_language_source()` (the browser session's choice), else
English. Catalogues are read once per process. `python -m rag.i18n update` refreshes both catalogues
from the code; `python -m rag.i18n check` lists what is missing (the test suite runs the same check).
"""
from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator

from rag.i18n.languages import DEFAULT_LANGUAGE, LANGUAGES

_explicit: contextvars.ContextVar[str | None] = contextvars.ContextVar("rag_language", default=None)
_source: Callable[[], str | None] | None = None
_missing: set[tuple[str, str]] = set()


def N_(text: str) -> str:
    """Marks `text` for the catalogue without translating it (import-time constants)."""
    return text


def normalize(code: object) -> str | None:
    """A language tag (`zh-CN`, `zh_Hans`, `en-US`, `ZH`) as one of LANGUAGES, or None."""
    if not isinstance(code, str):
        return None
    base = code.strip().replace("_", "-").split("-")[0].lower()
    return base if base in LANGUAGES else None


def negotiate(accept_language: str | None) -> str | None:
    """The best of LANGUAGES for an `Accept-Language` header (quality values honoured), or None."""
    if not accept_language:
        return None
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept_language.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        lang = normalize(tag)
        if lang and quality > 0:
            ranked.append((-quality, index, lang))
    return min(ranked)[2] if ranked else None


def set_language_source(source: Callable[[], str | None] | None) -> None:
    """Where the active language comes from when `use_language` is not in effect (the app: the browser
    session's choice). Called on every lookup, so it must be cheap and never raise."""
    global _source
    _source = source


@contextlib.contextmanager
def use_language(lang: str) -> Iterator[None]:
    """Run a block in `lang` (for example one request of a service that embeds the engine)."""
    token = _explicit.set(normalize(lang) or DEFAULT_LANGUAGE)
    try:
        yield
    finally:
        _explicit.reset(token)


def current_language() -> str:
    lang = _explicit.get()
    if lang:
        return lang
    if _source is not None:
        try:
            lang = normalize(_source())
        except Exception:  # noqa: BLE001 - a broken source must not break every string
            lang = None
    return lang or DEFAULT_LANGUAGE


def gettext(message: str) -> str:
    """`message` in the active language; the English text when the catalogue has no entry."""
    lang = current_language()
    from rag.i18n.catalog import translations

    found = translations(lang).lookup(message)
    if found is None:
        if lang != DEFAULT_LANGUAGE:
            _missing.add((lang, message))
        return message
    return found


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a counted message for `n` in the active language (Chinese has one form)."""
    lang = current_language()
    from rag.i18n.catalog import translations

    found = translations(lang).lookup_plural(singular, n)
    if found is None:
        if lang != DEFAULT_LANGUAGE:
            _missing.add((lang, singular))
        return singular if n == 1 else plural
    return found


_ = gettext


def missing_keys() -> set[tuple[str, str]]:
    """(language, message) pairs looked up in this process that had no translation: the test suite's
    way of seeing a page show a string the catalogue lacks."""
    return set(_missing)


def forget_missing_keys() -> None:
    _missing.clear()


__all__ = ["N_", "_", "current_language", "forget_missing_keys", "gettext",
           "missing_keys", "negotiate", "ngettext", "normalize", "set_language_source",
           "use_language"]
