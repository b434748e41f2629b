"""The app reads its catalogues without babel at start (`rag.i18n.catalog.read_translations`, issue 41):
it must give exactly what babel's reader gives, for the bundled catalogues and for every construct
babel writes."""
from __future__ import annotations

import pytest

from rag.i18n import catalog
from rag.i18n.languages import LANGUAGES


def _with_babel(path) -> catalog.Translations:
    """The oracle: babel's reader, kept as the catalogue tools use it."""
    from babel.messages.pofile import read_po

    with path.open("rb") as handle:
        parsed = read_po(handle, locale="en", domain=catalog.DOMAIN)
    out = catalog.Translations(plural_index=catalog._stdlib_gettext.c2py(parsed.plural_expr))
    for message in parsed:
        if catalog._translated(message):
            if isinstance(message.id, tuple):
                out.plurals[message.id[0]] = catalog._forms(message.string)
            else:
                out.messages[message.id] = message.string
    return out


def _same(found: catalog.Translations | None, expected: catalog.Translations) -> None:
    assert found is not None
    assert found.messages == expected.messages
    assert found.plurals == expected.plurals
    assert [found.plural_index(n) for n in range(12)] == [expected.plural_index(n) for n in range(12)]


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_bundled_catalogues_read_as_babel_reads_them(lang):
    path = catalog.po_path(lang)
    _same(catalog.read_translations(path), _with_babel(path))


HEADER = '''msgid ""
msgstr ""
"Language: fr\\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\\n"

'''

CASES = {
    "plain": 'msgid "Run"\nmsgstr "Lancer"\n',
    "escapes": 'msgid "say \\"hi\\"\\n\\tnow \\\\ ok"\nmsgstr "dis \\"salut\\"\\n\\tmaintenant \\\\ ok"\n',
    "continued lines": 'msgid ""\n"Step "\n"once"\nmsgstr ""\n"Un "\n"pas"\n',
    "fuzzy is not translated": '#, fuzzy, python-format\nmsgid "Stop"\nmsgstr "Arrêt"\n',
    "empty is not translated": 'msgid "Stop"\nmsgstr ""\n',
    "plural": 'msgid "{n} step"\nmsgid_plural "{n} steps"\nmsgstr[0] "{n} pas"\nmsgstr[1] "{n} pas (plus)"\n',
    "plural with an empty form": 'msgid "{n} run"\nmsgid_plural "{n} runs"\nmsgstr[0] "{n} course"\nmsgstr[1] ""\n',
    "comments and flags": '#: ui/a.py ui/b.py\n#, python-brace-format\nmsgid "Hi {name}"\nmsgstr "Salut {name}"\n',
    "obsolete": '#~ msgid "Old"\n#~ msgstr "Vieux"\n',
}


@pytest.mark.parametrize("body", CASES.values(), ids=list(CASES))
def test_every_construct_reads_as_babel_reads_it(tmp_path, body):
    path = tmp_path / "messages.po"
    path.write_text(HEADER + body + '\nmsgid "Last"\nmsgstr "Dernier"\n', encoding="utf-8")
    _same(catalog.read_translations(path), _with_babel(path))


def test_a_catalogue_without_a_plural_rule_is_left_to_babel(tmp_path):
    path = tmp_path / "messages.po"
    path.write_text('msgid ""\nmsgstr ""\n"Language: fr\\n"\n\nmsgid "Run"\nmsgstr "Lancer"\n', encoding="utf-8")
    assert catalog.read_translations(path) is None
