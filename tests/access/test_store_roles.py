"""The rows of docs/team_server.md at the stores' boundary (SQLite here; PostgreSQL in
tests/access/test_store_roles_postgres.py): whatever a page shows, the history, the feedback and the question sets
refuse what rag/access.py refuses, and record who owns what they keep (schema version 8)."""
from __future__ import annotations

import sqlite3

import pytest

from rag.access import AccessRefused, AccessSettings, Actor, Permit
from rag.errors import UnknownRunError
from rag.eval.cases import EvalCase
from rag.eval.question_sets import QuestionSetStore
from rag.runs import schema
from rag.runs.demo_pack import import_demo_runs
from rag.runs.export import export_run
from rag.runs.feedback import feedback_for_run, give_feedback, new_feedback, withdraw_feedback
from rag.runs.history import RunHistory
from rag.runs.importing import import_run

LOGIN = AccessSettings(login=True, admins=frozenset({"root@corp"}))
PRIVATE = LOGIN.model_copy(update={"run_visibility": "owner"})
ALICE, BOB = Permit(Actor(identity="alice@corp"), LOGIN), Permit(Actor(identity="bob@corp"), LOGIN)
ADMIN, NOBODY = Permit(Actor(identity="root@corp"), LOGIN), Permit(Actor(), LOGIN)
READ_ONLY = Permit(Actor(), AccessSettings(shared_state="read-only"))
OPEN = Permit(Actor(), AccessSettings(shared_state="open"))


@pytest.fixture
def history(tmp_path):
    with RunHistory(str(tmp_path / "history.db")) as found:
        yield found


def _run(history, permit: Permit) -> str:
    return history.record_start("q", owner=permit.owner, run_by=permit.owner).run_id


@pytest.mark.parametrize("permit, allowed", [(ALICE, True), (ADMIN, True), (BOB, False), (NOBODY, False),
                                             (READ_ONLY, False), (OPEN, True)])
def test_deleting_a_run(history, permit, allowed):
    run = _run(history, ALICE)
    if allowed:
        history.delete_run(run, permit)
        assert not history.has_run(run)
    else:
        with pytest.raises(AccessRefused):
            history.delete_run(run, permit)
        assert history.has_run(run)


def test_a_run_without_an_owner_is_the_admins(history):
    run = _run(history, NOBODY)
    with pytest.raises(AccessRefused):
        history.delete_run(run, ALICE)
    history.delete_run(run, ADMIN)


def test_private_runs_list_and_open_for_their_owner_only(history):
    mine, theirs = _run(history, BOB), _run(history, ALICE)
    bob = Permit(BOB.actor, PRIVATE)
    assert [r.run_id for r in history.list_runs(permit=bob)] == [mine]
    assert history.people(bob) == ["bob@corp"]
    assert {r.run_id for r in history.list_runs(permit=Permit(ADMIN.actor, PRIVATE))} == {mine, theirs}
    assert history.visible_run(mine, bob).run_id == mine
    messages = []
    for run_id in (theirs, "main-missing"):
        with pytest.raises(UnknownRunError) as err:
            history.visible_run(run_id, bob)
        messages.append(str(err.value))
    assert messages[0] == messages[1] == "That run is not available."
    with pytest.raises(UnknownRunError):  # deleting says no more than opening
        history.delete_run(theirs, bob)


def test_an_import_is_owned_by_who_imported_it_never_by_what_the_file_says(history, tmp_path):
    with RunHistory(str(tmp_path / "other.db")) as there:
        run = import_demo_runs(there)[0].run_id
        doc = export_run(there, run)
    doc["run"] = {**doc["run"], "owner": "root@corp", "run_by": "root@corp"}
    from rag.runs.run_document import checksum

    doc.pop("sha256", None)
    doc["sha256"] = checksum(doc)
    info = import_run(doc, history, BOB)
    assert info.owner == "bob@corp" and info.run_by == "root@corp"  # run_by is only claimed
    for refused in (NOBODY, READ_ONLY):
        with pytest.raises(AccessRefused):
            import_run(doc, history, refused)


def test_a_private_run_re_imported_by_another_becomes_a_copy_of_their_own(history):
    alice = Permit(ALICE.actor, PRIVATE)
    run = import_demo_runs(history)[0].run_id
    history.storage.execute("UPDATE runs SET owner='alice@corp' WHERE run_id=?", (run,))
    doc = export_run(history, run)
    copy = import_run(doc, history, Permit(BOB.actor, PRIVATE))
    assert copy.run_id != run and copy.owner == "bob@corp"
    assert import_run(doc, history, alice).run_id == run  # the owner's own re-import is the same run again


