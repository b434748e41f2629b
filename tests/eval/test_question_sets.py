"""Named question sets beside the run history, on both engines (an SQLite file and the suite's real
PostgreSQL server): create, list, add / edit / remove a case, rename, delete, a taken name, and two
people editing one set at once (the second writer is told, nothing is lost)."""
from __future__ import annotations

import threading

import pytest

from rag.eval.cases import EvalCase, parse_cases
from rag.eval.question_sets import (
    QuestionSetError,
    QuestionSetStore,
    SetEditConflict,
    SetNameTaken,
    UnknownSetError,
    check_name,
    name_key,
    set_jsonl,
)
from rag.runs import schema
from rag.runs.history import RunHistory


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "history.db")
    return request.getfixturevalue("postgres_server").new_schema()


@pytest.fixture
def store(target):
    history = RunHistory(target)
    yield QuestionSetStore(history.storage)
    history.close()


def case(question: str, **fields) -> EvalCase:
    return EvalCase(question=question, **fields)


@pytest.mark.parametrize(("name", "shown"), [
    ("smoke", "smoke"), ("  two   words ", "two words"), ("烟雾测试", "烟雾测试"), ("x" * 80, "x" * 80),
])
def test_set_names_that_are_kept(name, shown):
    assert check_name(name) == shown


@pytest.mark.parametrize(("name", "problem"), [
    ("", "needs a name"), ("   ", "needs a name"), ("x" * 81, "at most 80"), ("a\u200bb", "invisible"),
    ("bell\x07", "control"),
])
def test_set_names_that_are_refused(name, problem):
    with pytest.raises(QuestionSetError, match=problem):
        check_name(name)


def test_names_compare_without_case():
    assert name_key("Smoke Set") == name_key("smoke set") == name_key(" SMOKE   set ")


def test_migration_5_creates_the_set_tables(target):
    with RunHistory(target) as history:
        versions = [r[0] for r in history.storage.execute("SELECT version FROM schema_version ORDER BY version")]
        assert 5 in versions and versions[-1] == schema.LATEST
    with RunHistory(target) as again:  # opening again migrates nothing and keeps the sets
        QuestionSetStore(again.storage).create("kept")
    with RunHistory(target) as third:
        assert [s.name for s in QuestionSetStore(third.storage).list_sets()] == ["kept"]


def test_create_add_edit_remove_rename_delete(store):
    made = store.create("Smoke", by="ana")
    assert (made.name, made.version, made.cases, made.created_by) == ("Smoke", 1, [], "ana")
    first = store.add_case(made.set_id, case("Q one?", expected_route="answer", from_run="main-abc", verdict="good"),
                           by="ana")
    second = store.add_case(made.set_id, case("Q two?", id="mine"), by="bo")
    third = store.add_case(made.set_id, case("Q three?"))
    assert (first.case.id, second.case.id, third.case.id) == ("q1", "mine", "q3")
    got = store.get(made.set_id)
    assert [c.case.question for c in got.cases] == ["Q one?", "Q two?", "Q three?"]
    assert got.cases[0].case.from_run == "main-abc" and got.cases[0].case.verdict == "good"
    assert got.version == 4 and got.updated_by == ""

    edited = store.update_case(made.set_id, "q1", case("Q one, edited?", expected_route="no_knowledge"),
                               version=first.version, by="bo")
    assert edited.version == 2 and edited.case.id == "q1"
    store.remove_case(made.set_id, "mine", version=second.version)
    got = store.get(made.set_id)
    assert [(c.case.id, c.case.question) for c in got.cases] == [("q1", "Q one, edited?"), ("q3", "Q three?")]
    assert got.cases[0].updated_by == "bo"

    renamed = store.rename(made.set_id, "Smoke v2", version=got.version)
    assert renamed.name == "Smoke v2" and store.find("smoke V2").set_id == made.set_id
    assert [(s.name, s.cases) for s in store.list_sets()] == [("Smoke v2", 2)]
    store.delete(made.set_id, version=renamed.version)
    assert store.list_sets() == []
    with pytest.raises(UnknownSetError, match="no question set named 'Smoke v2'"):
        store.find("Smoke v2")


def test_a_taken_name_is_refused_on_create_and_rename(store):
    store.create("Regression")
    other = store.create("Other")
    with pytest.raises(SetNameTaken, match="a question set named 'regression' already exists"):
        store.create("regression")
    with pytest.raises(SetNameTaken, match="already exists"):
        store.rename(other.set_id, "REGRESSION", version=other.version)
    assert sorted(s.name for s in store.list_sets()) == ["Other", "Regression"]
    # renaming a set to its own name in another case is allowed
    assert store.rename(other.set_id, "OTHER", version=other.version).name == "OTHER"


