"""Who may do what (rag/access.py), as a table: every row of docs/team_server.md's table, with a login and
without, for an admin, the owner, another member, a visitor who is not signed in and the server's own code."""
from __future__ import annotations

import pytest

from rag.access import ACTIONS, OPERATOR, AccessSettings, Actor, SettingsError, access_settings, decide, is_loopback

ALICE, BOB, ADMIN, ANON = Actor(identity="alice@corp"), Actor(identity="bob@corp"), Actor(identity="Root@Corp"), Actor()
LOGIN = AccessSettings(login=True, admins=frozenset({"root@corp"}))
PRIVATE = LOGIN.model_copy(update={"run_visibility": "owner"})
OPEN = AccessSettings(login=False, shared_state="open")
READ_ONLY = AccessSettings(login=False, shared_state="read-only")

# (action, with a login: admin, owner, another member, not signed in), owner of the record is alice
LOGIN_TABLE = [
    ("record_run", "ok", "ok", "ok", "ok"),
    ("view_run", "ok", "ok", "ok", "ok"),
    ("import_run", "ok", "ok", "ok", "sign_in"),
    ("give_feedback", "ok", "ok", "ok", "sign_in"),
    ("create_set", "ok", "ok", "ok", "sign_in"),
    ("save_prompt_version", "ok", "ok", "ok", "sign_in"),
    ("create_kb", "ok", "ok", "ok", "sign_in"),
    ("delete_run", "ok", "ok", "not_yours", "sign_in"),
    ("withdraw_feedback", "ok", "ok", "not_yours", "sign_in"),
    ("edit_set", "ok", "ok", "not_yours", "sign_in"),
    ("delete_set", "ok", "ok", "not_yours", "sign_in"),
    ("change_kb", "ok", "ok", "not_yours", "sign_in"),
    ("delete_kb", "ok", "ok", "not_yours", "sign_in"),
    ("overwrite_prompt_version", "ok", "admins_only", "admins_only", "sign_in"),
    ("delete_prompt_version", "ok", "admins_only", "admins_only", "sign_in"),
    ("activate_prompt_version", "ok", "admins_only", "admins_only", "sign_in"),
    ("switch_telemetry", "ok", "admins_only", "admins_only", "sign_in"),
    ("record_evaluation", "ok", "ok", "ok", "ok"),
    ("view_evaluation", "ok", "ok", "ok", "ok"),
    ("overwrite_evaluation", "ok", "ok", "not_yours", "sign_in"),
    ("delete_evaluation", "ok", "ok", "not_yours", "sign_in"),
]


def test_the_table_names_every_action():
    assert sorted(row[0] for row in LOGIN_TABLE) == sorted(ACTIONS)


@pytest.mark.parametrize("action, admin, owner, member, anonymous", LOGIN_TABLE)
def test_with_a_login(action, admin, owner, member, anonymous):
    got = [decide(actor, action, "Alice@Corp ", LOGIN).why for actor in (ADMIN, ALICE, BOB, ANON)]
    assert got == [admin, owner, member, anonymous]
    assert decide(OPERATOR, action, "alice@corp", LOGIN).allowed  # the command line owns the server


@pytest.mark.parametrize("action", ACTIONS)
def test_without_a_login_the_operator_chooses(action):
    assert decide(ANON, action, "", OPEN).allowed
    expected = "ok" if action in ("record_run", "view_run", "record_evaluation", "view_evaluation") else "read_only"
    assert decide(ANON, action, "", READ_ONLY).why == expected
    assert decide(ALICE, action, "", READ_ONLY).why == expected  # a typed name is no identity without a login


@pytest.mark.parametrize("actor, owner, why", [
    (ALICE, "alice@corp", "ok"), (BOB, "alice@corp", "not_available"), (ANON, "", "not_available"),
    (BOB, "", "not_available"), (ADMIN, "alice@corp", "ok"),
])
def test_private_runs_are_seen_by_their_owner_and_admins(actor, owner, why):
    assert decide(actor, "view_run", owner, PRIVATE).why == why
    assert decide(actor, "view_evaluation", owner, PRIVATE).why == why  # saved evaluations follow runs


def test_a_record_without_an_owner_is_the_admins():
    assert decide(ALICE, "delete_run", "", LOGIN).why == "not_yours"
    assert decide(ADMIN, "delete_run", "", LOGIN).allowed


@pytest.mark.parametrize("address, loopback", [
    (None, False), ("", False), ("0.0.0.0", False), ("::", False), ("192.168.1.4", False), ("example.org", False),
    ("localhost", True), ("127.0.0.1", True), ("127.1.2.3", True), ("::1", True), ("[::1]", True),
])
def test_loopback(address, loopback):
    assert is_loopback(address) is loopback


@pytest.mark.parametrize("env, address, shared", [
    ({}, "localhost", "open"), ({}, None, "read-only"), ({}, "0.0.0.0", "read-only"),
    ({"RAG_SHARED_STATE": "open"}, "0.0.0.0", "open"), ({"RAG_SHARED_STATE": "read-only"}, "127.0.0.1", "read-only"),
    ({"RAG_SHARED_STATE": "READ_ONLY"}, None, "read-only"),
])
def test_the_shared_state_default_follows_the_bind_address(env, address, shared):
    assert access_settings(env, login=False, bind_address=address).shared_state == shared


def test_settings_from_the_environment():
    got = access_settings({"RAG_ADMINS": " Root@Corp , ,ops", "RAG_RUN_VISIBILITY": "owner"}, login=True,
                          bind_address=None)
    assert got.admins == {"root@corp", "ops"} and got.run_visibility == "owner"
    for bad in ({"RAG_SHARED_STATE": "yes"}, {"RAG_RUN_VISIBILITY": "mine"}):
        with pytest.raises(SettingsError):
            access_settings(bad, login=False, bind_address=None)


def test_the_readme_s_first_command_listens_on_loopback_so_it_is_open():
    """`streamlit run app.py` reads the project's .streamlit/config.toml: its address keeps the full experience."""
    import tomllib

    from tests.support.browser import ROOT

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text("utf-8"))
    assert access_settings({}, login=False, bind_address=config["server"]["address"]).shared_state == "open"


@pytest.mark.parametrize("address, shared", [("0.0.0.0", "read-only"), ("127.0.0.1", "open"), ("", "read-only")])
def test_the_server_s_settings_read_streamlit_s_bind_address(monkeypatch, address, shared):
    from streamlit import config

    from rag.access import server_settings

    monkeypatch.delenv("RAG_SHARED_STATE", raising=False)
    before = config.get_option("server.address")
    config.set_option("server.address", address or None)
    try:
        assert server_settings(login=False).shared_state == shared
    finally:
        config.set_option("server.address", before)
