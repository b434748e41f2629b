"""The gettext catalogues: reading them once per process, and keeping them in step with the code.

The `.po` files are the source of truth and are read directly (no compiled `.mo` in git). Entries are
sorted by message and carry the files that use them (no line numbers), so a change elsewhere in a
file does not churn the catalogue.
"""
from __future__ import annotations

import datetime
import gettext as _stdlib_gettext
import json
import re
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from rag.i18n.languages import DEFAULT_LANGUAGE, LANGUAGES

LOCALES = Path(__file__).resolve().parent / "locales"
ROOT = Path(__file__).resolve().parents[2]
DOMAIN = "messages"
#: Where user-visible strings are written: the app, its pages and panels, the debugger core, the engine.
SOURCES: tuple[str, ...] = ("app.py", "pages", "rag_debugger", "rag")
SKIP_DIRS = ("rag/data", "rag/i18n/locales")
BABEL_LOCALE = {"en": "en", "zh": "zh_Hans_CN"}
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None}
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_lock = threading.Lock()
#: Fixed header fields: a dated header would change on every `update` and make every branch conflict.
_HEADER: dict[str, Any] = dict(project="rag-debugger", version="1", copyright_holder="the rag-debugger authors",
               header_comment="# The rag-debugger app's words. Refresh with `python -m rag.i18n update`.\n#",
               creation_date=datetime.datetime(2026, 12, 3), revision_date=datetime.datetime(2026, 12, 3),
               last_translator="the rag-debugger authors", msgid_bugs_address="")


def po_path(lang: str) -> Path:
    return LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@dataclass
class Translations:
    """One language's messages: singular ones by text, counted ones by their singular text."""

    messages: dict[str, str] = field(default_factory=dict)
    plurals: dict[str, tuple[str, ...]] = field(default_factory=dict)
    plural_index: Callable[[int], int] = lambda n: int(n != 1)

    def lookup(self, message: str) -> str | None:
        return self.messages.get(message) or None

    def lookup_plural(self, singular: str, n: int) -> str | None:
        forms = self.plurals.get(singular)
        if not forms:
            return None
        index = self.plural_index(n)
        return forms[min(index, len(forms) - 1)] or None


def read_catalog(lang: str):
    from babel.messages.pofile import read_po

    path = po_path(lang)
    with path.open("rb") as handle:
        return read_po(handle, locale=BABEL_LOCALE.get(lang, lang), domain=DOMAIN)


_PO_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"'}
_PO_ESCAPE = re.compile(r'\\([ntr\\"])')
_PLURAL_EXPR = re.compile(r"plural=([^;\n]+)")


def _po_text(line: str) -> str:
    """The text of a quoted .po line (`"…"`), escapes undone as babel undoes them."""
    body = line[line.index('"') + 1:line.rindex('"')]
    return _PO_ESCAPE.sub(lambda m: _PO_ESCAPES[m.group(1)], body) if "\\" in body else body


def read_translations(path: Path) -> Translations | None:
    """The translated entries of a catalogue, read without babel: babel's reader and its import cost ~50 ms
    on every start, before the first paint (issue 41). Reads what `update` (babel) writes: comments and
    flags, `msgid` / `msgid_plural` / `msgstr` / `msgstr[n]` with continued lines; a fuzzy entry or one with
    an empty form is not translated, an obsolete (`#~`) one is skipped. None when the header names no
    plural rule (babel then takes the locale's: `read_catalog`)."""
    messages: dict[str, str] = {}
    plurals: dict[str, tuple[str, ...]] = {}
    header = ""
    entry: dict[str, Any] = {}
    entries: list[dict[str, Any]] = []
    fuzzy = False
    key: Any = None

    def done() -> None:
        nonlocal header, entry, fuzzy, key
        if "id" in entry and entry.get("strings"):
            if entry["id"] == "":
                header = entry["strings"].get(0, "")
            elif not entry["fuzzy"]:
                entries.append(entry)
        entry, fuzzy, key = {}, False, None

    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line:
            done()
        elif line.startswith("#"):
            if entry.get("strings"):
                done()
            if line.startswith("#,") and "fuzzy" in line[2:].replace(",", " ").split():
                fuzzy = True
        elif line.startswith("msgid_plural"):
            entry["plural"], key = _po_text(line), "plural"
        elif line.startswith("msgid"):
            if entry:
                done()
            entry, key = {"id": _po_text(line), "strings": {}, "fuzzy": fuzzy}, "id"
        elif line.startswith("msgstr"):
            index = int(line[line.index("[") + 1:line.index("]")]) if line.startswith("msgstr[") else 0
            entry.setdefault("strings", {})[index] = _po_text(line)
            key = index
        elif line.startswith('"') and key is not None:
            if isinstance(key, int):
                entry["strings"][key] += _po_text(line)
            else:
                entry[key] += _po_text(line)
    done()
    found = _PLURAL_EXPR.search(header)
    if found is None:
        return None
    count = re.search(r"nplurals=(\d+)", header)
    forms_wanted = int(count.group(1)) if count else 2
    for item in entries:
        strings = item["strings"]
        if "plural" in item:
            forms = tuple(strings.get(i, "") for i in range(forms_wanted))
            if item["id"] and all(forms):
                plurals[item["id"]] = forms
        elif item["id"] and strings.get(0):
            messages[item["id"]] = strings[0]
    return Translations(messages=messages, plurals=plurals,
                        plural_index=_stdlib_gettext.c2py(found.group(1).strip()))


