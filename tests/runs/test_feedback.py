"""Feedback on runs (rag/runs/feedback.py): the rules as tables, storage (one voice per named person, a deleted
run, the Run history filters and pages in SQL), the version 4 migration of an older history, and exports /
imports that carry feedback. The storage and migration tests run on PostgreSQL too:
tests/runs/test_feedback_postgres.py."""
from __future__ import annotations

import json
import sqlite3

import pytest

from rag.errors import RunImportError
from rag.runs import schema
from rag.runs.demo_pack import import_demo_runs
from rag.runs.export import export_run
from rag.runs.feedback import (
    NOTE_MAX_CHARS,
    Expected,
    Feedback,
    FeedbackError,
    Summary,
    expected_from_feedback,
    feedback_for_run,
    feedback_problem,
    give_feedback,
    merge_carried,
    new_feedback,
    split_items,
    summaries,
    summary_text,
    withdraw_feedback,
)
from rag.runs.history import RunHistory
from rag.runs.importing import import_run
from rag.runs.run_document import checksum

# ----- rules ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("verdict", "reason", "note", "sources", "words", "problem"), [
    ("good", None, "", [], [], None),
    ("wrong", "wrong_route", "the retriever missed it", [], [], None),
    ("wrong", "other", "x" * NOTE_MAX_CHARS, [], [], None),
    ("wrong", "other", "x" * (NOTE_MAX_CHARS + 1), [], [], "The note is 2,001 characters long"),
    (None, None, "", [], [], "Choose a verdict"),
    ("meh", None, "", [], [], "Choose a verdict"),
    ("wrong", None, "", [], [], "Say why the run is wrong"),
    ("good", "bad_answer", "", [], [], "A reason is for a wrong run"),
    ("wrong", "bad_vibes", "", [], [], "'bad_vibes' is not a reason"),
    ("wrong", "missing_evidence", "", ["a.md"] * 21, [], "At most 20 expected sources; 21 were given"),
    ("wrong", "bad_answer", "", [], ["w" * 201], "One of the words the answer must contain is 201 characters"),
])
def test_feedback_rules(verdict, reason, note, sources, words, problem):
    found = feedback_problem(verdict, reason, note, sources, words)
    assert (found is None) if problem is None else (found is not None and found.startswith(problem)), found


def test_a_note_over_the_limit_is_refused_plainly_not_cut():
    with pytest.raises(FeedbackError, match=r"The note is 5,000 characters long; a note can be at most 2,000"):
        new_feedback("main-1", verdict="wrong", reason="other", note="n" * 5000)


@pytest.mark.parametrize(("text", "items"), [
    ("", []),
    (None, []),
    ("a.md, b.md", ["a.md", "b.md"]),
    ("a.md\nb.md\n\n", ["a.md", "b.md"]),
    ("面积，价格, 面积", ["面积", "价格"]),
])
def test_split_items(text, items):
    assert split_items(text) == items


def _fb(verdict="wrong", route=None, at="2026-01-01T00:00:00", by="", reason="wrong_route", fid=None):
    return Feedback(feedback_id=fid or f"{by}-{at}", run_id="main-1", verdict=verdict,
                    reason=reason if verdict == "wrong" else None, expected=Expected(route=route) if route else None,
                    given_by=by, given_at=at)


@pytest.mark.parametrize(("items", "route"), [
    ([], None),
    ([_fb("good")], None),
    ([_fb("wrong")], None),  # wrong, but no route said: nothing to correct
    ([_fb("wrong", "no_knowledge")], "no_knowledge"),
    ([_fb("wrong", "clarify", at="2026-01-01T00:00:01"), _fb("wrong", "no_knowledge", at="2026-01-02T00:00:00")],
     "no_knowledge"),  # the newest correction wins
    ([_fb("wrong", "no_knowledge", at="2026-01-03"), _fb("good", at="2026-01-04")], "no_knowledge"),
])
def test_expected_from_feedback(items, route):
    found = expected_from_feedback(items)
    assert (found.route if found else None) == route


