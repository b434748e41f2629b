"""A Your-graph run's HTML file draws its plain steps with its own script (rag_debugger/exports/run_file_data.py). Whatever
the script draws must be what the app's functions draw: for several runs (a loop, a `Send` fan-out, an
`interrupt()`, subgraphs, and a graph whose state holds markup, long and multi-line text, floats, huge
whole numbers, nested dicts, replaced lists, removed keys and a failing step), the file written as data and
the file written with every position pre-drawn show the same DOM at every position, in both languages.
Both are opened from disk with every request blocked and counted (none is made)."""
from __future__ import annotations

import operator
from typing import Annotated, Optional, TypedDict

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from bench.compare import loop_graph
from rag_debugger.debugger.session import GraphSession
from rag_debugger.exports.run_file import graph_report
from tests.debugger.test_drawing_keys import finished as run
from tests.support.browser import chromium_page
from tests.ui.test_browser_report import open_file


class Mixed(TypedDict, total=False):
    text: str
    count: int
    ratio: float
    flag: Optional[bool]
    items: list
    meta: dict
    log: Annotated[list, operator.add]
    gone: Optional[str]


def mixed_graph(fail: bool):
    def first(state: Mixed) -> dict:
        """Writes every kind of value once."""
        return {"text": '<b>"hi"</b> & \'x\' <img src=x onerror=alert(1)>', "count": 2 ** 60, "ratio": 1.0,
                "flag": True, "items": [1, 2], "meta": {"k": "v"}, "log": ["one"], "gone": "here"}

    def second(state: Mixed) -> dict:
        return {"text": "long " * 60, "count": 3, "items": [2, 3, 4], "meta": {"k": "w", "z": [1, {"a": None}]},
                "log": ["two\nlines", "<script>alert(2)</script>"], "flag": None, "gone": None}

    def third(state: Mixed) -> dict:
        if fail:
            raise ValueError("boom <b>not bold</b>")
        return {"text": "ok", "ratio": 0.5, "count": -7, "log": ["三"], "flag": False}

    b = StateGraph(Mixed)
    for fn in (first, second, third):
        b.add_node(fn.__name__, fn)
    b.add_edge(START, "first")
    b.add_edge("first", "second")
    b.add_edge("second", "third")
    b.add_edge("third", END)
    return b.compile(checkpointer=InMemorySaver())


SWEEP = """() => {
  const out = [];
  const root = document.querySelector('.rdi-root');
  const rows = document.querySelectorAll('tr[data-travel]').length;
  for (const lang of ['en', 'zh']) {
    document.querySelector(`button[data-lang="${lang}"]`).click();
    for (let i = 0; i < rows; i++) {
      document.querySelector(`tr[data-travel="${i}"]`).click();
      out.push([lang, document.body.dataset.position, root.innerHTML]);
    }
    document.querySelector('tr[data-travel="0"]').click();
    document.querySelector('button.rdi-latest').click();
    out.push([lang, document.body.dataset.position, root.innerHTML]);
  }
  return out;
}"""


def sessions() -> dict[str, GraphSession]:
    return {
        "loop": run("bench.compare:loop_graph", {"n": 0}, loop_graph(5)),
        "mixed": run("tests:mixed", {"text": ""}, mixed_graph(False)),
        "failing": run("tests:failing", {"text": ""}, mixed_graph(True)),
        "fanout": run("rag_debugger.examples.fanout:graph", {"words": ["map", "reduce", "send"]}),
        "nested": run("rag_debugger.examples.nested:graph", {"topic": "tides"}),
        "approval": run("rag_debugger.examples.approval:graph", {"request": "Can I get a refund for order 42?"},
                        answers=("approve", {"priority": 3})),
    }


@pytest.fixture(scope="module")
def runs():
    return sessions()


@pytest.mark.parametrize("name", ["loop", "mixed", "failing", "fanout", "nested", "approval"])
def test_the_script_draws_every_position_as_the_app_does(tmp_path, runs, name):
    session = runs[name]
    assert len(session.all_steps()) >= 3
    drawn = tmp_path / "data.html"
    drawn.write_text(graph_report(session, start=1), encoding="utf-8")
    pre = tmp_path / "pre.html"
    pre.write_text(graph_report(session, start=1, as_data=False), encoding="utf-8")
    assert '"mode":"data"' in drawn.read_text(encoding="utf-8")
    assert '"mode":"data"' not in pre.read_text(encoding="utf-8")
    with chromium_page() as page:
        asked = open_file(page, drawn)
        assert page.evaluate("document.body.dataset.position") == "1"
        from_data = page.evaluate(SWEEP)
        assert asked == [drawn.as_uri()]
        assert page.evaluate("window.__x === undefined && !document.querySelector('.rdi-root script')")
    with chromium_page() as page:
        open_file(page, pre)
        from_app = page.evaluate(SWEEP)
    assert len(from_data) == len(from_app) == 2 * (len(session.all_steps()) + 1)
    for got, want in zip(from_data, from_app, strict=True):
        assert got[:2] == want[:2]
        if got[2] != want[2]:  # not `==` in the assert: pytest's diff of two long texts takes minutes
            at = next(i for i, (a, b) in enumerate(zip(got[2] + "\0", want[2] + "\1", strict=False)) if a != b)
            pytest.fail(f"{name}: position {got[1]} in {got[0]} is drawn differently at {at}:\n"
                        f"script: {got[2][max(0, at - 300):at + 300]}\napp:    {want[2][max(0, at - 300):at + 300]}")