def test_feedback_is_owned_and_withdrawn_by_its_owner_or_an_admin(history):
    run = _run(history, ALICE)
    given = give_feedback(history, new_feedback(run, verdict="good", given_by="alice@corp"), ALICE)
    assert feedback_for_run(history, run)[0].owner == "alice@corp"
    with pytest.raises(AccessRefused):
        withdraw_feedback(history, run, given.feedback_id, given_by="alice@corp", permit=BOB)
    with pytest.raises(AccessRefused):
        give_feedback(history, new_feedback(run, verdict="wrong", reason="other", given_by="alice@corp"), NOBODY)
    assert [f.verdict for f in feedback_for_run(history, run)] == ["good"]  # a typed name replaced nothing
    forged = give_feedback(history, new_feedback(run, verdict="wrong", reason="other", given_by="alice@corp"), BOB)
    assert forged.given_by == "bob@corp"  # a member speaks in their own name, never in another's
    assert sorted((f.given_by, f.verdict) for f in feedback_for_run(history, run)) == [("alice@corp", "good"),
                                                                                       ("bob@corp", "wrong")]
    assert withdraw_feedback(history, run, given.feedback_id, given_by="", permit=ADMIN) is True


@pytest.mark.parametrize("permit, edit", [(ALICE, True), (ADMIN, True), (BOB, False), (NOBODY, False),
                                          (READ_ONLY, False), (OPEN, True)])
def test_question_sets_are_edited_and_deleted_by_their_owner(history, permit, edit):
    store = QuestionSetStore(history.storage)
    made = store.create("Alice's set", [EvalCase(question="q1")], by="alice", permit=ALICE)
    assert made.owner == "alice@corp"
    attempts = [
        lambda: store.add_case(made.set_id, EvalCase(question="q2"), permit=permit),
        lambda: store.rename(made.set_id, "Renamed", version=store.get(made.set_id).version, permit=permit),
        lambda: store.delete(made.set_id, version=store.get(made.set_id).version, permit=permit),
    ]
    for attempt in attempts:
        if edit:
            attempt()
        else:
            with pytest.raises(AccessRefused):
                attempt()
    if not edit:
        assert store.get(made.set_id).name == "Alice's set"


@pytest.mark.parametrize("permit, create", [(BOB, True), (ADMIN, True), (OPEN, True), (NOBODY, False),
                                            (READ_ONLY, False)])
def test_creating_a_question_set(history, permit, create):
    store = QuestionSetStore(history.storage)
    if create:
        assert store.create("Mine", permit=permit).owner == permit.owner
    else:
        with pytest.raises(AccessRefused):
            store.create("Mine", permit=permit)
        assert store.list_sets() == []


def _at_version_7(execute, engine: str) -> None:
    execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, "
            "applied_at TEXT NOT NULL)")
    for version, what, steps in schema.MIGRATIONS[:7]:
        for sql in steps[engine]:
            execute(sql)
        execute("INSERT INTO schema_version VALUES ({}, '{}', 'then')".format(version, what.replace("'", "''")))
    execute("INSERT INTO runs (run_id, thread_id, kind, question, created_at, status) "
            "VALUES ('main-v7', 'main-v7', 'main', 'before owners', '2026-01-01T00:00:00+00:00', 'done')")
    execute("INSERT INTO feedback (feedback_id, run_id, verdict, given_by, given_at, origin) "
            "VALUES ('f-old', 'main-v7', 'good', 'alice@corp', '2026-01-01T00:00:00+00:00', 'given')")


def _check_migrated(history: RunHistory) -> None:
    assert history.get_run("main-v7").owner == ""  # made before owners: the admins'
    with pytest.raises(AccessRefused):
        history.delete_run("main-v7", ALICE)
    # one voice per person now counts feedback given here only: a carried claim sits beside Alice's entry
    history.storage.execute("INSERT INTO feedback (feedback_id, run_id, verdict, reason, given_by, given_at, origin, "
                            "owner) VALUES ('f-file', 'main-v7', 'wrong', 'other', 'alice@corp', '2099-01-01T00:00:00+00:00', "
                            "'imported', '')")
    assert sorted(f.feedback_id for f in feedback_for_run(history, "main-v7")) == ["f-file", "f-old"]
    try:  # two entries given here by one person are still refused by the index
        history.storage.execute("INSERT INTO feedback (feedback_id, run_id, verdict, given_by, given_at, origin) "
                                "VALUES ('f-2', 'main-v7', 'good', 'alice@corp', '2026-02-01', 'given')")
    except Exception as exc:  # noqa: BLE001 - each engine's own unique-violation type
        assert history.storage.is_duplicate(exc), exc
    else:
        pytest.fail("a second entry given by the same person was accepted")


def test_migration_8_on_a_version_7_sqlite_history(tmp_path):
    path = tmp_path / "v7.db"
    conn = sqlite3.connect(path)
    _at_version_7(conn.execute, "sqlite")
    conn.commit()
    conn.close()
    with RunHistory(path) as history:
        assert schema.LATEST == 8
        _check_migrated(history)
