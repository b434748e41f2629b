"""The roles of docs/team_server.md on the real app under AppTest, with a faked signed-in user (`st.user`, as
tests/ui/test_shared_history_apptest.py fakes it): what a member, an admin and a visitor of a read-only server are
offered, and that what the page would refuse is refused by the store too (tests/access for the store rows)."""
from __future__ import annotations

import os

import pytest

from rag.access import AccessRefused
from rag.runs.history import RunHistory
from tests.ui.test_history_apptest import history_page, new_app, runs

ALICE, BOB, ROOT_ADMIN = "alice@corp", "bob@corp", "root@corp"


class SignedIn(dict):
    is_logged_in = True


@pytest.fixture
def as_user(env, monkeypatch):
    """`as_user(email)`: the app has a login and `email` is signed in ("" = nobody signed in)."""
    import streamlit as st

    from rag_debugger.ui import streamlit_state

    monkeypatch.setenv("RAG_ADMINS", ROOT_ADMIN)
    monkeypatch.setattr(streamlit_state, "login_configured", lambda: True)

    def sign_in(email: str):
        monkeypatch.setattr(SignedIn, "is_logged_in", bool(email))
        monkeypatch.setattr(st, "user", SignedIn(email=email) if email else SignedIn())
    return sign_in


def _recorded(owner: str, question: str) -> str:
    with RunHistory(os.environ["RAG_HISTORY_DB"]) as history:
        run = history.record_start(question, run_by=owner, owner=owner).run_id
        history.record_finish(run, status="done", result={"route": "answer"})
    return run


def test_a_member_may_delete_their_own_run_and_not_another_s(as_user):
    theirs, mine = _recorded(ALICE, "alice's question"), _recorded(BOB, "bob's question")
    as_user(BOB)
    at = history_page(new_app().run())
    at.selectbox(key="history_run").set_value(theirs).run()
    assert at.button(key="history_delete").disabled
    at.selectbox(key="history_run").set_value(mine).run()
    assert not at.button(key="history_delete").disabled
    at.button(key="history_delete").click().run()
    at.button(key="history_delete_confirm").click().run()
    assert list(runs(at)["run id"]) == [theirs]
    from rag_debugger.ui.history_store import history
    from rag_debugger.ui.streamlit_state import permit

    with pytest.raises(AccessRefused, match="owner or an admin"):  # the store refuses, whatever the page shows
        history().delete_run(theirs, permit())


def test_an_admin_may_delete_anyone_s_run(as_user):
    theirs = _recorded(ALICE, "alice's question")
    as_user(ROOT_ADMIN)
    at = history_page(new_app().run())
    at.selectbox(key="history_run").set_value(theirs).run()
    at.button(key="history_delete").click().run()
    at.button(key="history_delete_confirm").click().run()
    assert not at.exception and not [d for d in at.dataframe if "run id" in d.value.columns]


def test_private_runs_hide_another_s_runs_and_links(as_user, monkeypatch):
    monkeypatch.setenv("RAG_RUN_VISIBILITY", "owner")
    theirs, mine = _recorded(ALICE, "alice's question"), _recorded(BOB, "bob's question")
    as_user(BOB)
    at = history_page(new_app().run())
    assert list(runs(at)["run id"]) == [mine]
    said = []
    for run_id in (theirs, "main-does-not-exist"):
        at = new_app()
        at.query_params["run"] = run_id
        at.run()
        said.append(" ".join(w.body for w in at.warning) + " ".join(i.body for i in at.info))
    assert "not available" in said[0] and said[0] == said[1]  # the same words: nothing says whether it exists


def test_the_telemetry_switch_is_the_admins(as_user):
    as_user(BOB)
    at = new_app().run().switch_page("pages/settings.py").run()
    assert at.toggle(key="set_otel_on").disabled
    assert any("whole server" in c.value for c in at.caption)
    as_user(ROOT_ADMIN)
    at = new_app().run().switch_page("pages/settings.py").run()
    assert not at.toggle(key="set_otel_on").disabled


def test_a_read_only_server_offers_no_feedback_and_no_activation(env, monkeypatch):
    monkeypatch.setenv("RAG_SHARED_STATE", "read-only")
    run = _recorded("", "a question")
    at = history_page(new_app().run())
    assert at.button(key="history_delete").disabled
    at = new_app().run().switch_page("pages/playground.py").run()
    assert at.button(key="pg_set_active").disabled
    at = new_app().run().switch_page("pages/settings.py").run()
    assert at.toggle(key="set_otel_on").disabled
    from rag.runs.feedback import give_feedback, new_feedback
    from rag_debugger.ui.history_store import history
    from rag_debugger.ui.streamlit_state import permit

    with pytest.raises(AccessRefused, match="read-only"):
        give_feedback(history(), new_feedback(run, verdict="good"), permit())


