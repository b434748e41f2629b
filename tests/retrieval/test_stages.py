"""The pure rules: candidate_k, RRF, auto-merge, score order, min-score threshold."""
import pytest

from rag.retrieval.stages import apply_min_score, auto_merge, merge_one_level, resolve_candidate_k, rrf_fuse, score_order


@pytest.mark.parametrize(
    "top_k, explicit, multiplier, expected",
    [
        (8, None, 3, (24, "multiplier", None)),
        (8, "  ", 3, (24, "multiplier", None)),
        (8, "40", 3, (40, "env", None)),
        (8, "8", 3, (8, "env", None)),
        (8, " 12 ", 3, (12, "env", None)),
        # below top_k: clamped to top_k as the reference does, source env, and the clamp is stated
        (8, "5", 3, (8, "env", "RAG_CANDIDATE_K=5 is below top_k=8; clamped to top_k")),
        (8, "0", 3, (8, "env", "RAG_CANDIDATE_K=0 is below top_k=8; clamped to top_k")),
        (8, "-3", 3, (8, "env", "RAG_CANDIDATE_K=-3 is below top_k=8; clamped to top_k")),
        # not an integer: top_k x multiplier, with the error
        (8, "lots", 3, (24, "multiplier", "RAG_CANDIDATE_K='lots' is not an integer; using top_k x multiplier")),
        (8, "2.5", 1, (8, "multiplier", "RAG_CANDIDATE_K='2.5' is not an integer; using top_k x multiplier")),
    ],
)
def test_candidate_k(top_k, explicit, multiplier, expected):
    assert resolve_candidate_k(top_k, explicit, multiplier) == expected


def test_rrf_rewards_agreement_and_uses_k():
    fused = rrf_fuse([["a", "b", "c"], ["b", "a", "d"]], k=60)
    assert [key for key, _ in fused] == ["a", "b", "c", "d"]
    assert abs(fused[0][1] - (1 / 61 + 1 / 62)) < 1e-12
    assert rrf_fuse([["a", "b"]], k=60, limit=1) == [("a", 1 / 61)]


def _docs():
    return [
        {"chunk_id": "x.0.0", "parent_id": "x.0", "score": 0.5, "text": "a"},
        {"chunk_id": "y.0.0", "parent_id": "y.0", "score": 0.4, "text": "b"},
        {"chunk_id": "x.0.1", "parent_id": "x.0", "score": 0.9, "text": "c"},
        {"chunk_id": "x.1.0", "parent_id": "x.1", "score": 0.1, "text": "d"},
        {"chunk_id": "x.1.1", "parent_id": "x.1", "score": 0.2, "text": "e"},
    ]


PARENTS = {
    "x.0": {"chunk_id": "x.0", "parent_id": "x", "text": "a c", "level": 2},
    "x.1": {"chunk_id": "x.1", "parent_id": "x", "text": "d e", "level": 2},
    "y.0": {"chunk_id": "y.0", "parent_id": "y", "text": "b", "level": 2},
    "x": {"chunk_id": "x", "parent_id": None, "text": "a c d e", "level": 1},
}


def test_merge_parent_takes_first_child_place_and_best_score():
    out, replaced = merge_one_level(_docs(), PARENTS.get, threshold=2)
    assert [d["chunk_id"] for d in out] == ["x.0", "y.0.0", "x.1"]
    assert out[0]["score"] == 0.9 and out[2]["score"] == 0.2
    assert replaced == ["x.0.0", "x.0.1", "x.1.0", "x.1.1"]


def test_auto_merge_runs_two_passes():
    out, replaced, steps = auto_merge(_docs(), PARENTS.get, threshold=2)
    assert [d["chunk_id"] for d in out] == ["x", "y.0.0"]
    assert out[0]["score"] == 0.9 and steps == 2
    assert replaced[-2:] == ["x.0", "x.1"]


def test_auto_merge_threshold_and_missing_parent():
    out, replaced, steps = auto_merge(_docs(), PARENTS.get, threshold=3)
    assert out == _docs() and replaced == [] and steps == 0
    out, replaced = merge_one_level(_docs(), lambda _pid: None, threshold=2)
    assert out == _docs() and replaced == []


def test_score_order_and_threshold():
    docs = [{"score": 0.1}, {"score": 0.3}, {"score": None}, {"score": 0.2, "rerank_score": 0.95}]
    assert [d.get("score") for d in score_order(docs)] == [0.3, 0.2, 0.1, None]
    assert apply_min_score(docs, None) == docs
    kept = apply_min_score(docs, 0.25)
    assert kept == [{"score": 0.3}, {"score": 0.2, "rerank_score": 0.95}]
