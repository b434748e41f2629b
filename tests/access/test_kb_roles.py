"""The knowledge-base rows of docs/team_server.md at the boundary (rag/ingest/kbs.py, rag/kb_jobs.py): creating
one, changing its files (upload, delete a file, ingest again) and deleting it follow rag/access.py, also when no
button is involved."""
from __future__ import annotations

import pytest

from rag import kb_jobs
from rag.access import AccessRefused, AccessSettings, Actor, Permit
from rag.ingest.kbs import create_kb, list_kbs
from tests.retrieval.conftest import make_settings

LOGIN = AccessSettings(login=True, admins=frozenset({"root@corp"}))
ANA, BO = Permit(Actor(identity="ana@corp"), LOGIN), Permit(Actor(identity="bo@corp"), LOGIN)
ADMIN, NOBODY = Permit(Actor(identity="root@corp"), LOGIN), Permit(Actor(), LOGIN)
READ_ONLY = Permit(Actor(), AccessSettings(shared_state="read-only"))
OPEN = Permit(Actor(), AccessSettings(shared_state="open"))


@pytest.fixture(autouse=True)
def kb_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize("permit, allowed", [(ANA, True), (ADMIN, True), (OPEN, True), (NOBODY, False),
                                             (READ_ONLY, False)])
def test_creating_a_knowledge_base(permit, allowed):
    if allowed:
        create_kb("docs", owner=permit.owner, permit=permit)
        assert list_kbs() == ["docs"]
    else:
        with pytest.raises(AccessRefused):
            create_kb("docs", permit=permit)
        assert list_kbs() == []


@pytest.mark.parametrize("permit, allowed", [(ANA, True), (ADMIN, True), (OPEN, True), (BO, False), (NOBODY, False),
                                             (READ_ONLY, False)])
def test_changing_and_deleting_ana_s_knowledge_base(permit, allowed):
    settings = make_settings(dense_enabled=False)
    create_kb("anas", owner="ana@corp")
    if allowed:
        kb_jobs.require_change("anas", permit)
        kb_jobs.delete_knowledge_base("anas", settings, permit=permit)
        assert list_kbs() == []
        return
    with pytest.raises(AccessRefused):
        kb_jobs.start_ingest("anas", settings, permit=permit)
    with pytest.raises(AccessRefused):
        kb_jobs.delete_knowledge_base("anas", settings, permit=permit)
    assert list_kbs() == ["anas"] and not kb_jobs.is_busy("anas")
