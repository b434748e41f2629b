"""Two runs of a graph of your own compared (issue 27): recorded the way the Your graph page records them,
read back from the history or from export files; the cause said in generic terms (a different input, a
what-if fork's edited field, a different value at a node, different graphs); the blocks show the per-step
state diff and no RAG view; `python -m rag.runs.diff` on ids and files with its exit status; and a run's HTML
file, whose graph is imported only when the allow-list lets it (else drawn from the recording)."""
from __future__ import annotations

import json
import sys

import pytest

from rag.runs.diff import main as diff_main
from rag.runs.divergence import CompareError, classify_generic, compare_sides, load_side, side_from_history
from rag.runs.export import export_run
from rag.runs.graph_runs import GraphRunRecorder, graph_document
from rag.runs.history import RunHistory
from rag_debugger.debugger.alignment import Divergence
from rag_debugger.debugger.allowlist import GraphPolicy
from rag_debugger.debugger.session import GraphSession


@pytest.fixture
def history(tmp_path):
    with RunHistory(tmp_path / "history.db") as h:
        yield h


def run(history, spec: str, inp: dict) -> GraphSession:
    s = GraphSession.open(spec, hooks=[GraphRunRecorder(history)])
    s.start(inp)
    s.run_to_end()
    return s


@pytest.fixture
def runs(history) -> dict[str, str]:
    """Chain runs with two inputs, the same input again, a what-if fork of the first, and a fan-out run."""
    s = run(history, "rag_debugger.examples.chain:graph", {"text": "a b"})
    ids = {"ab": s.current.run_id}
    ids["ab_fork"] = s.fork(0, "text", "x").run_id
    ids["ab_again"] = run(history, "rag_debugger.examples.chain:graph", {"text": "a b"}).current.run_id
    ids["abc"] = run(history, "rag_debugger.examples.chain:graph", {"text": "a b c"}).current.run_id
    ids["fanout"] = run(history, "rag_debugger.examples.fanout:graph", {"words": ["a", "bb"]}).current.run_id
    return ids


def div(step: int, kind: str = "differs", from_input: bool = False) -> Divergence:
    return Divergence(row=step, step=step, node="n", field="f", kind=kind, from_input=from_input)


@pytest.mark.parametrize("first, graphs_differ, edits, cause, edit", [
    (None, False, [], "none", None),
    (None, False, [(1, "text")], "none", None),
    (div(1), True, [], "different_graphs", None),
    (div(1, from_input=True), False, [], "graph_input", None),
    (div(1, from_input=True), False, [(1, "text")], "graph_input", None),  # an edit after step 1 is not step 1's
    (div(2), False, [(1, "text")], "edited", (1, "text")),
    (div(2), False, [(2, "text")], "value", None),
    (div(3, kind="only_a"), False, [], "path", None),
    (div(3, kind="only_b"), False, [], "path", None),
    (div(3), False, [], "value", None),
])
def test_the_cause_of_a_graph_runs_divergence_is_said_in_generic_terms(first, graphs_differ, edits, cause, edit):
    assert classify_generic(first, graphs_differ, edits) == (cause, edit)


@pytest.mark.parametrize("a, b, where, cause, final", [
    ("ab", "ab_again", None, "none", ()),
    ("ab", "abc", (1, "clean", "text"), "graph_input", ("shouted", "text", "words")),
    ("ab", "ab_fork", (2, "count", "words"), "edited", ("shouted", "text", "words")),
    ("ab", "fanout", (1, "clean", None), "different_graphs", ("log", "shouted", "sizes", "text", "total", "words")),
])
def test_two_recorded_graph_runs_diverge_where_and_why(history, runs, a, b, where, cause, final):
    rc = compare_sides(side_from_history(history, runs[a]), side_from_history(history, runs[b]))
    first = rc.comparison.first
    assert (None if first is None else (first.step, first.node, first.field)) == where
    assert rc.generic and rc.cause == cause and rc.final_fields == final
    assert rc.same_outcome == (not final) and rc.settings == [] and rc.route == (None, None)


