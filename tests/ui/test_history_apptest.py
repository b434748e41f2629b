"""The run history page under AppTest, on both engines (SQLite and PostgreSQL): debugger runs are
listed (and survive a new app process on the same history), delete asks first, an export holds no
key, imports (good, broken, tampered, non-JSON) and the demo pack, and a run opened in replay mode
steps through its recording."""
from __future__ import annotations

import json

import pytest
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

from rag.demo import load_demo_questions
from rag.runs.demo_pack import DEMO_RUNS_DIR, list_demo_runs
from tests.support.apptest import control_enabled, inspector_text, press, travel_to_step
from tests.support.browser import ROOT

SECRET = "sk-test-DO-NOT-LEAK-9f8e7d6c5b4a"


@pytest.fixture(autouse=True, params=["sqlite", "postgresql"])
def history_engine(request, monkeypatch):
    """Every test of the page runs on both engines: the SQLite file of `_isolated_history`, and a fresh
    schema of the session's real PostgreSQL server."""
    if request.param == "postgresql":
        monkeypatch.setenv("RAG_HISTORY_URL", request.getfixturevalue("postgres_server").new_schema())
    return request.param


def new_app():
    from streamlit.testing.v1 import AppTest

    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)


def problems(at) -> list:
    return [e.value for e in at.exception] + [e.body for e in at.error]


def runs(at):
    for df in at.dataframe:
        if "run id" in df.value.columns:
            return df.value
    raise AssertionError("no runs table on the page")


def texts(at) -> str:
    return "\n".join([m.value for m in at.markdown] + [c.value for c in at.caption] + [inspector_text(at)])


def history_page(at):
    return at.switch_page("pages/history.py").run()


def on_debugger(at):
    """AppTest does not remember a page switched to by `st.switch_page` for the next run (a browser
    does: the URL changes), so the test names the page it is on before each click."""
    return at.switch_page("pages/debugger.py")


def demo(route: str):
    return next(d for d in load_demo_questions() if d.expected_route == route and (d.hitl_answer or route == "answer"))


def test_debugger_runs_are_listed_and_survive_an_app_restart(env, history_engine):
    scope = demo("scope_select")
    at = new_app().run()
    at.button(key=f"demo_{scope.id}").click().run()
    press(at, "continue")
    at.button(key="hitl_opt_0").click().run()
    press(at, "continue")
    history_page(at)
    assert not problems(at)
    table = runs(at)
    assert len(table) == 2
    main = table[table["kind"] == "main"].iloc[0]
    resume = table[table["kind"].str.startswith("resume")].iloc[0]
    assert main["question"] == scope.question
    assert (main["route"], main["status"], main["provider"], main["prompt version"]) == (
        "scope_select", "done", "offline-rules", "default")
    assert main["duration (ms)"] > 0 and main["date"]
    assert main["run id"] in resume["kind"]  # the resume links to its parent run
    assert resume["route"] == scope.expected_resume_route

    again = history_page(new_app().run())  # a fresh app process state on the same file
    assert list(runs(again)["run id"]) == list(table["run id"])
    shared = any("shared by every app server" in c.value for c in again.caption)
    assert shared == (history_engine == "postgresql")


def test_delete_asks_for_confirmation_then_removes_the_run(env):
    at = new_app().run()
    at.button(key=f"demo_{demo('answer').id}").click().run()
    press(at, "continue")
    history_page(at)
    assert len(runs(at)) == 1
    at.button(key="history_delete").click().run()
    assert any("cannot be undone" in w.body for w in at.warning)
    at.button(key="history_delete_cancel").click().run()
    assert len(runs(at)) == 1
    at.button(key="history_delete").click().run()
    at.button(key="history_delete_confirm").click().run()
    assert not problems(at)
    assert any("Deleted run" in s.body for s in at.success)
    assert any("No runs yet" in i.body for i in at.info)