@pytest.mark.parametrize(("summary", "text"), [
    (None, ""), (Summary(), ""), (Summary(wrong=2), "wrong ×2"), (Summary(good=1, wrong=2), "wrong ×2 · good ×1"),
    (Summary(good=3), "good ×3"), (Summary(wrong=1, carried=2), "wrong ×1 · carried ×2"), (Summary(carried=1), "carried ×1"),
])
def test_summary_text(summary, text):
    assert summary_text(summary) == text


def test_merging_carried_feedback():
    ann_old = _fb(by="ann", at="2026-01-01", fid="a1")
    ann_new = _fb(by="ann", at="2026-02-01", fid="a2")
    anon = _fb(by="", at="2026-01-05", fid="x1")
    # the same entry again: nothing; anything else is added beside, never in place of, what is there
    assert merge_carried([ann_old], [ann_old]) == []
    assert merge_carried([ann_old], [ann_new]) == [ann_new]
    assert merge_carried([ann_new], [ann_old, ann_old]) == [ann_old]
    assert merge_carried([anon], [_fb(by="", at="2026-01-06", fid="x2")])[0].feedback_id == "x2"


# ----- storage, on both engines ---------------------------------------------------------------------------------


@pytest.fixture
def history(tmp_path):
    """An SQLite history; tests/runs/test_feedback_postgres.py runs the same storage tests on PostgreSQL."""
    with RunHistory(str(tmp_path / "history.db")) as found:
        yield found


def _run(history: RunHistory, question: str = "q", created_at: str | None = None) -> str:
    run_id = history.record_start(question).run_id
    if created_at:
        history.storage.execute("UPDATE runs SET created_at=? WHERE run_id=?", (created_at, run_id))
    return run_id


def test_several_people_one_voice_each(history):
    run = _run(history)
    give_feedback(history, new_feedback(run, verdict="wrong", reason="wrong_route", given_by="ann",
                                        expected=Expected(route="no_knowledge", sources=["a.md"])))
    give_feedback(history, new_feedback(run, verdict="good", given_by="bo"))
    give_feedback(history, new_feedback(run, verdict="good", given_by="ann"))  # ann changed her mind
    give_feedback(history, new_feedback(run, verdict="wrong", reason="other", note="one"))
    give_feedback(history, new_feedback(run, verdict="wrong", reason="other", note="two"))  # anonymous: both kept
    items = feedback_for_run(history, run)
    assert sorted((f.given_by, f.verdict) for f in items) == [("", "wrong"), ("", "wrong"), ("ann", "good"),
                                                             ("bo", "good")]
    assert summaries(history, [run, "main-none"]) == {run: Summary(good=2, wrong=2)}
    assert all(f.given_at for f in items)


def test_feedback_round_trips_expected_and_markup(history):
    run = _run(history)
    note = "**bold** <img src=x onerror=alert(1)> [link](http://evil.example)"
    given = give_feedback(history, new_feedback(run, verdict="wrong", reason="bad_answer", note=note, given_by="ann",
                                                expected=Expected(route="clarify", answer_words=["面积"])))
    [stored] = feedback_for_run(history, run)
    assert stored == given and stored.note == note and stored.expected.answer_words == ["面积"]
    assert expected_from_feedback([stored]).route == "clarify"


def test_feedback_on_a_deleted_run_is_refused_and_deleting_removes_it(history):
    run = _run(history)
    give_feedback(history, new_feedback(run, verdict="wrong", reason="other", given_by="ann"))
    history.delete_run(run)
    assert history.storage.execute("SELECT COUNT(*) FROM feedback", ())[0][0] == 0
    with pytest.raises(FeedbackError, match="no longer in the run history"):
        give_feedback(history, new_feedback(run, verdict="good", given_by="bo"))
    with pytest.raises(FeedbackError):
        give_feedback(history, new_feedback("main-never", verdict="good"))
    assert history.storage.execute("SELECT COUNT(*) FROM feedback", ())[0][0] == 0


def test_only_the_author_withdraws(history):
    run = _run(history)
    mine = give_feedback(history, new_feedback(run, verdict="wrong", reason="other", given_by="ann"))
    assert withdraw_feedback(history, run, mine.feedback_id, given_by="bo") is False
    assert withdraw_feedback(history, run, mine.feedback_id, given_by="ann") is True
    assert feedback_for_run(history, run) == []


