"""The metrics come from ir-measures, with ties and missing queries fixed explicitly; the
evaluator's MRR and source hit rate keep the values the hand-written formulas gave."""
from __future__ import annotations

import math

import ir_measures
import pytest
from ir_measures import RR, P, R, Success, nDCG

from rag.eval.cases import load_cases
from rag.eval.ir_metrics import mean_metrics, per_query
from rag.eval.scoring import CaseResult, mean_reciprocal_rank, reciprocal_rank, source_hit, source_hit_rate
from rag.settings import DATA_DIR

GOLD = {"q1": ["a", "c"], "q2": ["x"]}
RUN = {"q1": ["b", "a", "d", "c"], "q2": ["y", "z"]}


def test_a_fixed_ranking_scores_as_the_library_does():
    qrels = [ir_measures.Qrel(q, d, 1) for q, ds in GOLD.items() for d in ds]
    run = [ir_measures.ScoredDoc(q, d, 10.0 - i) for q, ds in RUN.items() for i, d in enumerate(ds)]
    lib = ir_measures.calc_aggregate([R @ 3, P @ 3, RR @ 3, nDCG @ 3, Success @ 3], qrels, run)
    ours = mean_metrics(GOLD, RUN, 3)
    assert ours["recall"] == pytest.approx(lib[R @ 3]) == pytest.approx((0.5 + 0) / 2)
    assert ours["precision"] == pytest.approx(lib[P @ 3])
    assert ours["mrr"] == pytest.approx(lib[RR @ 3]) == pytest.approx(0.25)
    assert ours["ndcg"] == pytest.approx(lib[nDCG @ 3])
    assert ours["hit_rate"] == pytest.approx(lib[Success @ 3]) == pytest.approx(0.5)


def test_ties_keep_our_order_not_the_document_ids():
    # trec_eval orders equal scores by document id (one way or the other): both orders are checked.
    assert per_query({"q": ["a"]}, {"q": ["z", "a"]}, 1)["q"]["hit_rate"] == 0.0
    assert per_query({"q": ["z"]}, {"q": ["a", "z"]}, 1)["q"]["hit_rate"] == 0.0
    assert per_query({"q": ["a"]}, {"q": ["z", "a"]}, 2)["q"]["mrr"] == 0.5


def test_a_query_without_ranking_is_a_miss_and_one_without_gold_is_left_out():
    rows = per_query({"q1": ["a"], "q2": ["b"], "q3": []}, {"q1": ["a"]}, 5)
    assert set(rows) == {"q1", "q2"}
    assert rows["q2"] == dict.fromkeys(rows["q2"], 0.0)
    assert mean_metrics({"q": []}, {"q": ["a"]}, 5)["recall"] is None


def hand_mrr(results):
    ranks = [x for x in (reciprocal_rank(r.expected_sources, r.sources) for r in results) if x is not None]
    return sum(ranks) / len(ranks) if ranks else None


def hand_hit_rate(results):
    hits = [h for h in (source_hit(r.expected_sources, r.sources) for r in results) if h is not None]
    return sum(hits) / len(hits) if hits else None


@pytest.mark.parametrize("name", ["bundled.jsonl", "pydoc.jsonl", "pydoc_holdout.jsonl"])
def test_mrr_and_source_hit_rate_keep_their_values_on_the_shipped_sets(name):
    """Each set's expected sources against evidence lists that put them at every rank (1st, 2nd,
    3rd, absent, duplicated, other case, folders): the library's figures equal the formulas'."""
    cases = load_cases(DATA_DIR / "eval" / name)
    results = []
    for i, c in enumerate(cases):
        exp = list(c.expected_sources)
        shapes = [exp, ["other.md", *exp], ["x.md", "x.md", "y.md", *exp[:1]], [], ["dir/" + e.upper() for e in exp]]
        results.append(CaseResult(id=c.id, expected_route=None, route=None, expected_sources=tuple(exp),
                                  sources=tuple(shapes[i % len(shapes)])))
    want_mrr, want_hit = hand_mrr(results), hand_hit_rate(results)
    assert want_mrr is not None and 0 < want_mrr < 1
    assert math.isclose(mean_reciprocal_rank(results), want_mrr, abs_tol=1e-9)
    assert math.isclose(source_hit_rate(results), want_hit, abs_tol=1e-9)
