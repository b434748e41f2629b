"""The wheel, as a LangGraph user installs it into their own project: a fresh virtual environment with only
`pip install <the wheel>` (and another langgraph patch release than requirements.txt pins), then
`rag-debugger --graph my_pkg.agent:graph` in a folder outside this repository, loaded in Chromium."""
from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support.browser import chromium_page, free_port

ROOT = Path(__file__).resolve().parents[2]
OTHER_LANGGRAPH = "langgraph==1.2.23"  # requirements.txt pins 1.2.24

AGENT = '''
from typing import TypedDict
from langgraph.graph import END, START, StateGraph


class State(TypedDict):
    text: str


def shout_it(state: State) -> dict:
    return {"text": state["text"].upper()}


def add_bang(state: State) -> dict:
    return {"text": state["text"] + "!"}


builder = StateGraph(State)
builder.add_node("shout_it", shout_it)
builder.add_node("add_bang", add_bang)
builder.add_edge(START, "shout_it")
builder.add_edge("shout_it", "add_bang")
builder.add_edge("add_bang", END)
graph = builder.compile()
'''


#: The node names of the graph picture the page shows (an SVG laid out on the server, shown as an image).
NODE_NAMES = """() => {
  const src = document.querySelector('.rdi-graph img').src;
  const svg = new DOMParser().parseFromString(atob(src.split(',')[1]), 'image/svg+xml');
  return [...svg.querySelectorAll('g.node > title')].map(t => t.textContent);
}"""


def _run(cmd: list[str], **kw) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert done.returncode == 0, f"{' '.join(cmd)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv holding only the wheel and its dependencies; returns its `rag-debugger` command."""
    work = tmp_path_factory.mktemp("wheel")
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work / "dist"), str(ROOT)])
    wheel = next((work / "dist").glob("rag_debugger-*.whl"))
    _run([sys.executable, "-m", "venv", str(work / "venv")])
    pip = work / "venv" / "bin" / "pip"
    _run([str(pip), "install", "-q", "--disable-pip-version-check", str(wheel), OTHER_LANGGRAPH])
    return work / "venv" / "bin" / "rag-debugger"


def test_the_installed_command_opens_an_outside_graph_in_chromium(installed, tmp_path):
    project = tmp_path / "project"
    (project / "my_pkg").mkdir(parents=True)
    (project / "my_pkg" / "__init__.py").write_text("")
    (project / "my_pkg" / "agent.py").write_text(AGENT)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    proc = subprocess.Popen([str(installed), "--graph", "my_pkg.agent:graph", "--port", str(port)], cwd=project,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=1) as r:
                    if r.read().strip() == b"ok":
                        break
            except OSError:
                pass
            assert proc.poll() is None, proc.stdout.read().decode(errors="replace")[-3000:]
            assert time.monotonic() < deadline, "rag-debugger did not become healthy"
            time.sleep(0.3)
        with chromium_page() as page:
            page.goto(url)
            page.get_by_role("heading", name="Your graph").wait_for(timeout=60_000)
            page.locator(".rdi-graph img").first.wait_for(timeout=60_000)
            names = page.evaluate(NODE_NAMES)
            assert {"shout_it", "add_bang"} <= set(names), names
            assert page.get_by_text("Traceback").count() == 0
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    versions = subprocess.run([str(installed.parent / "python"), "-c",
                               "import importlib.metadata as m; print(m.version('langgraph'))"],
                              capture_output=True, text=True).stdout.strip()
    assert versions == "1.2.23"
