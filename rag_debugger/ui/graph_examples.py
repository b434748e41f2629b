"""The bundled example graphs (`examples/`) and their input files, picked on the Your graph page.

Read from the folder's file names and text, never by importing: listing them costs nothing and imports no
code. A graph is a module that assigns `graph = ...`; an input file is any `.json` file beside them
(`approval_input.json` goes with `approval`). Picking one loads it through the page's allow-list as if typed.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Optional

import streamlit as st

from rag.i18n import _
from rag_debugger.debugger.errors import DebuggerUserError
from rag_debugger.debugger.loading import load_saved_input
from rag_debugger.ui.streamlit_state import flash, friendly

EXAMPLE_KEY = "yg_example"
EXAMPLE_INPUT_KEY = "yg_example_input"
PICKED_INPUT_KEY = "yg_example_input_data"
"""(spec, the input file's data) of the example input picked last."""
NO_INPUT = "—"
"""The input picker's "no file" choice: a dash, the same in every language (a translated label as a widget's
option would change the option when the language does)."""
_GRAPH_LINE = re.compile(r"^graph\s*=", re.M)


EXAMPLES_PACKAGE = "rag_debugger.examples"


def bundled_examples(folder: Path, package: str = EXAMPLES_PACKAGE) -> list[str]:
    """`<package>.<module>:graph` for each module of `folder` (the package's folder) that assigns `graph`, sorted."""
    found = []
    for path in sorted(folder.glob("*.py")):
        if path.stem.startswith("_"):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            continue
        if _GRAPH_LINE.search(text):
            found.append(f"{package}.{path.stem}:graph")
    return found


def input_files(folder: Path) -> list[str]:
    """The `.json` input files of `folder`, by name."""
    return sorted(p.name for p in folder.glob("*.json"))


def input_for(spec: str, files: list[str]) -> str:
    """The input file that goes with example `spec` (`<module>_input.json`), else none."""
    stem = spec.split(":", 1)[0].rsplit(".", 1)[-1]
    wanted = f"{stem}_input.json"
    return wanted if wanted in files else NO_INPUT


def picked_input(spec: str) -> Optional[dict]:
    """The data of the example input picked for `spec`, if one was."""
    held = st.session_state.get(PICKED_INPUT_KEY)
    return held[1] if held and held[0] == spec else None


def _read(folder: Path, name: str) -> Optional[dict]:
    if name == NO_INPUT or name not in input_files(folder):  # only a file of the folder, by its listed name
        return None
    try:
        return load_saved_input(str(folder / name))
    except DebuggerUserError as exc:
        flash("warning", friendly(exc))
        return None


def render_example_picker(folder: Path, *, graph_field: str, load: Callable[[], None],
                          forget_form: Callable[[str], None]) -> None:
    """Two pickers: a bundled example graph (loads it) and an input file (fills the form with it)."""
    examples = bundled_examples(folder)
    if not examples:
        return
    files = input_files(folder)

    def on_example() -> None:
        spec = st.session_state.get(EXAMPLE_KEY)
        if not spec:
            return
        st.session_state[graph_field] = spec
        st.session_state[EXAMPLE_INPUT_KEY] = input_for(spec, files)
        _use_input(spec)
        load()

    def _use_input(spec: str) -> None:
        data = _read(folder, st.session_state.get(EXAMPLE_INPUT_KEY) or NO_INPUT)
        st.session_state[PICKED_INPUT_KEY] = (spec, data)
        forget_form(spec)  # the form starts again from the picked file's values

    def on_input() -> None:
        spec = (st.session_state.get(graph_field) or "").strip()
        if spec:
            _use_input(spec)

    c1, c2 = st.columns([5, 5], vertical_alignment="bottom")
    c1.selectbox(_("Bundled examples"), examples, index=None, key=EXAMPLE_KEY, on_change=on_example,
                 placeholder=_("Pick an example graph to load"),
                 help=_("The example graphs that come with the app (the examples folder)"))
    c2.selectbox(_("Input file"), [NO_INPUT, *files], key=EXAMPLE_INPUT_KEY, on_change=on_input,
                 help=_("Fills the input form with a JSON file from the examples folder; — leaves it empty"))


__all__ = ["bundled_examples", "input_files", "input_for", "picked_input", "render_example_picker"]
