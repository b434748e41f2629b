"""The Knowledge bases page under AppTest for issue 24: who may delete (findings 11: with a login,
the creator or RAG_ADMINS; without, anyone and the page says so), Cancel of a running ingestion
(finding 5), and the quota refusal shown with its number."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from rag import kb_jobs
from rag.ingest.kbs import create_kb, list_kbs
from rag.ingest.uploads import save_document
from rag.settings import RagSettings
from tests.ui.test_knowledge_bases_apptest import ZORBLAX, files_table, kb_page, new_app, problems, shown


@pytest.fixture
def kb_env(env, monkeypatch):
    monkeypatch.setenv("RAG_CACHE_DIR", str(env / "cache"))
    monkeypatch.setenv("RAG_DENSE_ENABLED", "false")
    return env


def signed_in(monkeypatch, email: str) -> None:
    """A login configured and `email` signed in (AppTest has no identity provider; the page asks
    `rag_debugger.ui.streamlit_state.signed_in_email`, as every page does)."""
    import rag_debugger.ui.streamlit_state

    monkeypatch.setattr(rag_debugger.ui.streamlit_state, "signed_in_email", lambda: email)


def delete_controls(at):
    return at.checkbox(key="kb_delete_confirm"), at.button(key="kb_delete_kb"), at.button(key="kb_delete_button")


def test_without_a_login_the_page_says_anyone_can_delete(kb_env):
    create_kb("open")
    at = kb_page(new_app().run()).run()
    assert not problems(at)
    assert any("no login: anyone who opens this page can delete" in c.value for c in at.caption), shown(at)
    box, button, _ = delete_controls(at)
    assert not box.disabled and not button.disabled


def test_with_a_login_only_the_creator_or_an_admin_can_delete(kb_env, monkeypatch):
    monkeypatch.setenv("RAG_ADMINS", "boss@example.com")
    signed_in(monkeypatch, "ana@example.com")
    at = kb_page(new_app().run()).run()
    at.text_input(key="kb_new_name").input("anas")
    kb_page(at).button(key="kb_create_submit").click().run()
    assert not problems(at)
    assert any("Only its creator (ana@example.com)" in c.value for c in at.caption), shown(at)

    signed_in(monkeypatch, "bo@example.com")
    other = kb_page(new_app().run()).run()
    box, button, file_button = delete_controls(other)
    assert box.disabled and button.disabled and file_button.disabled
    assert any("Only ana@example.com, who created it" in c.value for c in other.caption), shown(other)
    assert list_kbs() == ["anas"]  # the server refuses too: tests/retrieval/test_kb_owners.py

    signed_in(monkeypatch, "boss@example.com")
    admin = kb_page(new_app().run()).run()
    admin.checkbox(key="kb_delete_confirm").check()
    kb_page(admin).button(key="kb_delete_kb").click().run()
    assert not problems(admin)
    assert list_kbs() == []


def test_cancel_stops_a_running_ingestion_and_keeps_the_files_done(kb_env):
    gate, entered = threading.Event(), threading.Event()

    class GatedEmbedder:
        model_id = "gated-4"

        def embed_passages(self, texts):
            entered.set()
            gate.wait(60)
            return np.ones((len(texts), 4), dtype=np.float32)

    folders = create_kb("slow")
    save_document(folders.docs, "zorblax.md", ZORBLAX)
    job = kb_jobs.start_ingest("slow", RagSettings(), embedder=GatedEmbedder())
    try:
        assert entered.wait(60)
        at = kb_page(new_app().run()).run()
        assert not problems(at)
        kb_page(at).button(key="kb_cancel").click().run()
        assert any("Cancelling" in i.body for i in at.info), shown(at)
        assert at.button(key="kb_cancel").disabled
    finally:
        gate.set()
    assert job.wait(60)
    kb_page(at).run()
    assert not problems(at)
    assert any("Ingestion cancelled" in w.body for w in at.warning), shown(at)
    assert not at.button(key="kb_upload_submit").disabled


def test_an_upload_past_the_quota_is_refused_with_its_number(kb_env, monkeypatch):
    monkeypatch.setenv("RAG_KB_QUOTA_MB", "1")
    create_kb("full")
    at = kb_page(new_app().run()).run()
    at.file_uploader(key="kb_upload_0").set_value([("big.md", b"# Big\n\n" + b"word " * 250_000, "text/markdown")])
    kb_page(at).button(key="kb_upload_submit").click().run()
    assert not problems(at)
    job = kb_jobs.get_job("full")
    assert job is not None and job.wait(60)
    kb_page(at).run()
    table = files_table(at)
    assert "quota of 1 MB" in table.loc["big.md", "reason"], table


def test_an_uploaded_evaluation_set_past_the_case_cap_is_refused_with_the_number(env, monkeypatch):
    from rag_debugger.ui.evaluate_view import UPLOAD_CHOICE
    from tests.ui.test_evaluate_apptest import evaluate_page
    from tests.ui.test_evaluate_apptest import new_app as eval_app

    monkeypatch.setenv("RAG_MAX_EVAL_CASES", "3")
    at = evaluate_page(eval_app())
    at.selectbox(key="eval_set").set_value(UPLOAD_CHOICE).run()
    content = "".join('{"question": "Question %d?"}\n' % i for i in range(4)).encode()
    at.file_uploader(key="eval_upload").set_value(("big.jsonl", content, "application/json")).run()
    said = [c.value for c in at.caption] + [w.body for w in at.warning]
    assert any("big.jsonl: more than 3 cases (RAG_MAX_EVAL_CASES)" in text for text in said), said
    assert not problems(at)
