"""Graph lint: each finding on a small graph that has exactly that mistake, a clean graph that has
none, the bundled RAG graphs lint clean, and the command line's exit codes."""
from __future__ import annotations

import operator
import sys
import types
from typing import Annotated, Literal, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from rag_debugger.debugger.errors import GraphLoadError
from rag_debugger.debugger.lint import lint_graph, main
from rag_debugger.debugger.loading import load_graph


class S(TypedDict, total=False):
    x: int
    y: int
    items: Annotated[list, operator.add]


def a(state: S) -> dict:
    return {"x": 1}


def b(state: S) -> dict:
    return {"y": 2}


def c(state: S) -> dict:
    return {"x": 3, "y": 4}


def codes(findings) -> list[tuple[str, str]]:
    return [(f.code, f.node) for f in findings]


def builder(*nodes):
    g = StateGraph(S)
    for fn in nodes:
        g.add_node(fn.__name__, fn)
    return g


def test_a_clean_graph_has_no_findings():
    g = builder(a, b)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", END)
    assert lint_graph(g.compile()) == []


def test_a_node_no_edge_reaches_is_unreachable():
    g = builder(a, b, c)
    g.add_edge(START, "a")
    g.add_edge("a", END)
    g.add_edge("c", "b")
    g.add_edge("b", END)
    found = lint_graph(g.compile())
    assert ("unreachable", "c") in codes(found) and ("unreachable", "b") in codes(found)
    assert "never runs" in found[0].message and found[0].fix


def test_a_loop_without_exit_has_no_way_to_end():
    def back(state: S) -> Literal["b"]:
        return "b"

    g = builder(a, b)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_conditional_edges("b", back)
    assert codes(lint_graph(g.compile())) == [("no-way-to-end", "a"), ("no-way-to-end", "b")]


def test_a_router_without_declared_targets_is_named_with_the_fix():
    def route(state: S):
        return "b" if state.get("x") else END

    g = builder(a, b)
    g.add_edge(START, "a")
    g.add_conditional_edges("a", route)
    g.add_edge("b", END)
    found = lint_graph(g.compile())
    assert codes(found) == [("undeclared-targets", "a")]
    assert "Literal" in found[0].fix and "route" in found[0].fix


def test_a_send_to_a_name_that_is_not_a_node():
    def fan(state: S):
        return [Send("workr", {"x": i}) for i in range(2)]

    def worker(state: S) -> dict:
        return {"items": [state.get("x")]}

    g = builder(a, worker)
    g.add_edge(START, "a")
    g.add_conditional_edges("a", fan, ["worker"])
    g.add_edge("worker", END)
    found = lint_graph(g.compile())
    assert codes(found) == [("send-target-unknown", "a")]
    assert "'workr'" in found[0].message and "worker" in found[0].fix


def test_a_state_key_that_is_neither_input_nor_written():
    class In(TypedDict):
        x: int

    g = StateGraph(S, input_schema=In)
    g.add_node("a", a)
    g.add_edge(START, "a")
    g.add_edge("a", END)
    assert codes(lint_graph(g.compile())) == [("unwritten-key", "items"), ("unwritten-key", "y")]


def test_unreadable_writes_make_the_key_check_stay_silent():
    def opaque(state: S) -> dict:
        out = {"y": 1}
        return out

    class In(TypedDict):
        x: int

    g = StateGraph(S, input_schema=In)
    g.add_node("opaque", opaque)
    g.add_edge(START, "opaque")
    g.add_edge("opaque", END)
    assert lint_graph(g.compile()) == []  # it cannot tell, so it says nothing


@pytest.mark.parametrize("spec", ["rag.graph.build:build_rag_graph", "rag.graph.build:build_resume_graph"])
def test_the_bundled_rag_graphs_lint_clean(spec):
    assert lint_graph(load_graph(spec, checkpointer=False)) == []


def _module_with(**attrs) -> str:
    mod = types.ModuleType("lint_probe_mod")
    mod.__dict__.update(attrs)
    sys.modules["lint_probe_mod"] = mod
    return "lint_probe_mod"


def test_load_graph_takes_a_compiled_graph_a_builder_or_a_factory():
    g = builder(a)
    g.add_edge(START, "a")
    g.add_edge("a", END)
    name = _module_with(builder=g, compiled=g.compile(), factory=lambda: g)
    for attr in ("builder", "compiled", "factory"):
        assert list(load_graph(f"{name}:{attr}").get_graph().nodes) == ["__start__", "a", "__end__"]
    assert load_graph(f"{name}:builder").checkpointer is not None  # stepping needs one


