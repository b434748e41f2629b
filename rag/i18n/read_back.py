"""Reading back text the engine wrote in English from a known template, to show it in the reader's language.

Why: some text is made where the reader's language is unknown or must not matter (a progress step is a
protocol boundary; an ingestion runs in a background thread and is shared by every browser watching it),
so it is written in English and stored as it is. A page translates it when it shows it: `TemplateTable`
recognises text made from one of its templates and returns the template in the active language with the
values (names, numbers, errors) left as they were. Text made from no template is shown unchanged.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cached_property

from rag.i18n import _

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _pattern(template: str) -> re.Pattern[str]:
    """The template as a regex: its words literally, each placeholder any text (possibly empty)."""
    parts, last = [], 0
    for m in _PLACEHOLDER.finditer(template):
        parts.append(re.escape(template[last:m.start()]))
        parts.append(f"(?P<{m.group(1)}>.*?)")
        last = m.end()
    parts.append(re.escape(template[last:]))
    return re.compile("".join(parts), re.DOTALL)


class TemplateTable:
    """A set of English templates (marked with `N_`) and how to show text made from them."""

    def __init__(self, templates: Iterable[str], *, values: Callable[[str, str], str] | None = None):
        self.templates = tuple(templates)
        self._values = values
        """(placeholder name, value) -> the value to show: e.g. a stage word that is itself translated."""

    @cached_property
    def _patterns(self) -> tuple[tuple[str, re.Pattern[str]], ...]:
        # most literal text first, so "Complexity: simple (fast path)" is not read as "Complexity: {complexity}"
        ordered = sorted(self.templates, key=lambda t: (-len(_PLACEHOLDER.sub("", t)), t))
        return tuple((t, _pattern(t)) for t in ordered)

    def match(self, text: str) -> tuple[str, dict[str, str]] | None:
        """(template, its values) when `text` was made from one of the templates, else None."""
        for template, pattern in self._patterns:
            found = pattern.fullmatch(text)
            if found:
                return template, found.groupdict()
        return None

    def translate(self, text: object) -> str:
        plain = "" if text is None else str(text)
        found = self.match(plain)
        if found is None:
            return plain
        template, params = found
        if self._values is not None:
            params = {name: self._values(name, value) for name, value in params.items()}
        return _(template).format(**params)


__all__ = ["TemplateTable"]
