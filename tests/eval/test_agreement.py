"""The agreement between the judge and people, as tables: perfect, chance, none in common, one route only
(kappa undefined, said in words), and which cases count."""
from __future__ import annotations

import pytest

from rag.eval.agreement import agreement, kappa
from rag.eval.scoring import CaseResult


def res(person: str, judge, verdict: str = "wrong", i: int = 0) -> CaseResult:
    return CaseResult(id=f"c{i}", expected_route=person, route=judge, verdict=verdict, question=f"q{i}?")


def results(pairs) -> list[CaseResult]:
    return [res(p, j, i=i) for i, (p, j) in enumerate(pairs)]


@pytest.mark.parametrize(("pairs", "expected_kappa", "rate"), [
    # perfect: every case agreed, two routes used
    ([("answer", "answer"), ("no_knowledge", "no_knowledge"), ("answer", "answer"), ("clarify", "clarify")], 1.0, 1.0),
    # chance: the judge's routes are independent of people's (half agree, as chance predicts)
    ([("answer", "answer"), ("answer", "no_knowledge"), ("no_knowledge", "answer"),
      ("no_knowledge", "no_knowledge")], 0.0, 0.5),
    # none in common: every case on the other route
    ([("answer", "no_knowledge"), ("no_knowledge", "answer")], -1.0, 0.0),
    # mostly "answer": 80 % agreed, but kappa shows how little of it beats chance
    ([("answer", "answer")] * 7 + [("answer", "no_knowledge"), ("no_knowledge", "answer"),
                                   ("no_knowledge", "no_knowledge")], 0.375, 0.8),
])
def test_kappa_and_rate(pairs, expected_kappa, rate):
    found = agreement(results(pairs))
    assert found is not None and found.kappa_note is None
    assert found.kappa == pytest.approx(expected_kappa)
    assert found.rate == pytest.approx(rate)
    assert found.cases == len(pairs) and len(found.disagreements) == sum(1 for p, j in pairs if p != j)


def test_one_route_only_makes_kappa_undefined_and_says_why():
    found = agreement(results([("answer", "answer"), ("answer", "answer")]))
    assert found.kappa is None and found.rate == 1.0
    assert "same route (answer)" in found.kappa_note and "undefined" in found.kappa_note


def test_one_route_each_side_but_different_is_defined():
    assert kappa(["answer", "answer"], ["no_knowledge", "no_knowledge"]) == (0.0, None)


def test_no_labelled_case_gives_no_agreement():
    unlabelled = [CaseResult(id="a", expected_route="answer", route="answer"),  # a gold set: no verdict
                  CaseResult(id="b", expected_route=None, route="answer", verdict="good")]  # no route to compare
    assert agreement(unlabelled) is None
    assert kappa([], [])[0] is None and "no case" in kappa([], [])[1]


def test_per_route_specific_agreement_and_the_disagreements_listed():
    found = agreement(results([("answer", "answer"), ("answer", "clarify"), ("clarify", "clarify"),
                               ("no_knowledge", None)]))
    table = {r.route: (r.people, r.judge, r.both, r.agreement) for r in found.per_route}
    assert table == {"answer": (2, 1, 1, pytest.approx(2 / 3)), "clarify": (1, 2, 1, pytest.approx(2 / 3)),
                     "no_knowledge": (1, 0, 0, 0.0), "other": (0, 1, 0, 0.0)}  # a run that failed is "other"
    assert [(d.id, d.expected_route, d.route) for d in found.disagreements] == [
        ("c1", "answer", "clarify"), ("c3", "no_knowledge", None)]


def test_only_cases_with_a_verdict_count():
    mixed = [res("answer", "answer", "good", 0), res("no_knowledge", "answer", "wrong", 1),
             CaseResult(id="gold", expected_route="clarify", route="answer")]
    found = agreement(mixed)
    assert found.cases == 2 and [d.id for d in found.disagreements] == ["c1"]
