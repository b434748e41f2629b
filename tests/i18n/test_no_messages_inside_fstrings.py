"""A message written inside an f-string's braces (`f"<b>{_('Timeline')}</b>"`) is invisible to the
catalogue: on Python 3.11 the tokenizer hands babel's extractor the whole f-string as one string, so
`python -m rag.i18n update` never adds the message and the page shows it in English. Write it outside
the f-string (`"<b>" + _("Timeline") + "</b>"`, or a variable first)."""
from __future__ import annotations

import io
import re
import tokenize

from rag.i18n.catalog import ROOT, _source_files

_LITERAL_CALL = re.compile(r"\b(?:_|gettext|ngettext|N_)\(\s*[rbuRBU]*['\"]")
_FSTRING = re.compile(r"^[rbuRBU]*[fF]")


def messages_inside_fstrings(source: str) -> list[tuple[int, str]]:
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.STRING and _FSTRING.match(tok.string) and _LITERAL_CALL.search(tok.string):
            found.append((tok.start[0], tok.string[:80]))
    return found


def test_the_check_sees_a_message_inside_an_fstring():
    assert messages_inside_fstrings("x = f\"<b>{_('Timeline')}</b>\"\n")
    assert not messages_inside_fstrings("x = '<b>' + _('Timeline') + f'</b>{y}'\n")
    assert not messages_inside_fstrings("x = f'<th>{_(c)}</th>'\n")  # a marked constant: extracted where marked


def test_no_message_is_written_inside_an_fstring():
    found = []
    for path in _source_files():
        for line, text in messages_inside_fstrings(path.read_text(encoding="utf-8")):
            found.append(f"{path.relative_to(ROOT)}:{line}: {text}")
    assert found == []
