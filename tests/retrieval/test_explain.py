"""Why a chunk is in or out: each candidate's leg ranks, RRF score, auto-merge parent, rerank score
and the cut that removed it, recorded as a raw trace key the normalized trace drops."""
from __future__ import annotations

from rag.api import make_context
from rag.retrieval.explain import EXPLAIN_KEY, explain_candidates, leg_ranks
from rag.trace import normalize_rag_trace


def c(cid, score=None, parent=None, level=3, **kw):
    return {"chunk_id": cid, "filename": "f.md", "score": score, "parent_id": parent, "level": level, **kw}


def test_leg_ranks_are_one_based_per_leg():
    assert leg_ranks({"sparse": ["a", "b"], "dense": ["b"]}) == {"a": {"sparse_rank": 1},
                                                              "b": {"sparse_rank": 2, "dense_rank": 1}}


def test_every_candidate_says_what_happened_to_it():
    recalled = [c("a", 0.03, "P"), c("b", 0.02, "P"), c("x", 0.015), c("y", 0.01), c("z", 0.005)]
    merged = [c("P", 0.03, level=2), c("x", 0.015), c("y", 0.01), c("z", 0.005)]
    reranked = [{**merged[0], "rerank_score": 0.9}, {**merged[1], "rerank_score": 0.2},
                {**merged[2], "rerank_score": 0.1}]  # top-k 3 cut z
    kept = reranked[:2]  # the threshold cut y
    rows = {r["chunk_id"]: r for r in explain_candidates(recalled, merged, ["a", "b"], reranked, kept,
                                                         {"sparse": ["a", "x"], "dense": ["b", "a"]})}
    assert rows["a"]["outcome"] == "merged into parent" and rows["a"]["merged_into"] == "P"
    assert rows["a"]["sparse_rank"] == 1 and rows["a"]["dense_rank"] == 2 and rows["a"]["rrf_score"] == 0.03
    assert rows["P"]["from_merge"] and rows["P"]["outcome"] == "kept" and rows["P"]["rerank_score"] == 0.9
    assert rows["x"]["outcome"] == "kept" and rows["x"]["rrf_rank"] == 2 and rows["x"]["dense_rank"] is None
    assert rows["y"]["outcome"] == "cut by threshold"
    assert rows["z"]["outcome"] == "cut by top-k"


def test_a_merged_parent_merged_again_names_the_ancestor_in_the_list():
    parents = {"P": {"chunk_id": "P", "parent_id": "G"}}.get
    rows = explain_candidates([c("a", 0.1, "P")], [c("G", 0.1, level=1)], ["a", "P"], [c("G", 0.1, level=1)],
                              [c("G", 0.1, level=1)], parents=parents)
    assert rows[0]["merged_into"] == "G"


def test_the_embedded_retriever_records_it_and_the_protocol_trace_does_not():
    ctx = make_context()
    fields = ctx.retriever.search("Nova thermostat temperature range").trace_fields
    rows = fields[EXPLAIN_KEY]
    assert len(rows) >= fields["recall_count"]
    assert sum(r["outcome"] == "kept" for r in rows) == fields["post_threshold_count"]
    assert any(r["sparse_rank"] for r in rows)
    assert "_recall_legs" not in fields
    assert EXPLAIN_KEY not in normalize_rag_trace({**fields, "retrieved_chunks": []})
