"""Your-graph runs in the run history and in links, under AppTest: a run is recorded and listed on Run
history with the graph's module:attr, reopened in replay after a "restart" (a new AppTest on the same
history file), exported; `?graph=&run=&step=` opens the same place after a reload; a link never loads a
graph the allow-list refuses, and a bad link gets a message, never a traceback."""
from __future__ import annotations

import json

import pytest

from rag.errors import RunImportError
from rag_debugger.ui.graph_page import SESSION_KEY
from tests.support.apptest import inspector_text, press, travel_to_step
from tests.ui.test_history_apptest import new_app, runs
from tests.ui.test_run_link_apptest import link


def problems(at) -> list:
    return [e.value for e in at.exception] + [e.body for e in at.error]


def warnings(at) -> str:
    """The warnings as a reader sees them (their outside text is escaped in the markdown source)."""
    from tests.support.markdown import shown

    return "\n".join(shown(w.body) for w in at.warning)


def chain_run(graph_app, text="one two three", steps=None):
    at = graph_app("rag_debugger.examples.chain:graph")
    at.text_input(key=next(w.key for w in at.text_input if w.label == "text · str")).input(text)
    at.run()
    if steps is None:
        press(at, "run")
    else:
        for _ in range(steps):
            press(at, "step")
    return at


def reload(params: dict, **env):
    fresh = new_app()
    for key, value in params.items():
        fresh.query_params[key] = value
    fresh.switch_page("pages/your_graph.py")
    return fresh.run()


def test_a_run_is_recorded_and_listed_with_its_graph_then_opens_on_your_graph_after_a_restart(graph_app):
    at = chain_run(graph_app)
    run_id = at.session_state[SESSION_KEY].current.run_id
    assert run_id and run_id.startswith("graph-")
    restarted = new_app()  # a new app process on the same history file
    restarted.switch_page("pages/history.py").run()
    table = runs(restarted)
    row = table[table["run id"] == run_id].iloc[0]
    assert row["kind"] == "graph rag_debugger.examples.chain:graph" and row["status"] == "done"
    assert row["question"] == '{"text": "one two three"}'
    assert restarted.download_button(key="history_export").label.startswith("Export")
    assert restarted.download_button(key="history_report").label == "Download as HTML"  # rag_debugger/exports/graph_run_file.py
    from rag_debugger.ui.history_store import history
    from rag_debugger.ui.history_view import export_text

    exported = json.loads(export_text(history(), run_id))
    assert exported["run"]["graph_spec"] == "rag_debugger.examples.chain:graph" and exported["input"] == {"text": "one two three"}
    restarted.number_input(key="history_at_step").set_value(2).run()
    restarted.button(key="history_open").click().run()
    assert not problems(restarted), problems(restarted)
    # AppTest does not follow st.switch_page: the test goes where the page sent it
    restarted.switch_page("pages/your_graph.py").run()
    assert not problems(restarted), problems(restarted)
    text = inspector_text(restarted)
    assert "paused before shout" in text and "2 steps" in text
    assert any(f"Replay of run {run_id}" in i.body for i in restarted.info)
    press(restarted, "continue")
    assert "finished" in inspector_text(restarted)


def test_the_link_names_the_graph_the_run_and_the_step_and_a_reload_opens_the_same_place(graph_app):
    at = chain_run(graph_app)
    run_id = at.session_state[SESSION_KEY].current.run_id
    assert link(at) == {"graph": "rag_debugger.examples.chain:graph", "run": run_id, "step": "3"}
    travel_to_step(at, 0)
    assert link(at) == {"graph": "rag_debugger.examples.chain:graph", "run": run_id, "step": "1"}
    again = reload({"graph": "rag_debugger.examples.chain:graph", "run": run_id, "step": "1"})
    assert not problems(again), problems(again)
    session = again.session_state[SESSION_KEY]
    assert session.replay_mode and session.current.run_id == run_id and len(session.all_steps()) == 1
    assert "paused before count" in inspector_text(again)
    assert link(again) == {"graph": "rag_debugger.examples.chain:graph", "run": run_id, "step": "1"}