@lru_cache(maxsize=None)
def _load(lang: str) -> Translations:
    if lang not in LANGUAGES or not po_path(lang).exists():
        return Translations()
    fast = read_translations(po_path(lang))
    if fast is not None:
        return fast
    catalog = read_catalog(lang)
    out = Translations(plural_index=_stdlib_gettext.c2py(catalog.plural_expr))
    for message in catalog:
        if not _translated(message):
            continue
        if isinstance(message.id, tuple):
            out.plurals[message.id[0]] = _forms(message.string)
        else:
            out.messages[message.id] = message.string
    return out


_loaded: dict[str, Translations] = {}
"""What `_load` gave, read without the lock: every translated string of a page looks its language up."""


def translations(lang: str) -> Translations:
    found = _loaded.get(lang)
    if found is not None:
        return found
    with _lock:  # two sessions' first lookups must not both parse the file
        found = _loaded[lang] = _load(lang)
        return found


def reload() -> None:
    """Forget what was read (tests that edit a catalogue, `update`)."""
    with _lock:
        _loaded.clear()
        _load.cache_clear()


# ---------------------------------------------------------------- keeping the catalogues in step with the code

def _source_files() -> list[Path]:
    files: list[Path] = []
    for name in SOURCES:
        path = ROOT / name
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files += sorted(p for p in path.rglob("*.py")
                            if not any(p.relative_to(ROOT).as_posix().startswith(skip) for skip in SKIP_DIRS))
    return files


def extract():
    """A template catalogue of every marked string in the code (babel's Python extractor)."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_file

    template = Catalog(domain=DOMAIN, project="rag-debugger", fuzzy=False)
    for path in _source_files():
        relative = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.name
        for _lineno, message, comments, context in extract_from_file("python", str(path), keywords=KEYWORDS,
                                                                    comment_tags=("i18n:",)):
            if isinstance(message, tuple) and len(message) == 1:
                message = message[0]
            if not message or (isinstance(message, tuple) and not all(message)):
                continue
            template.add(message, locations=[(relative, None)],  # type: ignore[list-item]  # babel: no line numbers
                         auto_comments=comments, context=context)
    return template


def _key(message_id) -> str:
    """A message's key: its text, or its singular text when it is counted."""
    return message_id[0] if isinstance(message_id, tuple) else message_id


def _forms(string) -> tuple[str, ...]:
    return tuple(string) if isinstance(string, (list, tuple)) else (string,)


def _translated(entry) -> bool:
    """An entry with every form filled in and not marked fuzzy."""
    return bool(entry is not None and entry.id and not entry.fuzzy and all(_forms(entry.string)))


def _as_entry_string(message_id, value, num_plurals: int):
    """`value` (one text, or the forms) shaped for an entry: forms for a counted message, one text otherwise."""
    if isinstance(message_id, tuple):
        return tuple(value) if isinstance(value, (list, tuple)) else tuple([value] * num_plurals)
    return value[0] if isinstance(value, (list, tuple)) else value