def test_a_case_id_taken_in_the_set_is_refused(store):
    made = store.create("ids")
    store.add_case(made.set_id, case("a?", id="same"))
    with pytest.raises(QuestionSetError, match="already has a case with id 'same'"):
        store.add_case(made.set_id, case("b?", id="same"))
    assert len(store.get(made.set_id).cases) == 1
    # a generated id skips one a person already used
    store.add_case(made.set_id, case("c?", id="q4"))  # the third case: q3 is free, q4 is not
    assert store.add_case(made.set_id, case("d?")).case.id == "q3"
    assert store.add_case(made.set_id, case("e?")).case.id == "q5"


def test_two_people_editing_one_case_the_second_is_told_and_nothing_is_lost(store):
    made = store.create("shared")
    stored = store.add_case(made.set_id, case("original?"))
    # both opened the case at version 1
    store.update_case(made.set_id, stored.case.id, case("Ana's edit?"), version=stored.version, by="ana")
    with pytest.raises(SetEditConflict, match=r"case 'q1' was changed by ana at .* nothing was written"):
        store.update_case(made.set_id, stored.case.id, case("Bo's edit?"), version=stored.version, by="bo")
    with pytest.raises(SetEditConflict, match="changed by ana"):
        store.remove_case(made.set_id, stored.case.id, version=stored.version, by="bo")
    assert store.get(made.set_id).cases[0].case.question == "Ana's edit?"


def test_an_edit_of_a_removed_case_or_a_deleted_set_is_refused(store):
    made = store.create("gone")
    stored = store.add_case(made.set_id, case("q?"))
    store.remove_case(made.set_id, "q1", version=1)
    with pytest.raises(SetEditConflict, match="removed by someone else"):
        store.update_case(made.set_id, "q1", case("late?"), version=stored.version)
    current = store.get(made.set_id)
    store.delete(made.set_id, version=current.version)
    with pytest.raises(UnknownSetError, match="someone deleted it"):
        store.add_case(made.set_id, case("late?"))
    with pytest.raises(SetEditConflict, match="someone deleted it"):
        store.rename(made.set_id, "new", version=current.version)


def test_rename_or_delete_of_a_set_that_changed_meanwhile_is_refused(store):
    made = store.create("busy")
    store.add_case(made.set_id, case("added by someone else?"), by="bo")  # bumps the set's version
    with pytest.raises(SetEditConflict, match="set 'busy' was changed by bo"):
        store.delete(made.set_id, version=made.version)
    with pytest.raises(SetEditConflict, match="changed by bo"):
        store.rename(made.set_id, "renamed", version=made.version)
    assert store.get(made.set_id).cases[0].case.question == "added by someone else?"


def test_concurrent_writers_exactly_one_edit_wins(target):
    """Eight threads (each with its own history handle, as eight app servers would) edit the same case from
    the same version at once: one is written, seven are told, and the stored case is the winner's."""
    with RunHistory(target) as history:
        store = QuestionSetStore(history.storage)
        made = store.create("race")
        stored = store.add_case(made.set_id, case("start?"))
    outcomes: dict[int, str] = {}
    barrier = threading.Barrier(8)

    def edit(i: int) -> None:
        with RunHistory(target) as mine:
            own = QuestionSetStore(mine.storage)
            barrier.wait()
            try:
                own.update_case(made.set_id, "q1", case(f"edit {i}?"), version=stored.version, by=f"p{i}")
                outcomes[i] = "written"
            except SetEditConflict:
                outcomes[i] = "conflict"

    threads = [threading.Thread(target=edit, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [i for i, o in outcomes.items() if o == "written"]
    assert len(outcomes) == 8 and len(winners) == 1
    with RunHistory(target) as history:
        final = QuestionSetStore(history.storage).get(made.set_id).cases[0]
    assert final.case.question == f"edit {winners[0]}?" and final.version == 2


def test_concurrent_additions_all_land_with_distinct_ids(target):
    with RunHistory(target) as history:
        made = QuestionSetStore(history.storage).create("adds")
    errors: list[BaseException] = []

    def add(i: int) -> None:
        try:
            with RunHistory(target) as mine:
                QuestionSetStore(mine.storage).add_case(made.set_id, case(f"added {i}?"))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=add, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    with RunHistory(target) as history:
        cases = QuestionSetStore(history.storage).get(made.set_id).cases
    assert sorted(c.case.question for c in cases) == sorted(f"added {i}?" for i in range(6))
    assert len({c.case.id for c in cases}) == 6


def test_a_set_downloads_as_rag_eval_json_lines_and_reads_back(store):
    cases = [case("Q one?", id="a", expected_route="answer", expected_sources=["x.md"], tags=["t"],
                  from_run="main-0123", verdict="wrong"),
             case("Q two?", id="b", hitl_answer="Nova")]
    made = store.create("round trip", cases)
    text = set_jsonl(store.get(made.set_id).eval_cases())
    assert text.splitlines()[1] == '{"id": "b", "question": "Q two?", "hitl_answer": "Nova"}'
    assert parse_cases(text.splitlines()) == cases


def test_a_set_created_with_duplicate_case_ids_is_refused_whole(store):
    with pytest.raises(QuestionSetError, match="same id"):
        store.create("dups", [case("a?", id="x"), case("b?", id="x")])
    assert store.list_sets() == []