def test_carried_feedback_is_shown_as_claimed_and_counted_apart(env):
    """Hole 2 on the page: an entry a file brought names its author as claimed, and Run history counts it apart."""
    import json

    from rag.runs.export import export_run
    from rag.runs.feedback import feedback_for_run
    from rag.runs.importing import import_run
    from rag.runs.run_document import checksum
    from rag_debugger.ui.history_store import history

    at = history_page(new_app().run())
    at.button(key="history_demo_pack").click().run()
    run = "demo-zh_scope_select_baiya"
    doc = export_run(history(), run)
    doc["feedback"] = [{"feedback_id": "c1", "verdict": "wrong", "reason": "other", "given_by": ALICE,
                        "given_at": "2099-01-01T00:00:00+00:00"}]
    doc.pop("sha256", None)
    doc["sha256"] = checksum(doc)
    import_run(json.dumps(doc), history())
    assert [f.origin for f in feedback_for_run(history(), run)] == ["imported"]
    at.selectbox(key="history_run").set_value(run).run()
    at.session_state["history_feedback_folded"] = True
    at.run()
    shown = "\n".join(m.value for m in at.markdown)
    assert "claimed by alice@corp" in shown and "from the file" in shown
    table = runs(at)
    assert table[table["run id"] == run].iloc[0]["feedback"] == "carried ×1"


def test_a_visitor_not_signed_in_on_a_login_server_is_asked_to_sign_in(as_user):
    as_user("")
    run = _recorded(ALICE, "alice's question")
    at = history_page(new_app().run())
    at.selectbox(key="history_run").set_value(run).run()
    at.session_state["history_feedback_folded"] = True
    at.run()
    assert any("Sign in first" in c.value for c in at.caption)
    assert not [b for b in at.button if b.key == "history_feedback_save"]
    assert at.button(key="history_delete").disabled


def test_a_member_saves_a_new_prompt_version_but_overwrites_none(as_user):
    """Hole 4 on the page: the refusal is a clear message and the shared folder keeps the admin's text."""
    from rag.prompts.templates import load_default_prompts
    from rag.prompts.versions import load_version, save_version

    save_version("team", load_default_prompts(), "the admin's")
    as_user(BOB)
    at = new_app().run().switch_page("pages/playground.py").run()
    at.text_input(key="pg_save_name").set_value("team")
    at.checkbox(key="pg_save_overwrite").check()
    at.button(key="pg_save").click().run()
    assert any("Only an admin (RAG_ADMINS)" in w.body for w in at.warning)
    assert load_version("team").planner == load_default_prompts().planner
    at.text_input(key="pg_save_name").set_value("bobs")
    at.checkbox(key="pg_save_overwrite").uncheck()
    at.button(key="pg_save").click().run()
    assert any("Saved prompt version “bobs”" in s.body for s in at.success)
    assert at.button(key="pg_set_active").disabled


def test_a_member_cannot_delete_or_change_another_s_question_set(as_user):
    from rag.access import AccessSettings, Actor, Permit
    from rag.eval.cases import EvalCase
    from rag.eval.question_sets import QuestionSetStore

    with RunHistory(os.environ["RAG_HISTORY_DB"]) as history:
        alice = Permit(Actor(identity=ALICE), AccessSettings(login=True))
        QuestionSetStore(history.storage).create("Alice's set", [EvalCase(question="q1")], permit=alice)
    as_user(BOB)
    at = new_app().run().switch_page("pages/evaluate.py").run()
    for key in ("qs_delete", "qs_add", "qs_rename", "qs_save", "qs_remove"):
        assert at.button(key=key).disabled, key
    assert any("Only its owner or an admin" in c.value for c in at.caption)
    assert not at.button(key="qs_create").disabled  # a member makes sets of their own
    from rag_debugger.ui.history_store import history as shared
    from rag_debugger.ui.streamlit_state import permit

    found = QuestionSetStore(shared().storage).find("Alice's set")
    with pytest.raises(AccessRefused, match="Only its owner or an admin"):  # the store refuses, buttons aside
        QuestionSetStore(shared().storage).delete(found.set_id, version=found.version, permit=permit())
    with RunHistory(os.environ["RAG_HISTORY_DB"]) as history:
        [kept] = QuestionSetStore(history.storage).list_sets()
        assert (kept.name, kept.cases) == ("Alice's set", 1)


