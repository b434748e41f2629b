"""Feedback on a run under AppTest: the panel on Run history and in the step debugger (live, replay, a
time-travel step of an earlier run), markup in a note shown as text, the plain refusals (a note too long, a
wrong run without a reason, a run deleted meanwhile), and Run history's feedback column, its filters and
its pages."""
from __future__ import annotations

import pytest

from rag.runs.demo_pack import DEMO_RUNS_DIR
from rag.runs.feedback import NOTE_MAX_CHARS, feedback_for_run, give_feedback, new_feedback
from rag_debugger.views.markdown_text import as_text
from tests.support.apptest import press, travel_to_step
from tests.ui.test_history_apptest import demo, history_page, new_app, on_debugger, problems, runs

NOTE = "**bold** ![x](http://evil.example/x.png) <b>tag</b> :red[red]"
SCOPE = "demo-zh_scope_select_baiya"


def _store():
    from rag_debugger.ui.history_store import history

    return history()


def _open_panel(at, key: str = "history_feedback"):
    at.session_state[f"{key}_folded"] = True
    return at.run()


def _fill(at, key: str, verdict: str, reason: str | None = None, note: str = "", route: str | None = None,
          sources: str = "", words: str = ""):
    at.radio(key=f"{key}_verdict").set_value(verdict).run()
    if reason is not None:
        at.selectbox(key=f"{key}_reason").set_value(reason)
    at.text_area(key=f"{key}_note").set_value(note)
    if route is not None:
        at.selectbox(key=f"{key}_route").set_value(route)
    at.text_input(key=f"{key}_sources").set_value(sources)
    at.text_input(key=f"{key}_words").set_value(words)
    return at.button(key=f"{key}_save").click().run()


def _demo_pack(at):
    history_page(at)
    at.button(key="history_demo_pack").click().run()
    at.selectbox(key="history_run").set_value(SCOPE).run()
    return at


def _markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_feedback_on_run_history_lists_escaped_and_filters(env):
    at = _open_panel(_demo_pack(new_app().run()))
    assert not problems(at)
    assert at.button(key="history_feedback_save").disabled  # no verdict chosen yet
    _fill(at, "history_feedback", "wrong", "wrong_route", NOTE, "no_knowledge", "a.md, b.md", "面积")
    assert not problems(at), problems(at)
    assert any(f"Feedback saved: wrong on run {SCOPE}" in s.body for s in at.success)
    [stored] = feedback_for_run(_store(), SCOPE)
    assert (stored.verdict, stored.reason, stored.note, stored.expected.route, stored.expected.sources) == (
        "wrong", "wrong_route", NOTE, "no_knowledge", ["a.md", "b.md"])
    shown = _markdown(at)
    # the note is on the page as escaped text: no image, no bold, no tag, no colour
    assert "> " + as_text(NOTE) in shown and "**bold**" not in shown and "![x](" not in shown
    assert "Expected: route no_knowledge; cites a.md, b.md; the answer says 面积" in shown
    assert at.text_area(key="history_feedback_note").value == ""  # the form is ready for the next one
    assert "Feedback on this run: wrong ×1" in [c.value for c in at.caption]

    table = runs(at)
    marked = table[table["run id"] == SCOPE].iloc[0]
    assert marked["feedback"] == "wrong ×1"
    assert set(table[table["run id"] != SCOPE]["feedback"]) == {""}

    give_feedback(_store(), new_feedback("demo-en_answer_temperature", verdict="good", given_by="bo"))
    at.selectbox(key="history_run").set_value("demo-en_answer_temperature").run()
    at.selectbox(key="history_feedback_filter").set_value("wrong").run()
    assert list(runs(at)["run id"]) == [SCOPE]
    picker = at.selectbox(key="history_run")
    assert picker.value == SCOPE and len(picker.options) == 1  # the run chosen before the filter is gone
    at.selectbox(key="history_feedback_filter").set_value("any").run()
    assert set(runs(at)["run id"]) == {SCOPE, "demo-en_answer_temperature"}


@pytest.mark.parametrize(("verdict", "reason", "note", "message"), [
    ("wrong", "other", "n" * (NOTE_MAX_CHARS + 1), "The note is 2,001 characters long; a note can be at most 2,000"),
    ("wrong", "-", "", "Say why the run is wrong: choose a reason"),
])
def test_refusals_are_said_plainly_and_nothing_is_saved(env, verdict, reason, note, message):
    at = _open_panel(_demo_pack(new_app().run()))
    _fill(at, "history_feedback", verdict, reason, note)
    assert not at.exception
    assert any(message in w.body for w in at.warning), [w.body for w in at.warning]
    assert feedback_for_run(_store(), SCOPE) == []
    if note:
        assert at.text_area(key="history_feedback_note").value == note  # what was typed is kept


def test_a_named_person_replaces_their_feedback_and_withdraws_it(env):
    at = new_app()
    at.session_state["settings_run_by"] = "Ana"
    at = _open_panel(_demo_pack(at.run()))
    _fill(at, "history_feedback", "wrong", "bad_answer")
    _fill(at, "history_feedback", "good")
    assert [(f.given_by, f.verdict) for f in feedback_for_run(_store(), SCOPE)] == [("Ana", "good")]
    [mine] = feedback_for_run(_store(), SCOPE)
    at.button(key=f"history_feedback_withdraw_{mine.feedback_id}").click().run()
    assert feedback_for_run(_store(), SCOPE) == []
    assert any("withdrawn" in i.body for i in at.info)