@pytest.mark.parametrize("spec, message", [
    ("no_colon", "expected 'package.module:attr'"),
    ("does_not_exist_pkg:g", "could not import"),
    ("lint_probe_mod:missing", "has no attribute"),
    ("lint_probe_mod:number", "expected a compiled graph"),
    ("lint_probe_mod:needs_args", "needs arguments (x)"),
    ("lint_probe_mod:explodes", "raised RuntimeError: boom"),
])
def test_load_graph_says_what_is_wrong(spec, message):
    def explodes():
        raise RuntimeError("boom")

    _module_with(number=42, needs_args=lambda x: x, explodes=explodes)
    with pytest.raises(GraphLoadError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_graph(spec)


def test_command_line_exit_codes(capsys):
    assert main(["rag.graph.build:build_rag_graph"]) == 0
    assert "lints clean" in capsys.readouterr().out

    def route(state: S):
        return END

    g = builder(a)
    g.add_edge(START, "a")
    g.add_conditional_edges("a", route)
    _module_with(bad=g)
    assert main(["lint_probe_mod:bad"]) == 1
    assert "undeclared-targets [a]" in capsys.readouterr().out
    assert main(["nowhere_pkg:graph"]) == 2
    assert "could not import" in capsys.readouterr().err


def _no_exit(state: S) -> dict:
    return {"x": 1}


@pytest.mark.parametrize("spec", [
    "tests.conformance.graphs_states:not_required",        # nodes with no outgoing edge end the run
    "tests.conformance.graphs_control:parallel_join",      # a join of two branches (a waiting edge)
    "tests.conformance.graphs_control:command_destinations",  # reached by Command(goto), destinations=
    "tests.conformance.graphs_control:command_literal",    # reached by Command(goto), Command[Literal[...]]
    "tests.conformance.graphs_control:command_loop",       # a Command loop with END among its targets
    "tests.conformance.graphs_policies:error_handler",     # an error handler is reached by the node it guards
    "tests.conformance.graphs_functional:asks",            # an @entrypoint: its flow is Python, nothing to say
])
def test_no_false_finding_on_graphs_that_end(spec):
    assert lint_graph(load_graph(spec, checkpointer=False)) == []


def test_a_cycle_with_no_way_out_is_still_found():
    g = StateGraph(S)
    g.add_node("ping", _no_exit)
    g.add_node("pong", _no_exit)
    g.add_edge(START, "ping")
    g.add_edge("ping", "pong")
    g.add_edge("pong", "ping")
    assert {(f.code, f.node) for f in lint_graph(g)} == {("no-way-to-end", "ping"), ("no-way-to-end", "pong")}


def _goes_somewhere(state: S):
    from langgraph.types import Command

    return Command(goto="elsewhere")


def test_a_command_with_undeclared_targets_makes_lint_say_nothing_about_reach():
    g = StateGraph(S)
    g.add_node("router", _goes_somewhere)
    g.add_node("elsewhere", a)
    g.add_edge(START, "router")
    g.add_edge("elsewhere", END)
    assert [f.code for f in lint_graph(g)] == []  # "elsewhere never runs" would be a guess, and wrong


POISON = "evil\x1b[2K\rok\u202e\n"


def test_the_command_line_prints_a_poisoned_node_name_as_text(capsys):
    """A node name holding ESC, CR, a bidi override and a newline is shown escaped, on one line per
    finding: it cannot erase a finding or print a fake clean verdict."""
    g = builder(a)
    g.add_edge(START, "a")
    g.add_edge("a", END)
    g.add_node(POISON, b)  # reached by no edge: an `unreachable` finding names it
    g.add_edge(POISON, END)
    _module_with(poisoned=g)
    assert main(["lint_probe_mod:poisoned"]) == 1
    out = capsys.readouterr().out
    assert not any(ch in out.rstrip("\n") for ch in "\x1b\r\u202e"), repr(out)
    assert "evil\\x1b[2K\\rok\\u202e\\n" in out
    assert len(out.rstrip("\n").splitlines()) == len(lint_graph(g.compile()))


def test_the_command_line_prints_a_poisoned_graph_name_as_text(capsys):
    assert main([f"nowhere_{POISON}:graph"]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\r" not in err and err.count("\n") == 1 and "\\x1b[2K" in err