def test_run_history_filters_and_pages_in_sql(history):
    runs = [_run(history, f"q{i}", f"2026-01-01T00:00:{i:02d}+00:00") for i in range(12)]  # runs[-1] newest
    give_feedback(history, new_feedback(runs[3], verdict="wrong", reason="other", given_by="ann"))
    give_feedback(history, new_feedback(runs[3], verdict="wrong", reason="bad_answer", given_by="bo"))
    give_feedback(history, new_feedback(runs[5], verdict="good", given_by="ann"))
    give_feedback(history, new_feedback(runs[9], verdict="wrong", reason="wrong_route"))
    assert [r.run_id for r in history.list_runs(feedback="wrong")] == [runs[9], runs[3]]  # once each, newest first
    assert [r.run_id for r in history.list_runs(feedback="any")] == [runs[9], runs[5], runs[3]]
    assert [r.run_id for r in history.list_runs(feedback="wrong", limit=1, offset=1)] == [runs[3]]
    assert [r.run_id for r in history.list_runs(limit=5, offset=5)] == runs[6:1:-1]
    assert [r.run_id for r in history.list_runs(limit=5, offset=10)] == runs[1::-1]
    assert len(history.list_runs(forks="no_forks")) == 12 and history.list_runs(forks="forks") == []


def test_the_wrong_filter_uses_the_feedback_index(tmp_path):
    """The filter probes `feedback` by run id (an index), never a scan of every feedback row per run."""
    with RunHistory(tmp_path / "h.db") as history:
        from rag.runs.queries import FEEDBACK_WHERE

        plan = history.storage.execute(f"EXPLAIN QUERY PLAN SELECT run_id FROM runs WHERE {FEEDBACK_WHERE['wrong']} "
                                       "ORDER BY created_at DESC LIMIT 51", ())
        text = " ".join(str(row[-1]) for row in plan)
        assert "USING INDEX runs_created" in text and "SEARCH f USING COVERING INDEX feedback_" in text, text
        assert "SCAN f" not in text and "TEMP B-TREE" not in text, text


# ----- the migration ----------------------------------------------------------------------------------------------


def _versions(history: RunHistory) -> list[int]:
    return [r[0] for r in history.storage.execute("SELECT version FROM schema_version ORDER BY version", ())]


def _at_version_3(execute, engine: str) -> None:
    """A history as the app left it before feedback (migrations 1-3), with one run."""
    execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, "
            "applied_at TEXT NOT NULL)")
    for version, what, steps in schema.MIGRATIONS[:3]:
        for sql in steps[engine]:
            execute(sql)
        execute("INSERT INTO schema_version VALUES ({}, '{}', 'then')".format(version, what.replace("'", "''")))
    execute("INSERT INTO runs (run_id, thread_id, kind, question, created_at, status) "
            "VALUES ('main-v3', 'main-v3', 'main', 'before feedback', '2026-01-01T00:00:00+00:00', 'done')")


def test_migration_4_adds_feedback_to_a_version_3_sqlite_history(tmp_path):
    path = tmp_path / "v3.db"
    conn = sqlite3.connect(path)
    _at_version_3(conn.execute, "sqlite")
    conn.commit()
    conn.close()
    with RunHistory(path) as history:
        assert 4 in _versions(history) and history.get_run("main-v3").question == "before feedback"
        assert history.list_runs(feedback="any") == []
        give_feedback(history, new_feedback("main-v3", verdict="wrong", reason="other", given_by="ann"))
    with RunHistory(path) as again:  # opening again migrates nothing and keeps the feedback
        assert _versions(again) == list(range(1, schema.LATEST + 1))
        assert [r.run_id for r in again.list_runs(feedback="wrong")] == ["main-v3"]


# ----- exports and imports carry feedback ---------------------------------------------------------------------


