"""Where the gold was lost: one hand-made trace per stage, the gold resolved from a tiny knowledge
base (passages by text with whitespace collapsed, by chunk id, by file), and the funnel line."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from rag.eval.lost_at import STAGES, format_funnel, funnel, lost_at, resolve_gold, stage_rankings


def chunk(cid, parent=None, level=3, filename="a.md", text=""):
    return SimpleNamespace(chunk_id=cid, parent_id=parent, level=level, filename=filename, text=text)


#: P (level 2) holds leaves g (the gold) and s (its sibling); o is another file's leaf.
KB = [chunk("P", level=2, text="the gold sentence  is here. a sibling"), chunk("g", "P", text="the gold\nsentence is here."),
      chunk("s", "P", text="a sibling"), chunk("o", filename="b.md", text="other text")]
GOLD = resolve_gold(["the gold sentence is here."], [], KB)


def row(cid, outcome, *, merged_into=None, from_merge=False, rrf_rank=1, rerank_score=None):
    return {"chunk_id": cid, "outcome": outcome, "merged_into": merged_into, "from_merge": from_merge,
            "rrf_rank": None if merged_into else rrf_rank, "rerank_score": rerank_score}


CASES = {
    "sparse": ({"retrieval_recall_legs": {"sparse": ["o"]}, "retrieval_candidates": [row("o", "kept")]}, ["o"]),
    "dense": ({"retrieval_recall_legs": {"sparse": ["o"], "dense": ["s"]},
               "retrieval_candidates": [row("o", "kept"), row("s", "kept", rrf_rank=2)]}, ["o", "s"]),
    "fusion": ({"retrieval_recall_legs": {"sparse": ["o"], "dense": ["g"]}, "retrieval_candidates": [row("o", "kept")]},
               ["o"]),
    "merge": ({"retrieval_recall_legs": {"sparse": ["g", "s", "o"]},
               "retrieval_candidates": [row("g", "merged into parent", merged_into="P"),
                                        row("s", "merged into parent", merged_into="P"), row("o", "kept"),
                                        row("P", "cut by top-k", from_merge=True, rrf_rank=2)]}, ["o"]),
    "rerank": ({"rerank_applied": True, "retrieval_recall_legs": {"sparse": ["g", "o"]},
                "retrieval_candidates": [row("g", "cut by top-k"), row("o", "kept", rrf_rank=2, rerank_score=0.9)]},
               ["o"]),
    "top_k": ({"rerank_applied": False, "retrieval_recall_legs": {"sparse": ["o", "g"]},
               "retrieval_candidates": [row("o", "kept"), row("g", "cut by top-k", rrf_rank=2)]}, ["o"]),
    "threshold": ({"retrieval_recall_legs": {"sparse": ["g"]}, "retrieval_candidates": [row("g", "cut by threshold")]},
                  []),
    "kept": ({"retrieval_recall_legs": {"sparse": ["o", "g"]},
              "retrieval_candidates": [row("o", "kept"), row("g", "kept", rrf_rank=2)]}, ["o", "g"]),
}


@pytest.mark.parametrize("stage", list(CASES))
def test_each_stage_is_named_from_its_trace(stage):
    trace, final = CASES[stage]
    assert lost_at(GOLD, trace, final).stage == stage


def test_kept_gives_the_final_rank_and_a_kept_parent_keeps_its_leaf():
    assert lost_at(GOLD, *CASES["kept"]).rank == 2
    trace = {"retrieval_recall_legs": {"sparse": ["g", "s"]},
             "retrieval_candidates": [row("g", "merged into parent", merged_into="P"),
                                      row("s", "merged into parent", merged_into="P"),
                                      row("P", "kept", from_merge=True)]}
    assert (lost_at(GOLD, trace, ["P"]).stage, lost_at(GOLD, trace, ["P"]).rank) == ("kept", 1)


def test_a_passage_in_no_chunk_is_not_in_kb_and_named_never_a_plain_miss():
    gold = resolve_gold(["no such words anywhere"], [], KB)
    got = lost_at(gold, *CASES["kept"])
    assert (got.stage, got.missing) == ("not_in_kb", ("no such words anywhere",))
    both = resolve_gold(["no such words anywhere", "chunk:g"], [], KB)
    assert lost_at(both, *CASES["kept"]).stage == "kept"  # another gold item was found
    assert lost_at(both, *CASES["top_k"]).stage == "not_in_kb"  # the broken gold is reported first


def test_gold_by_chunk_id_by_file_and_a_passage_across_leaves():
    assert resolve_gold(["chunk:g"], [], KB)[0].covers == {"g", "P"}
    assert resolve_gold(["chunk:P"], [], KB)[0].covers == {"g", "s", "P"}
    assert resolve_gold(["chunk:nope"], [], KB)[0].in_kb is False
    assert resolve_gold([], ["docs/B.md"], KB)[0].covers == {"o"}
    assert resolve_gold(["here. a sibling"], [], KB)[0].covers == {"g", "s", "P"}  # only the parent holds it


def test_no_gold_no_stage_and_the_funnel_line_counts_every_stage():
    assert lost_at([], *CASES["kept"]) is None
    counts = funnel(["kept", "kept", "fusion", None])
    assert list(counts) == list(STAGES)
    assert format_funnel(counts) == ("lost_at: not_in_kb=0 sparse=0 dense=0 fusion=1 merge=0 rerank=0 top_k=0 "
                                     "threshold=0 kept=2")


def test_stage_rankings_follow_the_pipeline():
    trace, final = CASES["rerank"]
    got = stage_rankings(trace, final)
    assert got == {"sparse": ["g", "o"], "fusion": ["g", "o"], "merge": ["g", "o"], "top_k": ["o"], "final": ["o"]}