def test_export_download_is_a_run_document_without_the_key(env, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)  # configured, yet the offline provider is forced
    served: list[bytes] = []
    original = MemoryMediaFileStorage.load_and_get_id

    def capture(self, path_or_data, mimetype, kind, filename=None):
        if isinstance(path_or_data, (bytes, str)) and mimetype == "application/json":
            served.append(path_or_data if isinstance(path_or_data, bytes) else path_or_data.encode())
        return original(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", capture)
    at = new_app().run()
    at.text_area(key="question").set_value(f"丹瑾是什么属性？ {SECRET}").run()  # a key pasted into the question
    press(at, "run")
    history_page(at)
    assert not problems(at)
    assert at.download_button(key="history_export").label.startswith("Export")
    data = served[-1].decode("utf-8")
    assert SECRET not in data
    doc = json.loads(data)
    assert doc["format"] == "rag-debugger-run" and doc["settings"]["openai_api_key"] == "set"
    assert "[redacted]" in doc["run"]["question"]


def _demo_file(name: str) -> bytes:
    return (DEMO_RUNS_DIR / name).read_bytes()


def test_import_a_good_file_lists_it_as_imported(env):
    at = history_page(new_app().run())
    at.file_uploader(key="history_upload").set_value(
        ("answer.json", _demo_file("01_zh_answer_attribute.json"), "application/json")).run()
    assert not problems(at)
    assert any("Imported answer.json" in s.body for s in at.success)
    table = runs(at)
    assert list(table["origin"]) == ["imported"] and list(table["route"]) == ["answer"]


@pytest.mark.parametrize("content, message", [
    (b"this is not json", "not valid JSON"),
    (b"[1, 2, 3]", "JSON object"),
    (b'{"format": "something-else"}', "not a run export"),
    (b"\xff\xfe\x00garbage", "not UTF-8"),
    (b"", "empty"),
    ("tampered", "modified after it was written"),
], ids=["not-json", "json-list", "other-format", "binary", "empty", "tampered"])
def test_a_bad_upload_gets_a_readable_message(env, content, message):
    if content == "tampered":
        doc = json.loads(_demo_file("01_zh_answer_attribute.json"))
        doc["run"]["question"] = "something that never happened"
        content = json.dumps(doc).encode()
    at = history_page(new_app().run())
    at.file_uploader(key="history_upload").set_value(("run.json", content, "application/json")).run()
    assert not at.exception
    shown = [w.body for w in at.warning] + [e.body for e in at.error]
    assert any(message in text and "run.json" in text for text in shown), shown
    assert not any("Traceback" in text for text in shown)
    assert any("No runs yet" in i.body for i in at.info)


def test_open_a_demo_run_in_replay_and_step_it(env):
    at = history_page(new_app().run())
    at.button(key="history_demo_pack").click().run()
    assert any("demo pack" in s.body for s in at.success)
    assert len(runs(at)) == len(list(DEMO_RUNS_DIR.glob("*.json")))
    at.selectbox(key="history_run").set_value("demo-zh_scope_select_baiya").run()
    at.number_input(key="history_at_step").set_value(1).run()
    at.button(key="history_open").click().run()
    assert not problems(at), problems(at)
    assert at.title[0].value.endswith("Step debugger")
    assert any("Replay — recorded run, no model and no knowledge base" in w.body for w in at.warning)
    assert not control_enabled(at, "run")
    recorded = next(d for d in list_demo_runs() if d.run_id == "demo-zh_scope_select_baiya")
    box = at.text_area(key="question")
    assert box.value == recorded.question and box.disabled
    assert "Step 1: classify_complexity" in texts(at)

    press(on_debugger(at), "step")
    assert "Step 2: retrieve_initial" in texts(at)
    press(on_debugger(at), "continue")
    assert "recorded" in texts(at) and "The workflow asked (scope_select)" in texts(at)
    assert all(b.disabled for b in at.button if b.key and b.key.startswith("replay_opt_"))

    follow = [b for b in at.button if b.key and b.key.startswith("follow_")]
    assert len(follow) == 1
    on_debugger(at)
    follow[0].click().run()
    assert "HITL resume #1 (recorded)" in texts(at)
    press(on_debugger(at), "continue")
    assert not problems(at)
    assert "Result: answer /" in texts(at)

    travel_to_step(on_debugger(at), 1)  # time travel inside a replay
    assert "nothing was re-run" in texts(at)

    on_debugger(at).button(key="exit_replay").click().run()
    assert not any("Replay — recorded run" in w.body for w in at.warning)
    assert control_enabled(at, "run")


def test_a_live_run_opens_in_replay_at_a_chosen_step(env):
    at = new_app().run()
    at.button(key=f"demo_{demo('answer').id}").click().run()
    press(at, "continue")
    live_steps = len(at.session_state["debug_session"].current.stepper.steps)
    history_page(at)
    at.number_input(key="history_at_step").set_value(99).run()
    at.button(key="history_open").click().run()
    assert not problems(at)
    assert any(f"this recording has {live_steps} steps" in w.body for w in at.warning)
    assert at.title[0].value.endswith("Run history")  # stayed: nothing was opened

    at.number_input(key="history_at_step").set_value(2).run()
    at.button(key="history_open").click().run()
    assert any("Replay — recorded run" in w.body for w in at.warning)
    session = at.session_state["debug_session"]
    assert session.replay_mode and session.current.stepper.position == 2
    assert "Step 2: retrieve_initial" in texts(at)
    press(on_debugger(at), "continue")
    assert "Result: answer /" in texts(at)
    assert len(session.current.stepper.steps) == live_steps
