"""How an interrupt() value is asked (buttons, a typed form, free text), and subgraphs drawn as
clusters."""
from __future__ import annotations

from rag_debugger.debugger.interrupts import ask_for
from rag_debugger.debugger.loading import load_graph
from rag_debugger.debugger.subgraph_view import drawing, members, subgraph_dot, subgraph_names


def test_a_list_of_strings_is_asked_with_one_button_each():
    ask = ask_for(["yes", "no"])
    assert ask.kind == "options" and ask.options == ["yes", "no"]


def test_a_dict_with_options_shows_its_question_and_buttons():
    ask = ask_for({"question": "Send it?", "options": ["approve", "reject"]})
    assert (ask.kind, ask.question, ask.options) == ("options", "Send it?", ["approve", "reject"])


def test_a_dict_with_a_json_schema_is_a_typed_form():
    ask = ask_for({"prompt": "How urgent?", "schema": {"type": "object", "properties": {"p": {"type": "integer"}}}})
    assert ask.kind == "form" and ask.question == "How urgent?" and [f.kind for f in ask.fields] == ["int"]
    assert not ask.bare_value
    bare = ask_for({"question": "A number", "json_schema": {"type": "number"}})
    assert bare.kind == "form" and bare.bare_value


def test_anything_else_is_free_text_with_the_value_shown():
    assert ask_for("What is your name?").kind == "text"
    ask = ask_for({"draft": "hello"})
    assert ask.kind == "text" and '"draft": "hello"' in ask.question
    assert ask_for(["mixed", 1]).kind == "text"  # not a list of strings


def test_a_subgraph_node_is_a_cluster_and_marked_as_one():
    graph = load_graph("rag_debugger.examples.nested:graph")
    assert subgraph_names(graph) == ("research",)
    drawn = drawing(graph)
    assert members(drawn, "research") == ["research:search", "research:summarize"]
    dot = subgraph_dot(graph, drawn, current=["research"], done=["plan"])
    cluster = dot[dot.index('subgraph "cluster_sub_research"'):]
    assert '"research:search";' in cluster and '"research:summarize";' in cluster and '"plan"' not in cluster
    assert '"research:summarize" [label="summarize", style="rounded,filled,bold", fillcolor="#ffb74d"' in dot


def test_a_graph_without_subgraphs_draws_as_before():
    graph = load_graph("rag_debugger.examples.chain:graph")
    assert subgraph_names(graph) == () and "cluster_sub" not in subgraph_dot(graph, drawing(graph))