def test_a_fork_names_its_edit_and_different_graphs_are_named(history, runs):
    rc = compare_sides(side_from_history(history, runs["ab"]), side_from_history(history, runs["ab_fork"]))
    assert rc.edit == (1, "text") and [r.kind for r in rc.comparison.rows] == ["same", "differs", "differs"]
    rc = compare_sides(side_from_history(history, runs["ab"]), side_from_history(history, runs["fanout"]))
    assert rc.graphs == ("rag_debugger.examples.chain:graph", "rag_debugger.examples.fanout:graph")
    assert {r.kind for r in rc.comparison.rows} == {"only_a", "only_b"}


def test_the_blocks_show_the_state_diff_per_step_and_no_rag_view(history, runs):
    from rag_debugger.exports.compare_file import comparison_report
    from rag_debugger.views.compare_content import comparison_blocks

    side_a, side_b = side_from_history(history, runs["ab"]), side_from_history(history, runs["ab_fork"])
    rc = compare_sides(side_a, side_b)
    blocks = comparison_blocks(rc, side_a, side_b, show_all=False)
    texts = [b.text for b in blocks]
    assert "An edited field: a what-if fork set `text` after step 1, and the runs differ from there." in texts
    assert not any(t.startswith(("Route:", "Settings that differ", "Answer")) for t in texts)
    folds = {b.text: b for b in blocks if b.kind == "fold"}
    assert list(folds) == ["Step 2 / 2: count (differs)", "Step 3 / 3: shout (differs)"]
    count = folds["Step 2 / 2: count (differs)"]
    assert count.open_ and count.children[0].rows == ({"field": "words", "A": "2", "B": "1"},)
    final = blocks[[b.text for b in blocks].index("Final state, A → B") + 1]
    assert {"field": "text", "A": "a b", "B": "x"} in final.rows
    everything = comparison_blocks(rc, side_a, side_b, show_all=True)
    assert "Step 1 / 1: clean (same)" in [b.text for b in everything if b.kind == "fold"]
    page = comparison_report(rc, side_a, side_b)
    assert "Retrieved chunks" not in page and "count (differs)" in page


def test_a_run_still_in_progress_or_never_ended_is_refused_plainly(history):
    s = GraphSession.open("rag_debugger.examples.chain:graph", hooks=[GraphRunRecorder(history)])
    s.start({"text": "a"})
    with pytest.raises(CompareError, match="still in progress"):
        side_from_history(history, s.current.run_id)
    gone = history.record_start("{}", kind="graph", graph_spec="rag_debugger.examples.chain:graph")
    history.record_finish(gone.run_id, status="done")  # its document never written
    with pytest.raises(CompareError, match="no recording"):
        side_from_history(history, gone.run_id)