def test_knowledge_bases_a_member_creates_their_own_and_leaves_another_s_alone(as_user, monkeypatch, env):
    from rag.ingest.kbs import create_kb, list_kbs

    monkeypatch.setenv("RAG_CACHE_DIR", str(env / "cache"))
    monkeypatch.setenv("RAG_DENSE_ENABLED", "false")
    create_kb("alices", owner=ALICE)
    as_user(BOB)
    at = new_app().run().switch_page("pages/knowledge_bases.py").run()
    at.selectbox(key="kb_selected").set_value("alices").run()
    for key in ("kb_upload_submit", "kb_reingest", "kb_delete_kb"):
        assert at.button(key=key).disabled, key
    at.switch_page("pages/knowledge_bases.py")
    at.text_input(key="kb_new_name").set_value("bobs")
    at.button(key="kb_create_submit").click().run()
    assert sorted(list_kbs()) == ["alices", "bobs"]
    as_user("")  # not signed in: no creating at all
    at = new_app().run().switch_page("pages/knowledge_bases.py").run()
    assert at.button(key="kb_create_submit").disabled


def test_importing_needs_a_signed_in_member_and_the_copy_is_theirs(as_user):
    from rag.runs.demo_pack import DEMO_RUNS_DIR

    data = ("run.json", (DEMO_RUNS_DIR / "01_zh_answer_attribute.json").read_bytes(), "application/json")
    as_user("")
    at = history_page(new_app().run())
    at.file_uploader(key="history_upload").set_value(data).run()
    assert any("Sign in first" in w.body for w in at.warning)
    as_user(BOB)
    at = history_page(new_app().run())
    at.file_uploader(key="history_upload").set_value(data).run()
    with RunHistory(os.environ["RAG_HISTORY_DB"]) as history:
        [imported] = history.list_runs()
        assert imported.owner == BOB and imported.origin == "imported"


def test_withdraw_is_offered_to_the_entry_s_owner_only(as_user):
    from rag.access import AccessSettings, Actor, Permit
    from rag.runs.feedback import feedback_for_run, give_feedback, new_feedback

    run = _recorded(ALICE, "alice's question")
    with RunHistory(os.environ["RAG_HISTORY_DB"]) as history:
        alice = Permit(Actor(identity=ALICE), AccessSettings(login=True))
        given = give_feedback(history, new_feedback(run, verdict="good", given_by=ALICE), alice)
    withdraw = f"history_feedback_withdraw_{given.feedback_id}"
    for who, offered in ((BOB, False), (ALICE, True)):
        as_user(who)
        at = history_page(new_app().run())
        at.selectbox(key="history_run").set_value(run).run()
        at.session_state["history_feedback_folded"] = True
        at.run()
        assert any(b.key == withdraw for b in at.button) is offered, who
    at.button(key=withdraw).click().run()
    with RunHistory(os.environ["RAG_HISTORY_DB"]) as history:
        assert feedback_for_run(history, run) == []


def test_private_saved_evaluations_are_listed_for_their_owner_only(as_user, monkeypatch):
    """`RAG_RUN_VISIBILITY=owner`: the Evaluate page's earlier evaluations are one's own (an admin's: all)."""
    from rag.eval.results_store import EvalRecord, EvalStore
    from rag.eval.scoring import CaseResult
    from rag_debugger.ui.streamlit_state import permit
    from tests.ui.test_evaluate_apptest import evaluate_page

    monkeypatch.setenv("RAG_RUN_VISIBILITY", "owner")
    store = EvalStore(os.environ["RAG_HISTORY_DB"])
    result = [CaseResult("a", "answer", "answer", (), (), None, (), "q?", None, 1.0)]
    saved = {}
    for who in (ALICE, BOB):
        as_user(who)
        saved[who] = store.save(EvalRecord.from_results(result, set_name=f"{who}.jsonl", label="A"),
                                permit=permit()).group_id
    as_user(BOB)
    at = evaluate_page(new_app().run())
    assert at.selectbox(key="eval_past").options == [f for f in at.selectbox(key="eval_past").options
                                                     if "bob@corp.jsonl" in f]
    assert len(at.selectbox(key="eval_past").options) == 1
    with pytest.raises(AccessRefused):  # and the store refuses Bob Alice's, whatever the page shows
        store.save(EvalRecord.from_results(result, set_name="x", label="B", group_id=saved[ALICE]), permit=permit())
    as_user(ROOT_ADMIN)
    at = evaluate_page(new_app().run())
    assert len(at.selectbox(key="eval_past").options) == 2
