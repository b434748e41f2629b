"""Which modules the app's first seconds import, beyond what a one-line Streamlit app imports: run as a
script in a fresh interpreter (`python -m tests.support.start_modules`), it prints one JSON object
(tests/house/test_lean_start.py reads it).

Stages, each the modules new since the one-line app (bench/hello_app.py) ran under AppTest:
- `import_app`: `import app` (Streamlit's bare mode: the router is built, no page runs);
- `heading`: the first script run of app.py's default page (the debugger) up to its heading;
- `demo_buttons`: the same run up to its first demo button (time to interactive);
- `first_run`: the whole first script run (what the page imports after its first paint);
- `first_click` (its own run: `python -m tests.support.start_modules first_click`): what a first demo
  click and a Continue to the end import once the warm-up that follows the first paint has finished
  (nothing, when the warm-up covers the first click).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _probe_messages(marks: dict[str, set[str]]) -> None:
    """Note sys.modules when the run sends its first heading and its first demo button."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext

    original = ScriptRunContext.enqueue

    def enqueue(self, msg):  # noqa: ANN001 - Streamlit's ForwardMsg
        element = msg.delta.new_element if msg.HasField("delta") else None
        if element is not None:
            kind = element.WhichOneof("type")
            if kind == "heading":
                marks.setdefault("heading", set(sys.modules))
            elif kind == "button" and "demo_" in element.button.id:
                marks.setdefault("demo_buttons", set(sys.modules))
        return original(self, msg)

    ScriptRunContext.enqueue = enqueue  # type: ignore[method-assign]


def _first_click() -> list[str]:
    import os
    import tempfile
    import threading

    from streamlit.testing.v1 import AppTest

    from rag.demo import load_demo_questions
    from tests.support.apptest import inspector_text, press

    os.environ.update(RAG_MODEL_PROVIDER="offline", RAG_HISTORY_DB=str(Path(tempfile.mkdtemp()) / "history.db"))
    demo = next(d for d in load_demo_questions() if d.expected_route == "answer")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    for thread in threading.enumerate():
        if thread.name == "rag-warm-up":
            thread.join(timeout=300)
    before = set(sys.modules)
    at.button(key=f"demo_{demo.id}").click().run()
    press(at, "continue")
    if at.exception:
        raise SystemExit(f"the first click failed: {at.exception[0].message}")
    if "finished" not in inspector_text(at):
        raise SystemExit("the first demo's Continue did not run to the end")
    return sorted(set(sys.modules) - before)


def main() -> None:
    sys.path.insert(0, str(ROOT))
    stage = sys.argv[1] if len(sys.argv) > 1 else "run"
    from streamlit.testing.v1 import AppTest

    AppTest.from_file(str(ROOT / "bench" / "hello_app.py"), default_timeout=60).run()
    base = set(sys.modules)
    out: dict[str, list[str]] = {}
    if stage == "first_click":
        out["first_click"] = _first_click()
    elif stage == "import_app":
        import app  # noqa: F401

        out["import_app"] = sorted(set(sys.modules) - base)
    else:
        marks: dict[str, set[str]] = {}
        _probe_messages(marks)
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
        if at.exception:
            raise SystemExit(f"the first script run failed: {at.exception[0].message}")
        for name in ("heading", "demo_buttons"):
            if name not in marks:
                raise SystemExit(f"the first script run drew no {name.replace('_', ' ')}")
            out[name] = sorted(marks[name] - base)
        out["first_run"] = sorted(set(sys.modules) - base)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