def update(fills: dict[str, dict] | None = None, *, overwrite: bool = False) -> tuple[dict[str, int], int]:
    """Rewrite both catalogues from the code: new strings are added (English filled in, Chinese left
    empty to translate), translations of strings still in use are kept, the rest are dropped. The English
    is always the code's (it kept a plural form the code had changed: "{n} chunk(s) embedded"). `fills`
    (language -> {key: translation}) are taken in for entries without a translation (all, `overwrite`).
    Returns each language's count of strings without a translation, and how many `fills` were taken."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    template = extract()
    untranslated: dict[str, int] = {}
    taken = 0
    for lang in LANGUAGES:
        old = read_catalog(lang) if po_path(lang).exists() else None
        given = (fills or {}).get(lang, {})
        new = Catalog(locale=BABEL_LOCALE[lang], domain=DOMAIN, fuzzy=False, **_HEADER, language_team=LANGUAGES[lang])
        for message in template:
            if not message.id:
                continue
            previous = old.get(message.id, message.context) if old is not None else None
            if lang == DEFAULT_LANGUAGE:  # the code's own words: a plural form changed in the code is taken too
                string = message.id
            elif previous is not None and _translated(previous):
                string = previous.string
            else:
                string = ""
            key = _key(message.id)
            if key in given and (overwrite or not _translated(previous)):
                string, taken = given[key], taken + 1
            string = _as_entry_string(message.id, string, new.num_plurals)
            new.add(message.id, string, locations=message.locations, auto_comments=message.auto_comments,
                    context=message.context)
            if not all(_forms(string)):
                untranslated[lang] = untranslated.get(lang, 0) + 1
        po_path(lang).parent.mkdir(parents=True, exist_ok=True)
        with po_path(lang).open("wb") as handle:
            write_po(handle, new, width=0, sort_output=True, include_lineno=False, omit_header=False)
    reload()
    return untranslated, taken


def problems() -> list[str]:
    """What keeps the catalogues from matching the code: a string the code uses that a catalogue lacks
    or leaves untranslated, a translation whose `{placeholders}` differ from the English, a catalogue
    entry no code uses. Empty when all is well."""
    template = extract()
    found: list[str] = []
    for lang in LANGUAGES:
        if not po_path(lang).exists():
            found.append(f"{lang}: no catalogue at {po_path(lang).relative_to(ROOT)}")
            continue
        catalog = read_catalog(lang)
        for message in template:
            if not message.id:
                continue
            entry = catalog.get(message.id, message.context)
            key = _key(message.id)
            if entry is None:
                found.append(f"{lang}: missing {key!r}")
                continue
            if not _translated(entry):
                found.append(f"{lang}: untranslated {key!r}")
                continue
            ids = _forms(message.id)
            if lang == DEFAULT_LANGUAGE and tuple(_forms(entry.string)) != tuple(ids):
                found.append(f"{lang}: the English of {key!r} is not the code's")
                continue
            allowed = set().union(*(set(_PLACEHOLDER.findall(i)) for i in ids))
            for text in _forms(entry.string):
                have = set(_PLACEHOLDER.findall(text))
                if have - allowed or (len(ids) == 1 and have != allowed):
                    found.append(f"{lang}: placeholders of {key!r} differ in {text!r}")
        used = {_key(m.id) for m in template if m.id}
        for entry in catalog:
            key = _key(entry.id)
            if entry.id and key not in used:
                found.append(f"{lang}: unused {key!r}")
    return found


def todo(lang: str = "zh") -> list[str]:
    """The messages (singular text) `lang` has no translation for, in catalogue order."""
    return [_key(entry.id) for entry in read_catalog(lang) if entry.id and not _translated(entry)]


def fill(sources: list[Path], lang: str = "zh", *, overwrite: bool = False) -> int:
    """Take translations into `lang`'s catalogue from JSON files (`{"English": "translation"}`) or other
    `.po` files (another branch's catalogue, when merging), for messages the code uses. Only entries
    without a translation are filled unless `overwrite`. Returns how many were filled."""
    from babel.messages.pofile import read_po

    known: dict[str, Any] = {}  # a message -> its translation (a tuple of forms for a plural)
    for source in sources:
        if source.suffix == ".json":
            known.update(json.loads(source.read_text(encoding="utf-8")))
            continue
        with source.open("rb") as handle:
            known.update({_key(e.id): e.string for e in read_po(handle, locale=BABEL_LOCALE.get(lang, lang))
                          if _translated(e)})
    return update({lang: known}, overwrite=overwrite)[1]
