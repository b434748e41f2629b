"""A LangGraph project opens as it is: `--config langgraph.json` lists its graphs (file paths become module
names under the project's folders), reads its env file without overriding what is set, and every graph
kind a project may export loads (compiled, builder, factory, config factory, async factory, @entrypoint)."""
from __future__ import annotations

import json
import sys
import textwrap

import pytest

from rag_debugger.debugger.errors import DebuggerUserError, GraphLoadError
from rag_debugger.debugger.loading import load_graph
from rag_debugger.debugger.project_config import apply_project, parse_env, read_project
from rag_debugger.debugger.session import GraphSession
from rag_debugger.launch import parse_launch, with_project

GRAPH = textwrap.dedent('''
    from typing_extensions import TypedDict
    from langgraph.graph import StateGraph, START, END

    class S(TypedDict, total=False):
        x: int

    def inc(state: S) -> dict:
        return {"x": state.get("x", 0) + 1}

    def make(config):
        b = StateGraph(S)
        b.add_node("inc", inc)
        b.add_edge(START, "inc")
        b.add_edge("inc", END)
        return b.compile()

    async def make_async():
        return make({})

    graph = make({})
''')


@pytest.fixture
def project(tmp_path, monkeypatch):
    pkg = tmp_path / "src" / "proj_agent_x"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "graph.py").write_text(GRAPH)
    (tmp_path / "tools_x.py").write_text(GRAPH)
    (tmp_path / ".env").write_text("# keys\nexport PROJ_X_KEY='from-file'\nPROJ_X_SET=file\nPROJ_X_N=1 # n\n")
    config = {"dependencies": [".", "./src"], "env": ".env",
              "graphs": {"agent": "./src/proj_agent_x/graph.py:graph",
                         "factory": {"path": "./src/proj_agent_x/graph.py:make", "description": "x"},
                         "tools": "./tools_x.py:make_async"}}
    path = tmp_path / "langgraph.json"
    path.write_text(json.dumps(config))
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield path
    for name in [m for m in sys.modules if m.startswith(("proj_agent_x", "tools_x"))]:
        del sys.modules[name]


def test_the_graphs_are_module_names_under_the_deepest_folder(project):
    p = read_project(str(project))
    assert p.graphs == {"agent": "proj_agent_x.graph:graph", "factory": "proj_agent_x.graph:make",
                        "tools": "tools_x:make_async"}
    assert p.env == {"PROJ_X_KEY": "from-file", "PROJ_X_SET": "file", "PROJ_X_N": "1"}


def test_the_env_file_does_not_override_what_is_set_and_every_graph_loads(project):
    environ = {"PROJ_X_SET": "exported"}
    p = read_project(str(project))
    apply_project(p, environ)
    assert environ == {"PROJ_X_SET": "exported", "PROJ_X_KEY": "from-file", "PROJ_X_N": "1"}
    for spec in p.graphs.values():  # compiled; a factory taking config; an async factory
        graph = load_graph(spec)
        assert graph.invoke({"x": 1}, {"configurable": {"thread_id": spec}}) == {"x": 2}


def test_launch_with_config_opens_the_first_graph_or_the_one_named(project, monkeypatch):
    for name in ("PROJ_X_KEY", "PROJ_X_SET", "PROJ_X_N"):
        monkeypatch.delenv(name, raising=False)
    opts = with_project(parse_launch(["--config", str(project)], {}))
    assert opts.graph == "proj_agent_x.graph:graph" and [n for n, _ in opts.graphs] == ["agent", "factory", "tools"]
    assert with_project(parse_launch(["--config", str(project), "--graph", "tools"], {})).graph == "tools_x:make_async"
    assert with_project(parse_launch([], {"RAG_DEBUG_CONFIG": str(project)})).graphs == opts.graphs


@pytest.mark.parametrize("content, message", [
    ("{", "not valid JSON"),
    ('{"graphs": {}}', "names no graphs"),
    ('{"graphs": {"a": "./no-such-dir/graph.py:graph"}}', "cannot be imported as a module"),
    ('{"graphs": {"a": "graph.py"}}', "expected ./path/to/file.py:attr"),
    ('{"graphs": {"a": "../outside.py:graph"}}', "outside the project"),
    ('{"graphs": {"a": "./x.py:g"}, "env": "missing.env"}', "could not read the env file"),
])
def test_a_broken_config_says_what_is_wrong(tmp_path, content, message):
    path = tmp_path / "langgraph.json"
    path.write_text(content)
    with pytest.raises(DebuggerUserError, match=message):
        read_project(str(path))
    assert with_project(parse_launch(["--config", str(path)], {})).config_error


def test_parse_env_reads_what_dotenv_files_hold():
    assert parse_env('A=1\nexport B="two words"\n# c=3\nnot a line\nD=x # note\n') == {"A": "1", "B": "two words",
                                                                                      "D": "x"}


def test_a_functional_api_workflow_loads_and_its_tasks_are_steps():
    session = GraphSession.open("tests.conformance.graphs_functional:tasks_in_sequence")
    session.start(4)
    (record,) = session.run_to_end()
    assert sorted(lane.node for lane in record.lanes) == ["double", "label", "tasks_in_sequence"]
    assert session.current.stepper.current_values() == {"doubled": 8, "label": "#8"}  # its return, as fields


def test_a_factory_that_needs_other_arguments_is_refused_by_name():
    with pytest.raises(GraphLoadError, match=r"needs arguments \(x\)"):
        load_graph("tests.conformance.graphs_functional:double.func")


def test_a_project_module_named_like_one_found_first_elsewhere_is_refused(tmp_path, monkeypatch):
    (tmp_path / "json.py").write_text(GRAPH)  # `json` is the standard library's: the project's would not load
    path = tmp_path / "langgraph.json"
    path.write_text(json.dumps({"graphs": {"agent": "./json.py:graph"}}))
    monkeypatch.setattr(sys, "path", list(sys.path))
    with pytest.raises(DebuggerUserError, match="'json' is found elsewhere first"):
        read_project(str(path))


def test_a_remote_graph_is_not_loaded(tmp_path, monkeypatch):
    (tmp_path / "remote_graph_x.py").write_text(
        "from langgraph.pregel.remote import RemoteGraph\ngraph = RemoteGraph('agent', url='http://127.0.0.1:9')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(GraphLoadError, match="is a RemoteGraph"):
        load_graph("remote_graph_x:graph")
