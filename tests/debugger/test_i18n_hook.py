"""The debugger core's words go through the translator an app installs (`rag_debugger.debugger.i18n.install`), and are
English when none is installed (the core never imports the app's catalogues)."""
from __future__ import annotations

import subprocess
import sys

import pytest

import rag_debugger.debugger.i18n as hook
from rag_debugger.debugger.errors import GraphLoadError
from rag_debugger.debugger.input_form import FormField, InputFormError, parse_form, type_label
from rag_debugger.debugger.interrupts import ask_for
from rag_debugger.debugger.loading import resolve
from rag_debugger.debugger.replay import ReplayStepper


@pytest.fixture
def shouting():
    """A fake translator: every message wrapped in «», plural forms chosen as English does."""
    saved = hook._gettext, hook._ngettext
    hook.install(lambda m: f"«{m}»", lambda s, p, n: f"«{s if n == 1 else p}»")
    try:
        yield
    finally:
        hook.install(*saved)


def test_a_load_error_goes_through_the_installed_translator(shouting):
    with pytest.raises(GraphLoadError) as raised:
        resolve("no_colon_here")
    # the message is translated, then its placeholder filled with the data (the spec stays as typed)
    assert str(raised.value) == "«expected 'package.module:attr', got 'no_colon_here'»"


def test_form_errors_and_labels_go_through_it(shouting):
    fields = [FormField(name="count", kind="int", required=True, type_name="int"),
              FormField(name="ratio", kind="float", type_name="float (optional)", optional=True)]
    with pytest.raises(InputFormError) as raised:
        parse_form(fields, {"count": None})
    assert str(raised.value) == "««the input does not fit the graph's schema»: «count: required»»"
    assert type_label(fields[1]) == "«float (optional)»"
    assert ask_for(["yes", "no"]).question == "«Pick one:»"


def test_a_plural_stepper_error_goes_through_ngettext(shouting):
    replay = ReplayStepper([{"checkpoint_id": "a", "next": ["n"]}, {"checkpoint_id": "b", "parent_checkpoint_id": "a"}])
    with pytest.raises(Exception) as raised:
        replay.state_at(5)
    assert str(raised.value) == "«no step 5: the recording has 1 step»"


def test_without_an_installed_translator_the_core_speaks_english():
    code = ("from rag_debugger.debugger.loading import resolve\n"
            "from rag_debugger.debugger.interrupts import ask_for\n"
            "try:\n    resolve('no_colon_here')\nexcept Exception as exc:\n    print(exc)\n"
            "print(ask_for(['a', 'b']).question)\n"
            "import sys; print('rag' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out == ["expected 'package.module:attr', got 'no_colon_here'", "Pick one:", "False"]