def test_the_cli_compares_graph_runs_by_id_and_by_file_with_its_exit_status(history, runs, tmp_path, monkeypatch,
                                                                          capsys):
    monkeypatch.setenv("RAG_HISTORY_DB", str(history.location))
    monkeypatch.delenv("RAG_HISTORY_URL", raising=False)
    assert diff_main([runs["ab"], runs["ab_again"]]) == 0
    assert capsys.readouterr().out.splitlines()[:3] == ["first_divergence: none", "cause: none", "final state: same"]
    assert diff_main([runs["ab"], runs["ab_fork"]]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[:4] == ["first_divergence: step=2 node=count field=words", "cause: edited", "edited: step=1 field=text",
                       "final state: differs (shouted, text, words)"]
    assert "step 3 shout: shouted" in out
    files = {}
    for name in ("ab", "fanout"):
        files[name] = tmp_path / f"{name}.json"
        files[name].write_text(json.dumps(export_run(history, runs[name])), encoding="utf-8")
    assert diff_main([str(files["ab"]), str(files["fanout"])]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[1:3] == ["cause: different_graphs",
                        "graphs: rag_debugger.examples.chain:graph -> rag_debugger.examples.fanout:graph"]
    assert "step B2 measure: only in B" in out
    assert diff_main([str(files["ab"]), runs["ab_again"]]) == 0  # a file and an id
    capsys.readouterr()
    assert diff_main([runs["ab"], "graph-no-such-run"]) == 2
    assert "no run with this id" in capsys.readouterr().err
    tampered = json.loads(files["ab"].read_text(encoding="utf-8"))
    tampered["input"] = {"text": "changed"}
    files["ab"].write_text(json.dumps(tampered), encoding="utf-8")
    assert diff_main([str(files["ab"]), runs["ab"]]) == 2
    assert "checksum" in capsys.readouterr().err


def test_a_file_holding_a_graph_run_loads_as_a_side(history, runs, tmp_path):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(export_run(history, runs["abc"])), encoding="utf-8")
    side = load_side(str(path))
    assert side.main.run.graph_spec == "rag_debugger.examples.chain:graph" and len(side.segments()[0].steps) == 3


POLICY = GraphPolicy.from_text(None, ["rag_debugger.examples.chain", "rag_debugger.examples.fanout"], None)


def test_a_graph_runs_file_draws_its_allowed_graph(history, runs):
    from rag_debugger.exports.graph_run_file import graph_run_report, graph_run_session

    session, note = graph_run_session(history, runs["fanout"], POLICY)
    assert note is None and len(session.all_steps()) == 3
    assert session.node_docs()["measure"].startswith("Measures one word")  # the real graph: its docstrings
    page = graph_run_report(history, runs["fanout"], POLICY, step=0)
    assert "rag_debugger.examples.fanout:graph" in page and "Retrieved chunks" not in page


def test_a_graph_the_allow_list_refuses_is_never_imported_and_the_file_draws_the_recording(history):
    sys.modules.pop("this", None)
    s = GraphSession.open("rag_debugger.examples.chain:graph")
    s.start({"text": "a b"})
    s.run_to_end()
    checkpoints, head = s.recording()
    info = history.record_start("{}", kind="graph", graph_spec="this:s")  # an imported file can name anything
    history.record_finish(info.run_id, status="done")
    history.record_document(info.run_id, graph_document(info, checkpoints, head, {"text": "a b"}))
    from rag_debugger.exports.graph_run_file import graph_run_report, graph_run_session

    session, note = graph_run_session(history, info.run_id, POLICY)
    assert "this" not in sys.modules
    assert note is not None and "this:s is not on this server's list of graphs" in note()
    assert [r.nodes for _, r in session.all_steps()] == [("clean",), ("count",), ("shout",)]
    edges = {(e.source, e.target) for e in session.graph.get_graph().edges}
    assert {("clean", "count"), ("count", "shout")} <= edges
    page = graph_run_report(history, info.run_id, POLICY)
    assert "not on this server" in page and "this" not in sys.modules


def test_the_stand_in_graph_joins_the_recorded_nodes_in_the_order_they_ran():
    from rag_debugger.debugger.recorded_graph import graph_from_steps
    from rag_debugger.debugger.records import StepRecord

    def step(*nodes):
        return StepRecord.model_construct(nodes=nodes)

    drawn = graph_from_steps([step("split"), step("measure", "measure"), step("total")]).get_graph()
    edges = {(e.source, e.target) for e in drawn.edges}
    assert edges == {("__start__", "split"), ("split", "measure"), ("measure", "total"), ("total", "__end__")}


def test_the_report_cli_writes_a_graph_runs_file_from_an_id_or_an_export(history, runs, tmp_path, monkeypatch,
                                                                         capsys):
    from rag_debugger.run_to_html import main as report_main

    monkeypatch.setenv("RAG_HISTORY_DB", str(history.location))
    monkeypatch.delenv("RAG_HISTORY_URL", raising=False)
    out = tmp_path / "run.html"
    assert report_main([runs["abc"], "-o", str(out), "--step", "1"]) == 0
    page = out.read_text(encoding="utf-8")
    assert "rag_debugger.examples.chain:graph" in page and "Collapses whitespace" in page  # the real graph's docstrings
    export = tmp_path / "run.json"
    export.write_text(json.dumps(export_run(history, runs["fanout"])), encoding="utf-8")
    assert report_main([str(export), "-o", str(out), "--lang", "zh"]) == 0
    assert "rag_debugger.examples.fanout:graph" in out.read_text(encoding="utf-8")
    never = history.record_start("{}", kind="graph", graph_spec="rag_debugger.examples.chain:graph").run_id
    history.record_finish(never, status="done")
    capsys.readouterr()
    assert report_main([never, "-o", str(out)]) == 2
    assert "never ended" in capsys.readouterr().err