def test_a_reload_of_a_run_still_going_on_shows_its_steps_so_far(graph_app):
    at = chain_run(graph_app, steps=2)
    run_id = at.session_state[SESSION_KEY].current.run_id
    again = reload(link(at))
    assert not problems(again), problems(again)
    assert "2 steps" in inspector_text(again) and again.session_state[SESSION_KEY].current.run_id == run_id


def hostile_run(spec: str) -> str:
    """A run in the history that names `spec` as its graph (an imported file can say anything)."""
    from rag.runs.graph_runs import graph_document
    from rag_debugger.debugger.session import GraphSession
    from rag_debugger.ui.history_store import history

    s = GraphSession.open("rag_debugger.examples.chain:graph")
    s.start({"text": "a"})
    s.run_to_end()
    checkpoints, head = s.recording()
    info = history().record_start("{}", kind="graph", graph_spec=spec)
    history().record_document(info.run_id, graph_document(info, checkpoints, head, {"text": "a"}))
    return info.run_id


def test_a_run_whose_graph_the_allow_list_refuses_is_never_imported(graph_app):
    import sys

    sys.modules.pop("this", None)
    graph_app("rag_debugger.examples.chain:graph")
    run_id = hostile_run("this:s")
    for params in ({"graph": "this:s", "run": run_id}, {"graph": "this:s"}):
        again = reload(params)
        assert not again.exception and "this" not in sys.modules
        assert "not on this server's list of graphs" in "\n".join(problems(again))
    again = reload({"graph": "rag_debugger.examples.chain:graph", "run": run_id})  # the run's own graph is never followed
    assert "is a run of this:s, not of rag_debugger.examples.chain:graph" in warnings(again) and "this" not in sys.modules


def test_a_link_to_an_unknown_run_or_a_broken_graph_gets_a_message(graph_app):
    graph_app("rag_debugger.examples.chain:graph")
    again = reload({"graph": "rag_debugger.examples.chain:graph", "run": "graph-nope", "step": "1"})
    assert "not in this app's run history" in warnings(again) and not again.exception
    bad = reload({"graph": "../etc/passwd", "run": "graph-nope"})
    assert "is not a graph (package.module:attr)" in warnings(bad) and not bad.exception


def test_a_run_of_another_graph_in_the_link_is_refused(graph_app):
    at = chain_run(graph_app)
    run_id = at.session_state[SESSION_KEY].current.run_id
    again = reload({"graph": "rag_debugger.examples.fanout:graph", "run": run_id})
    assert (f"Run {run_id} is a run of rag_debugger.examples.chain:graph, not of rag_debugger.examples.fanout:graph."
            in warnings(again))


def test_a_what_if_fork_is_recorded_as_a_fork_of_its_run(graph_app):
    at = chain_run(graph_app)
    session = at.session_state[SESSION_KEY]
    parent = session.current.run_id
    session.fork(0, "text", "b")
    from rag_debugger.ui.history_store import history

    fork = history().get_run(session.current.run_id)
    assert fork.parent_run_id == parent and fork.fork.field == "text" and fork.kind == "graph"


def test_a_run_exported_from_run_history_opens_on_the_pages_own_uploader_and_a_tampered_one_is_refused(graph_app):
    at = chain_run(graph_app, text="a b")
    from rag.runs.export import export_run
    from rag_debugger.ui.graph_page import open_any_recording
    from rag_debugger.ui.history_store import history

    session = at.session_state[SESSION_KEY]
    doc = export_run(history(), session.current.run_id)
    open_any_recording(session, json.loads(json.dumps(doc)))
    assert session.replay_mode and len(session.current.stepper.all_steps) == 3
    tampered = {**doc, "input": {"text": "changed"}}
    with pytest.raises(RunImportError, match="checksum"):
        open_any_recording(session, tampered)


def test_a_your_graph_run_in_a_step_debugger_link_points_to_its_page(graph_app):
    at = chain_run(graph_app)
    run_id = at.session_state[SESSION_KEY].current.run_id
    fresh = new_app()
    fresh.query_params["run"] = run_id
    fresh.switch_page("pages/debugger.py").run()
    assert not fresh.exception
    assert f"Run {run_id} is a run of rag_debugger.examples.chain:graph: open it on the Your graph page." in warnings(fresh)
