"""The first seconds stay lean (issue 41): what `import app`, the first script run before its heading,
and the first script run before its first demo button import, beyond what a one-line Streamlit app
imports, is pinned to the lists below; and once the warm-up that follows the first paint has run, a
first demo click and Continue import nothing more.

Every module imported before the first paint is paid by every start (a new third-party package is
typically 50-300 ms). When a test here fails, either import the new module lazily, inside the function
that needs it, with a comment saying why (most modules are needed only by a later click or another
page), or, if the first paint really needs it, add it to the list with the reason. A module a first
click needs goes into the warm-up (rag/warmup.py RUN_MODULES, or the UI's FIRST_CLICK_MODULES in
rag_debugger/ui/streamlit_state.py). `bench.startup` measures what these lists keep."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tests.support.browser import ROOT

PROJECT = ("app", "rag", "rag_debugger", "pages")
#: Not packages of their own: runtime pieces compiled extensions bring (mypyc, Cython), multiprocessing's
#: alias of the main module, the interpreter's build data.
RUNTIME_PIECES = re.compile(r"(__mypyc$|^_cython_|^cython_runtime$|^_cyutility$|^__mp_main__$|^_sysconfigdata_)")

IMPORT_APP_MODULES = {
    "app", "rag", "rag.graph", "rag.graph.progress_labels", "rag.i18n", "rag.i18n.catalog", "rag.i18n.languages",
    "rag.i18n.read_back", "rag_debugger", "rag_debugger.ui", "rag_debugger.launch", "rag_debugger.ui.navigation",
    "rag_debugger.ui.panels", "rag_debugger.views", "rag_debugger.views.icons",
    "rag_debugger.debugger", "rag_debugger.debugger.html_page",  # the icons escape with it: the standard library only
}
"""`import app`: the router (the page list, its titles in the reader's language)."""
HEADING_MODULES = IMPORT_APP_MODULES | {
    "rag_debugger.debugger", "rag_debugger.debugger.errors", "rag_debugger.debugger.i18n", "rag.errors",
    "rag_debugger.ui.language", "rag_debugger.ui.streamlit_state", "rag_debugger.views.markdown_text",
}
"""Up to the debugger's heading: the menu, the language, the page guard."""
DEMO_BUTTON_MODULES = HEADING_MODULES | {
    "rag.demo", "rag.schemas", "rag.settings", "rag_debugger.ui.panels.breakpoint_picker", "rag_debugger.ui.panels.lazy",
    "rag_debugger.ui.panels.time_travel",
    "rag_debugger.ui.question_row",
}
"""Up to the first demo button: the question row and the demo questions (a pydantic model of their file)."""

IMPORT_APP_PACKAGES = {
    "streamlit": "its own submodules for what the app draws",
}
"""Not babel: the catalogues of the UI's words are read without it (rag.i18n.catalog.read_translations);
the number and date formats load it later, in the warm-up."""
HEADING_PACKAGES = dict(IMPORT_APP_PACKAGES)
DEMO_BUTTON_PACKAGES = {
    **HEADING_PACKAGES,
    "pydantic": "the demo questions' file is read into pydantic models (rag.demo), and the settings (rag.settings)",
    "pydantic_core": "pydantic", "annotated_types": "pydantic", "typing_inspection": "pydantic",
    "pydantic_settings": "rag.demo finds its file under rag.settings.DATA_DIR",
    "dotenv": "pydantic_settings",
}
FIRST_RUN_PACKAGES = {
    **DEMO_BUTTON_PACKAGES,
    "langgraph": "the debugger page draws the workflow's graph and its node list (after the first paint)",
    "langgraph_sdk": "langgraph", "langchain_core": "langgraph", "langchain_protocol": "langchain_core",
    "langsmith": "langchain_core's tracers import it", "opentelemetry": "langsmith imports its SDK when installed",
    "jsonpatch": "langchain_core", "jsonpointer": "langchain_core", "tenacity": "langchain_core",
    "packaging": "langchain_core", "orjson": "langsmith", "requests": "langsmith", "requests_toolbelt": "langsmith",
    "urllib3": "requests", "charset_normalizer": "requests", "idna": "requests", "httpx": "langgraph_sdk",
    "httpx2": "langgraph_sdk", "distro": "langsmith", "zstandard": "langsmith", "uuid_utils": "langsmith",
    "xxhash": "langgraph", "ormsgpack": "langgraph's checkpoint serializer", "cloudpickle": "langgraph",
    "pygments": "httpx's command line module", "websockets": "langgraph_sdk",
    "pandas": "Streamlit's component serializer checks the inspector's data for data frames",
    "pyarrow": "pandas", "numpy": "pandas; Streamlit reads the tab's icon with it", "dateutil": "pandas",
    "six": "dateutil", "PIL": "Streamlit reads the tab's icon with it (after the first paint)",
}


def _stage(*args: str) -> dict[str, list[str]]:
    out = subprocess.run([sys.executable, "-m", "tests.support.start_modules", *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def first_run() -> dict[str, list[str]]:
    return _stage()


def unexpected(loaded: list[str], modules: set[str], packages: dict[str, str] | None) -> list[str]:
    """The modules of this project not in `modules`, and the third-party packages (top-level names) not
    in `packages` (None: any). The standard library is free: it is mostly loaded already."""
    found = set()
    for name in loaded:
        top = name.split(".")[0]
        if top in PROJECT:
            if name not in modules and not name.startswith("pages"):
                found.add(name)
        elif packages is not None and top not in sys.stdlib_module_names and not RUNTIME_PIECES.search(top) \
                and top not in packages:
            found.add(top)
    return sorted(found)


def _advice(when: str, names: list[str], lists: str) -> str:
    return (f"{when} now imports {names}. Every start pays for it before the page can be used: import it "
            f"lazily inside the function that needs it (with a comment why), or, if it is really needed this "
            f"early, add it to {lists} in tests/house/test_lean_start.py with the reason.")


@pytest.mark.parametrize("loaded, modules, packages, expect", [
    (["rag.i18n", "json", "babel.core"], {"rag.i18n"}, {"babel": ""}, []),
    (["rag.i18n", "rag_debugger.ui.debugger_view"], {"rag.i18n"}, {}, ["rag_debugger.ui.debugger_view"]),
    (["langgraph.graph", "langgraph", "pages.debugger"], set(), {"babel": ""}, ["langgraph"]),
    (["81d243bd2c585b0f4821__mypyc", "_cython_3_2_4", "sqlite3"], set(), {}, []),
    (["pandas"], set(), None, []),
])
def test_the_rule_names_new_project_modules_and_new_packages(loaded, modules, packages, expect):
    assert unexpected(loaded, modules, packages) == expect


def test_import_app_loads_only_the_router():
    found = unexpected(_stage("import_app")["import_app"], IMPORT_APP_MODULES, IMPORT_APP_PACKAGES)
    assert not found, _advice("`import app`", found, "IMPORT_APP_MODULES / IMPORT_APP_PACKAGES")


def test_the_debugger_heading_comes_before_anything_heavy(first_run):
    found = unexpected(first_run["heading"], HEADING_MODULES, HEADING_PACKAGES)
    assert not found, _advice("The first script run, before the debugger's heading,", found,
                              "HEADING_MODULES / HEADING_PACKAGES")


def test_the_demo_buttons_come_before_the_engine(first_run):
    found = unexpected(first_run["demo_buttons"], DEMO_BUTTON_MODULES, DEMO_BUTTON_PACKAGES)
    assert not found, _advice("The first script run, before its first demo button,", found,
                              "DEMO_BUTTON_MODULES / DEMO_BUTTON_PACKAGES")


def test_the_first_script_run_brings_no_package_of_a_later_page(first_run):
    """After the first paint the debugger loads LangGraph and its own modules; no model client, no
    evaluation or plotting library, nothing another page needs."""
    found = unexpected(first_run["first_run"], set(), FIRST_RUN_PACKAGES)
    found = [name for name in found if name.split(".")[0] not in PROJECT]
    assert not found, _advice("The first script run", found, "FIRST_RUN_PACKAGES")


def test_after_the_warm_up_a_first_demo_click_and_continue_import_nothing():
    """What a first click needs was loaded by the warm-up while the user read the page."""
    found = [m for m in _stage("first_click")["first_click"] if not RUNTIME_PIECES.search(m.split(".")[0])]
    assert not found, (f"A first demo click and Continue imported {found[:10]} after the warm-up: add them to "
                       "rag/warmup.py RUN_MODULES (the UI's own: FIRST_CLICK_MODULES in rag_debugger/ui/streamlit_state.py), or "
                       "warm what imports them in a warm-up step.")


def test_a_failing_warm_up_step_skips_nothing_else(monkeypatch, caplog):
    """One broken part (a knowledge base that cannot open, an optional module missing) must not leave the
    rest cold: each step and each module is tried on its own, and the failure is logged."""
    import rag.warmup as warmup
    from rag.settings import RagSettings

    ran: list[str] = []

    def broken(settings, checkpointer):
        raise RuntimeError("the knowledge base cannot be opened")

    monkeypatch.setattr(warmup, "STEPS", (broken, lambda settings, checkpointer: ran.append("next step")))
    monkeypatch.setattr(warmup, "RUN_MODULES", ("no_such_module_for_the_warm_up", "rag.answering"))
    warmup.warm_up(RagSettings(RAG_MODEL_PROVIDER="offline"), modules=("rag_debugger.exports.run_file",))
    assert ran == ["next step"]
    assert "rag.answering" in sys.modules and "rag_debugger.exports.run_file" in sys.modules
    assert "the knowledge base cannot be opened" in caplog.text and "no_such_module_for_the_warm_up" in caplog.text


def test_the_warm_up_loads_every_language_s_formats_and_the_model_roles():
    """babel reads a locale's CLDR data on first use (~0.1 s each): the first Continue's progress lines
    format durations; the roles are built once per configuration."""
    from babel import localedata

    import rag.warmup as warmup
    from rag.i18n.catalog import BABEL_LOCALE
    from rag.models import factory
    from rag.settings import RagSettings

    settings = RagSettings(RAG_MODEL_PROVIDER="offline")
    warmup._formats(settings, None)
    warmup._roles(settings, None)
    assert set(BABEL_LOCALE.values()) <= set(localedata._cache)
    assert factory._cache
