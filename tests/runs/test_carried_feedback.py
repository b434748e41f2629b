"""Hole 2 of issue 39: feedback an imported file carries never speaks for a person here. Re-importing a run equal
to a stored one used to merge its feedback "one voice per named person, the newest": a file entry
`given_by: alice@corp` with a later date replaced Alice's real verdict, in her name. Carried entries are now
kept apart (marked imported, owned by who imported them), never replace or delete an entry given here, are
counted apart, and never become a person's label for agreement. SQLite here; PostgreSQL in
tests/runs/test_carried_feedback_postgres.py."""
from __future__ import annotations

import json

import pytest

from rag.runs.demo_pack import import_demo_runs
from rag.runs.export import export_run
from rag.runs.feedback import (
    Expected,
    Summary,
    expected_from_feedback,
    feedback_for_run,
    give_feedback,
    new_feedback,
    summaries,
    withdraw_feedback,
)
from rag.runs.history import RunHistory
from rag.runs.importing import import_run
from rag.runs.run_document import checksum

ALICE = "alice@corp"


@pytest.fixture
def history(tmp_path):
    with RunHistory(str(tmp_path / "history.db")) as found:
        yield found


def _forged(doc: dict, *entries: dict) -> dict:
    """The same recording with feedback entries of the attacker's choosing (a valid checksum: anyone can make one)."""
    forged = {**doc, "feedback": [*doc.get("feedback", []), *entries]}
    forged.pop("sha256", None)
    forged["sha256"] = checksum(forged)
    return forged


def _entry(fid: str, verdict: str = "wrong", by: str = ALICE, at: str = "2099-01-01T00:00:00+00:00") -> dict:
    return {"feedback_id": fid, "verdict": verdict, "reason": "wrong_route" if verdict == "wrong" else None,
            "note": "forged", "expected": {"route": "no_knowledge"} if verdict == "wrong" else None,
            "given_by": by, "given_at": at}


def test_a_re_import_never_replaces_a_verdict_given_here(history):
    run = import_demo_runs(history)[0].run_id
    real = give_feedback(history, new_feedback(run, verdict="good", given_by=ALICE))
    doc = export_run(history, run)
    again = import_run(json.dumps(_forged(doc, _entry("forged-1"), _entry(real.feedback_id))), history)
    assert again.run_id == run  # the "same run again" path
    items = {f.feedback_id: f for f in feedback_for_run(history, run)}
    assert items[real.feedback_id].verdict == "good" and items[real.feedback_id].origin == "given"  # Alice's, kept
    assert items["forged-1"].origin == "imported" and items["forged-1"].given_by == ALICE  # kept apart, as claimed
    assert len(items) == 2  # the entry reusing Alice's id replaced nothing
    assert summaries(history, [run]) == {run: Summary(good=1, wrong=0, carried=1)}


def test_an_older_claim_never_removes_anything_either(history):
    run = import_demo_runs(history)[0].run_id
    doc = export_run(history, run)
    import_run(_forged(doc, _entry("c1", at="2026-01-01T00:00:00+00:00")), history)
    import_run(_forged(doc, _entry("c2", verdict="good", at="2026-02-01T00:00:00+00:00")), history)
    assert sorted(f.feedback_id for f in feedback_for_run(history, run)) == ["c1", "c2"]


def test_alice_giving_feedback_again_replaces_only_her_own(history):
    run = import_demo_runs(history)[0].run_id
    import_run(_forged(export_run(history, run), _entry("c1")), history)
    give_feedback(history, new_feedback(run, verdict="good", given_by=ALICE))
    give_feedback(history, new_feedback(run, verdict="good", given_by=ALICE))
    assert sorted(f.origin for f in feedback_for_run(history, run)) == ["given", "imported"]


def test_a_carried_claim_is_nobody_s_label_for_agreement(history):
    """The Add-to-a-question-set form takes the expected route people gave (`expected_from_feedback`); a case made
    from it carries a person's verdict, which agreement counts. A carried claim must not become that label."""
    from rag.eval.agreement import labelled
    from rag.eval.from_run import case_from_run, run_facts
    from rag.eval.scoring import CaseResult

    run = import_demo_runs(history)[0].run_id
    import_run(_forged(export_run(history, run), _entry("c1")), history)
    assert expected_from_feedback(feedback_for_run(history, run)) is None
    case = case_from_run(run_facts([history.get_run(run)]), expected_route=None)
    assert case.verdict in (None, "good")  # the run's own route, never the claimed "wrong"
    result = CaseResult(id=case.id or "c", route=history.get_run(run).route, expected_route=case.expected_route,
                        verdict=case.verdict)
    assert all(r.verdict != "wrong" for r in labelled([result]))
    give_feedback(history, new_feedback(run, verdict="wrong", reason="wrong_route", given_by=ALICE,
                                        expected=Expected(route="no_knowledge")))
    assert expected_from_feedback(feedback_for_run(history, run)).route == "no_knowledge"  # her own voice counts


def test_without_a_login_a_typed_name_withdraws_only_what_it_gave_here(history):
    run = import_demo_runs(history)[0].run_id
    import_run(_forged(export_run(history, run), _entry("c1")), history)
    assert withdraw_feedback(history, run, "c1", given_by=ALICE) is False  # the claim is not hers to withdraw
    assert [f.feedback_id for f in feedback_for_run(history, run)] == ["c1"]