def test_feedback_in_the_debugger_goes_to_the_run_at_the_viewed_step(env):
    """A replay of the demo pack's scope_select run, then its recorded answer (a resume run): time travel to a
    step of the first run, and the feedback is on that run, not on the resume shown last."""
    at = _demo_pack(new_app().run())
    at.button(key="history_open").click().run()
    on_debugger(at)
    press(at, "continue")
    session = at.session_state["debug_session"]
    child = session.recorded_answers()[0]
    at.button(key=f"follow_{child.run_id}").click().run()
    press(on_debugger(at), "continue")
    assert at.session_state["debug_session"].current.run_id == child.run_id
    _open_panel(on_debugger(at), "feedback")
    _fill(on_debugger(at), "feedback", "wrong", "should_have_asked")
    assert [f.reason for f in feedback_for_run(_store(), child.run_id)] == ["should_have_asked"]
    travel_to_step(on_debugger(at), 0)  # step 1: the main run
    _fill(on_debugger(at), "feedback", "wrong", "wrong_route", route="no_knowledge")
    assert not problems(at), problems(at)
    assert [f.reason for f in feedback_for_run(_store(), SCOPE)] == ["wrong_route"]
    assert any("imported run" in c.value for c in at.caption)  # the demo pack is imported: said where it goes


def test_feedback_on_a_live_run_and_on_a_run_deleted_meanwhile(env):
    at = new_app().run()
    at.button(key=f"demo_{demo('answer').id}").click().run()
    press(at, "continue")
    run_id = at.session_state["debug_session"].current.run_id
    _open_panel(at, "feedback")  # the app's default page is the debugger
    _fill(at, "feedback", "good")
    assert [f.verdict for f in feedback_for_run(_store(), run_id)] == ["good"]

    at.radio(key="feedback_verdict").set_value("wrong").run()
    at.selectbox(key="feedback_reason").set_value("other")
    _store().delete_run(run_id)  # someone deletes it on Run history while the debugger shows the form
    at.button(key="feedback_save").click().run()
    assert not at.exception
    texts = [w.body for w in at.warning] + [i.body for i in at.info]
    assert any(f"Run {run_id} is no longer in the run history (it was deleted)" in t for t in texts), texts
    assert feedback_for_run(_store(), run_id) == []


def test_run_history_shows_a_page_of_runs_at_a_time(env):
    at = new_app().run()
    history_page(at)
    store = _store()
    ids = []
    for i in range(57):
        info = store.record_start(f"question {i}")
        store.storage.execute("UPDATE runs SET created_at=? WHERE run_id=?", (f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}"
                                                                          "+00:00", info.run_id))
        ids.append(info.run_id)
    give_feedback(store, new_feedback(ids[2], verdict="wrong", reason="other"))
    history_page(at)
    assert list(runs(at)["run id"]) == ids[:6:-1]  # the newest 50
    assert any("Runs 1–50, newest first" in c.value for c in at.caption)
    at.button(key="history_older").click().run()
    assert list(runs(at)["run id"]) == ids[6::-1]
    assert at.button(key="history_older").disabled and not at.button(key="history_newer").disabled
    at.selectbox(key="history_feedback_filter").set_value("wrong").run()  # a new filter starts at the first page
    assert list(runs(at)["run id"]) == [ids[2]]


def test_a_key_pasted_into_a_note_is_not_stored(env, monkeypatch):
    secret = "sk-test-FEEDBACK-LEAK-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", secret)  # configured, yet the offline provider is forced
    at = _open_panel(_demo_pack(new_app().run()))
    _fill(at, "history_feedback", "wrong", "other", f"it printed {secret} in the answer", words=secret)
    [stored] = feedback_for_run(_store(), SCOPE)
    assert secret not in stored.note and "[redacted]" in stored.note and secret not in stored.expected.answer_words
    assert secret not in _markdown(at)


def test_the_panel_in_chinese(env):
    at = new_app()
    at.query_params["lang"] = "zh"
    at = _open_panel(_demo_pack(at.run()))
    _fill(at, "history_feedback", "wrong", "wrong_route", "备注")
    assert not problems(at), problems(at)
    assert "对此运行的反馈" in [e.label for e in at.expander]
    assert any("反馈已保存" in s.body for s in at.success)
    assert "**有误** · 路由有误" in _markdown(at)
    assert "对此运行的反馈：有误 ×1" in [c.value for c in at.caption]


def test_feedback_on_a_run_of_your_own_graph(graph_app):
    """Your graph's runs are recorded in the run history, so they take feedback like the workflow's."""
    at = graph_app("rag_debugger.examples.fanout:graph")
    press(at, "run")
    at = _open_panel(at, "yg_feedback")
    assert not at.exception
    _fill(at, "yg_feedback", "wrong", "bad_answer", "the fan-out should have stopped")
    assert not problems(at), problems(at)
    assert any("Feedback saved: wrong on run" in s.body for s in at.success)


def test_an_old_run_just_imported_stays_chosen_though_it_is_past_the_first_page(env):
    at = new_app().run()
    history_page(at)
    store = _store()
    for i in range(55):  # newer than the demo recording
        info = store.record_start(f"question {i}")
        store.storage.execute("UPDATE runs SET created_at=? WHERE run_id=?", (f"2027-01-01T00:00:{i:02d}+00:00",
                                                                              info.run_id))
    history_page(at)
    at.file_uploader(key="history_upload").set_value(
        ("old.json", (DEMO_RUNS_DIR / "01_zh_answer_attribute.json").read_bytes(), "application/json")).run()
    assert not problems(at), problems(at)
    assert "demo-zh_answer_attribute" not in set(runs(at)["run id"])  # its date puts it on the second page
    assert at.selectbox(key="history_run").value == "demo-zh_answer_attribute"
    history_page(at)  # the next visit shows the page as it is
    assert at.selectbox(key="history_run").value != "demo-zh_answer_attribute"
