"""Issue 24, finding 11: with a login, a knowledge base records who created it and only they (or
`RAG_ADMINS`) may delete it; without a login anyone may. The rule as a table, then the server-side
refusal (not only a disabled button)."""
from __future__ import annotations

import pytest

from rag import kb_jobs
from rag.errors import UserInputError
from rag.ingest.kbs import create_kb, list_kbs
from rag.ingest.owners import admins, may_delete, read_owner
from tests.retrieval.conftest import make_settings


@pytest.fixture
def kb_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"

ADMINS = admins("Boss@Example.com, ops@example.com ,")


@pytest.mark.parametrize("login, person, owner, allowed", [
    (False, "", "", True),                                   # no login: anyone, and the page says so
    (False, "", "ana@example.com", True),
    (True, "ana@example.com", "ana@example.com", True),      # the creator
    (True, "ANA@example.com ", "ana@example.com", True),     # e-mails compare without case
    (True, "bo@example.com", "ana@example.com", False),      # a colleague
    (True, "", "ana@example.com", False),                    # a visitor not signed in
    (True, "boss@example.com", "ana@example.com", True),     # an admin
    (True, "bo@example.com", "", False),                     # no owner recorded: admins only
    (True, "ops@example.com", "", True),
])
def test_who_may_delete_a_knowledge_base(login, person, owner, allowed):
    assert may_delete(login=login, person=person, owner=owner, admin_set=ADMINS) is allowed


def test_admins_are_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("RAG_ADMINS", " a@x.org,,B@x.org ")
    assert admins() == {"a@x.org", "b@x.org"}
    monkeypatch.delenv("RAG_ADMINS")
    assert admins() == frozenset()


def test_a_colleague_cannot_delete_what_ana_created_but_ana_and_an_admin_can(kb_cache, monkeypatch):
    monkeypatch.setenv("RAG_ADMINS", "boss@example.com")
    settings = make_settings(dense_enabled=False)
    folders = create_kb("anas", owner="ana@example.com")
    assert read_owner(folders.root) == "ana@example.com"
    with pytest.raises(UserInputError, match="only ana@example.com"):
        kb_jobs.delete_knowledge_base("anas", settings, login=True, person="bo@example.com")
    with pytest.raises(UserInputError, match="only ana@example.com"):
        kb_jobs.delete_knowledge_base("anas", settings, login=True, person="")
    assert list_kbs() == ["anas"]
    kb_jobs.delete_knowledge_base("anas", settings, login=True, person="ana@example.com")
    create_kb("anas", owner="ana@example.com")
    kb_jobs.delete_knowledge_base("anas", settings, login=True, person="boss@example.com")
    assert list_kbs() == []


def test_without_a_login_anyone_deletes(kb_cache):
    create_kb("open")
    kb_jobs.delete_knowledge_base("open", make_settings(dense_enabled=False))
    assert list_kbs() == []
