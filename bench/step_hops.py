"""How many of our function calls a Step passes through, from the click's handler to LangGraph, on each debugger page.

    python -m bench.step_hops

Why a count and not a time: the issue that split the app from the engine asked that a Step's path "cross `ui/` in
fewer than half of 8 hops"; a deep path is code a reader walks through to learn what a Step does, whatever it costs.
Each page runs under Streamlit's AppTest (offline rules, a fresh history in a temporary folder); the Step is
queued as the inspector's button queues it, once to start the run, then once more under `sys.setprofile`. The
probe stops at the first call into LangGraph's `Pregel.invoke` / `Pregel.stream` (the superstep itself) and reads
the stack back to `take_action` (rag_debugger/ui/panels/controls.py, where the queued click is dispatched): every
frame of ours between them is a hop (closures and the error guard included; LangGraph's, Streamlit's and the
standard library's are not). Printed per page: the hops, how many are in `rag_debugger/ui/`, and the path.

Ends with `step_hops_<page>: N` and `step_hops_ui_<page>: N` lines.
"""
from __future__ import annotations

import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Optional

ROOT = Path(__file__).resolve().parent.parent
OURS = tuple(str(ROOT / name) for name in ("rag" + os.sep, "rag_debugger" + os.sep, "pages" + os.sep, "app.py"))
UI = str(ROOT / "rag_debugger" / "ui") + os.sep
DISPATCH = "take_action"
LANGGRAPH_ENTRIES = {"Pregel.invoke", "Pregel.stream"}


def _ours(filename: str) -> bool:
    return filename.startswith(OURS)


class StepProbe:
    """A profile hook: the path of our frames from the dispatch of a click to the first LangGraph superstep."""

    def __init__(self) -> None:
        self.path: Optional[list[tuple[str, str]]] = None
        self.entry = ""

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        if self.path is not None or event != "call":
            return
        code = frame.f_code
        if f"{os.sep}langgraph{os.sep}" not in code.co_filename or code.co_qualname not in LANGGRAPH_ENTRIES:
            return
        stack = []
        caller = frame.f_back
        while caller is not None:
            stack.append(caller)
            caller = caller.f_back
        stack.reverse()
        starts = [i for i, f in enumerate(stack) if f.f_code.co_name == DISPATCH and _ours(f.f_code.co_filename)]
        if not starts:
            return
        self.path = [(f.f_code.co_filename, f.f_code.co_qualname) for f in stack[starts[-1] + 1:]
                     if _ours(f.f_code.co_filename)]
        self.entry = code.co_qualname


def probed(run: Callable[[], Any]) -> StepProbe:
    """`run()` with the probe on this thread and on any thread started meanwhile."""
    probe = StepProbe()
    threading.setprofile(probe)
    sys.setprofile(probe)
    try:
        run()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    return probe


def _press(at: Any, action: str) -> None:
    from rag_debugger.ui.panels.controls import PENDING_ACTION_KEY

    at.session_state[PENDING_ACTION_KEY] = action
    at.run()
    assert not at.exception, at.exception


def rag_page() -> StepProbe:
    """The RAG debugger: the bundled default, a demo question, the offline rules."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("pages/debugger.py").run()
    at.text_area(key="question").set_value("丹瑾和青棠分别使用什么武器？").run()
    _press(at, "step")
    return probed(lambda: _press(at, "step"))


def graph_page() -> StepProbe:
    """Your graph: the bundled chain example."""
    from streamlit.testing.v1 import AppTest

    os.environ["RAG_DEBUG_GRAPH"] = "rag_debugger.examples.chain:graph"
    try:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
        field = next(w.key for w in at.text_input if w.label == "text · str")
        at.text_input(key=field).input("a b c")
        at.run()
        _press(at, "step")
        return probed(lambda: _press(at, "step"))
    finally:
        del os.environ["RAG_DEBUG_GRAPH"]


def _shown(filename: str, qualname: str) -> str:
    return f"{Path(filename).relative_to(ROOT)}:{qualname}"


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(RAG_MODEL_PROVIDER="offline", RAG_HISTORY_DB=str(Path(tmp) / "history.db"),
                          RAG_PROMPT_DIR=str(Path(tmp) / "prompts"), RAG_CACHE_DIR=str(Path(tmp) / "cache"),
                          RAG_DENSE_ENABLED="false")
        os.chdir(ROOT)
        failed = False
        for name, page in (("rag", rag_page), ("your_graph", graph_page)):
            probe = page()
            if probe.path is None:
                print(f"{name}: the Step reached no LangGraph superstep from {DISPATCH}")
                failed = True
                continue
            in_ui = sum(1 for filename, _ in probe.path if filename.startswith(UI))
            print(f"{name}: {len(probe.path)} hops ({in_ui} in rag_debugger/ui/) to LangGraph's {probe.entry}")
            for filename, qualname in probe.path:
                print("   ", _shown(filename, qualname))
            print(f"step_hops_{name}: {len(probe.path)}")
            print(f"step_hops_ui_{name}: {in_ui}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
