"""The saved-evaluation rows of docs/team_server.md at the store's boundary (rag/eval/results_store.py, SQLite: the store
has no PostgreSQL engine, it lives in the history file): anyone saves a new evaluation, its owner or an admin
overwrites, extends and deletes it, private evaluations (`RAG_RUN_VISIBILITY=owner`) list, name and open for
their owner only, and a file made before owners gets the column, its rows the admins'."""
from __future__ import annotations

import sqlite3

import pytest

from rag.access import AccessRefused, AccessSettings, Actor, Permit
from rag.errors import UnknownRunError
from rag.eval.results_store import EvalRecord, EvalStore
from rag.eval.scoring import CaseResult

LOGIN = AccessSettings(login=True, admins=frozenset({"root@corp"}))
PRIVATE = LOGIN.model_copy(update={"run_visibility": "owner"})
ALICE, BOB = Permit(Actor(identity="alice@corp"), LOGIN), Permit(Actor(identity="bob@corp"), LOGIN)
ADMIN, NOBODY = Permit(Actor(identity="root@corp"), LOGIN), Permit(Actor(), LOGIN)
READ_ONLY = Permit(Actor(), AccessSettings(shared_state="read-only"))
OPEN = Permit(Actor(), AccessSettings(shared_state="open"))
RESULTS = [CaseResult("a", "answer", "answer", ("x.md",), ("x.md",), None, ("en",), "q1?", None, 12.0)]


def _private(permit: Permit) -> Permit:
    return Permit(permit.actor, PRIVATE)


@pytest.fixture
def store(tmp_path):
    return EvalStore(tmp_path / "history.db")


def _saved(store: EvalStore, permit: Permit, label: str = "A", **fields) -> EvalRecord:
    return store.save(EvalRecord.from_results(RESULTS, set_name="s.jsonl", label=label, **fields), permit=permit)


@pytest.mark.parametrize("permit", [ALICE, BOB, ADMIN, NOBODY, READ_ONLY, OPEN])
def test_anyone_saves_a_new_evaluation_and_owns_it(store, permit):
    record = _saved(store, permit)
    assert store.owner(record.eval_id) == permit.owner
    assert store.get(record.eval_id).label == "A"


@pytest.mark.parametrize("permit, allowed", [(ALICE, True), (ADMIN, True), (BOB, False), (NOBODY, False),
                                             (READ_ONLY, False), (OPEN, True)])
def test_overwriting_a_saved_evaluation(store, permit, allowed):
    record = _saved(store, ALICE)
    changed = record.model_copy(update={"label": "changed"})
    if allowed:
        store.save(changed, permit=permit)
        assert store.get(record.eval_id).label == "changed"
        assert store.owner(record.eval_id) == "alice@corp"  # an overwrite keeps the owner
    else:
        with pytest.raises(AccessRefused):
            store.save(changed, permit=permit)
        assert store.get(record.eval_id).label == "A"


@pytest.mark.parametrize("permit, allowed", [(ALICE, True), (ADMIN, True), (BOB, False), (NOBODY, False),
                                             (READ_ONLY, False), (OPEN, True)])
def test_adding_a_configuration_to_a_saved_comparison(store, permit, allowed):
    a = _saved(store, ALICE)
    if allowed:
        _saved(store, permit, "B", group_id=a.group_id)
        assert [r.label for r in store.group(a.group_id)] == ["A", "B"]
    else:
        with pytest.raises(AccessRefused):
            _saved(store, permit, "B", group_id=a.group_id)
        assert [r.label for r in store.group(a.group_id)] == ["A"]


@pytest.mark.parametrize("permit, allowed", [(ALICE, True), (ADMIN, True), (BOB, False), (NOBODY, False),
                                             (READ_ONLY, False), (OPEN, True)])
def test_deleting_a_saved_evaluation(store, permit, allowed):
    a = _saved(store, ALICE)
    if allowed:
        store.delete_group(a.group_id, permit=permit)
        assert store.groups() == []
    else:
        with pytest.raises(AccessRefused):
            store.delete_group(a.group_id, permit=permit)
        assert [g[0] for g in store.groups()] == [a.group_id]


def test_an_evaluation_without_an_owner_is_the_admins(store):
    record = _saved(store, NOBODY)
    with pytest.raises(AccessRefused):
        store.delete_group(record.group_id, permit=ALICE)
    with pytest.raises(AccessRefused):
        store.save(record.model_copy(update={"label": "x"}), permit=ALICE)
    store.delete_group(record.group_id, permit=ADMIN)
    with pytest.raises(UnknownRunError):
        store.get(record.eval_id)


def test_a_comparison_holding_another_s_configuration_is_deleted_by_an_admin_only(store):
    a = _saved(store, ALICE)
    _saved(store, ADMIN, "B", group_id=a.group_id)  # an admin may extend anyone's
    with pytest.raises(AccessRefused):
        store.delete_group(a.group_id, permit=ALICE)
    store.delete_group(a.group_id, permit=ADMIN)
    assert store.groups() == []


def test_private_evaluations_list_name_and_open_for_their_owner_only(store):
    mine, theirs = _saved(store, BOB, "mine"), _saved(store, ALICE, "theirs")
    bob = _private(BOB)
    assert [g[0] for g in store.groups(permit=bob)] == [mine.group_id]
    assert store.names([mine.eval_id, theirs.eval_id], permit=bob) == {mine.eval_id: ("s.jsonl", "mine")}
    assert store.group(theirs.group_id, permit=bob) == []
    with pytest.raises(UnknownRunError) as hidden:
        store.get(theirs.eval_id, permit=bob)
    with pytest.raises(UnknownRunError) as missing:
        store.get("no-such-id", permit=bob)
    assert str(hidden.value).replace(theirs.eval_id, "X") == str(missing.value).replace("no-such-id", "X")
    with pytest.raises(UnknownRunError):  # what one cannot see, one cannot delete (nor learn it exists)
        store.delete_group(theirs.group_id, permit=bob)
    # admins, and everyone when evaluations are not private, see both
    assert len(store.groups(permit=_private(ADMIN))) == 2 and len(store.groups(permit=BOB)) == 2
    assert store.get(theirs.eval_id, permit=_private(ADMIN)).label == "theirs"


def test_a_store_made_before_owners_gets_the_column_and_its_rows_are_the_admins(tmp_path):
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as con:  # the table as every file before owners has it
        con.execute("CREATE TABLE eval_runs (eval_id TEXT PRIMARY KEY, group_id TEXT NOT NULL, created_at TEXT NOT "
                    "NULL, set_name TEXT NOT NULL, label TEXT NOT NULL, record TEXT NOT NULL)")
        old = EvalRecord.from_results(RESULTS, set_name="old.jsonl", label="A", group_id="g-old", eval_id="e-old")
        con.execute("INSERT INTO eval_runs VALUES (?, ?, ?, ?, ?, ?)",
                    (old.eval_id, old.group_id, old.created_at, old.set_name, old.label, old.model_dump_json()))
    con.close()
    store = EvalStore(path)
    assert store.owner("e-old") == "" and store.get("e-old").label == "A"
    with pytest.raises(AccessRefused):
        store.delete_group("g-old", permit=ALICE)
    EvalStore(path)  # opening again migrates nothing and loses nothing
    assert [g[0] for g in store.groups()] == ["g-old"]
    store.delete_group("g-old", permit=ADMIN)
