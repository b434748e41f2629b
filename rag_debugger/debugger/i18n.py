"""Where the debugger core gets its words translated.

The core stays independent of any application: by default its labels are English. An app that
translates its UI hands its functions to `install()` once; the core's strings are written as
`_("...")` / `ngettext(...)` so the app's message extractor finds them.
"""
from __future__ import annotations

from typing import Callable

_gettext: Callable[[str], str] = lambda message: message  # noqa: E731
_ngettext: Callable[[str, str, int], str] = lambda singular, plural, n: singular if n == 1 else plural  # noqa: E731


def install(gettext: Callable[[str], str], ngettext: Callable[[str, str, int], str]) -> None:
    global _gettext, _ngettext
    _gettext, _ngettext = gettext, ngettext


def _(message: str) -> str:
    return _gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return _ngettext(singular, plural, n)


def N_(message: str) -> str:
    return message


__all__ = ["N_", "_", "install", "ngettext"]