def test_an_export_carries_feedback_and_an_import_brings_it_back(tmp_path):
    with RunHistory(tmp_path / "a.db") as here, RunHistory(tmp_path / "b.db") as there:
        run = import_demo_runs(here)[0].run_id
        give_feedback(here, new_feedback(run, verdict="wrong", reason="wrong_route", note="<b>not bold</b>",
                                         given_by="ann", expected=Expected(route="no_knowledge")))
        doc = export_run(here, run)
        assert checksum(doc) == doc["sha256"] and [f["given_by"] for f in doc["feedback"]] == ["ann"]
        info = import_run(json.dumps(doc), there)
        [carried] = feedback_for_run(there, info.run_id)
        assert (carried.verdict, carried.note, carried.origin) == ("wrong", "<b>not bold</b>", "imported")
        assert [r.run_id for r in there.list_runs(feedback="wrong")] == [info.run_id]
        # feedback given on the imported copy travels on with it, next to what the file brought
        give_feedback(there, new_feedback(info.run_id, verdict="good", given_by="bo"))
        again = export_run(there, info.run_id)
        assert checksum(again) == again["sha256"] and {f["given_by"] for f in again["feedback"]} == {"ann", "bo"}
        # the same recording imported again: no second run, only the feedback it did not have
        assert import_run(again, here).run_id == run
        assert {f.given_by for f in feedback_for_run(here, run)} == {"ann", "bo"}


def test_an_import_with_broken_feedback_is_refused_with_its_field(tmp_path):
    with RunHistory(tmp_path / "a.db") as here, RunHistory(tmp_path / "b.db") as there:
        run = import_demo_runs(here)[0].run_id
        doc = export_run(here, run)
        doc["feedback"] = [{"feedback_id": "f1", "verdict": "wrong", "reason": "other", "given_at": "2026-01-01",
                            "note": "n" * (NOTE_MAX_CHARS + 1)}]
        doc["sha256"] = checksum(doc)
        with pytest.raises(RunImportError, match=r"broken at feedback\.0: .*note is 2,001 characters"):
            import_run(doc, there)
        doc["feedback"] = [{"feedback_id": "f1", "verdict": "maybe", "given_at": "2026-01-01"}]
        doc["sha256"] = checksum(doc)
        with pytest.raises(RunImportError, match=r"broken at feedback\.0\.verdict"):
            import_run(doc, there)
        doc["feedback"] = [{"feedback_id": "f1", "verdict": "good", "given_at": "**now** ![x](http://e/x.png)"}]
        doc["sha256"] = checksum(doc)
        with pytest.raises(RunImportError, match=r"broken at feedback\.0\.given_at: .*not an ISO 8601"):
            import_run(doc, there)
        assert there.list_runs() == []  # nothing half-imported


def test_a_key_pasted_into_a_note_is_redacted_in_the_export(tmp_path):
    from rag.settings import RagSettings

    secret = "sk-test-NOTE-LEAK-0123456789abcdef"
    with RunHistory(tmp_path / "a.db") as here:
        run = import_demo_runs(here)[0].run_id
        give_feedback(here, new_feedback(run, verdict="wrong", reason="other", note=f"key was {secret}"))
        doc = export_run(here, run, settings=RagSettings(openai_api_key=secret))
        assert secret not in json.dumps(doc) and "[redacted]" in doc["feedback"][0]["note"]


def test_a_live_run_exported_and_imported_into_its_own_history_copies_its_feedback(tmp_path):
    """The run id is taken by the live run, so the import is a new run; its feedback gets ids of its own."""
    with RunHistory(tmp_path / "a.db") as here:
        live = _run(here, "a live question")
        here.record_finish(live, status="done", result={"route": "answer"})
        doc = export_run(here, import_demo_runs(here)[0].run_id)  # a real recording, given the live run's id
        doc["run"] = {**doc["run"], "run_id": live}
        doc.pop("feedback", None)
        given = give_feedback(here, new_feedback(live, verdict="wrong", reason="other", given_by="ann"))
        doc["feedback"] = [given.model_dump(mode="json", exclude={"run_id", "origin"})]
        doc["sha256"] = checksum(doc)
        copy = import_run(doc, here)
        assert copy.run_id != live
        [carried] = feedback_for_run(here, copy.run_id)
        assert carried.feedback_id != given.feedback_id and carried.given_by == "ann"
        assert [f.feedback_id for f in feedback_for_run(here, live)] == [given.feedback_id]
