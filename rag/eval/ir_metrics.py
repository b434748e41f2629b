"""Ranking metrics through a kept IR-evaluation library (`ir-measures` over `pytrec_eval`, i.e.
trec_eval's own code), not by hand: recall@k, precision@k, MRR, nDCG@k and hit rate.

Two behaviours of these libraries that silently change a figure are fixed here, explicitly:
- Ties: trec_eval orders equal scores by document id, not by the order we ranked them. Every
  ranking is handed over with strictly decreasing scores (n, n-1, ..., 1), so the library sees
  exactly our order.
- Missing queries: pytrec_eval drops a query that has judgements but no ranking, ranx raises.
  Here a query with gold and an empty ranking is scored 0 on every metric (a miss), and a query
  with no gold is left out of every mean (it has nothing to find). Each metric is computed per
  query and averaged here, over the judged queries.

Relevance is binary. Callers map what they retrieved to gold keys first (rag.eval.retrieval_eval),
so a ranking may name a gold key once (the first chunk that found it) and anything else by its id.
"""
from __future__ import annotations

from typing import Mapping, Optional, Sequence

import ir_measures
from ir_measures import RR, P, R, Success, nDCG

METRICS = ("recall", "precision", "mrr", "ndcg", "hit_rate")


def _measures(k: int) -> dict:
    return {"recall": R @ k, "precision": P @ k, "mrr": RR, "ndcg": nDCG @ k, "hit_rate": Success @ k}


def per_query(gold: Mapping[str, Sequence[str]], runs: Mapping[str, Sequence[str]], k: int) -> dict[str, dict[str, float]]:
    """query id -> metric -> value, for every query with gold (an absent or empty ranking: all 0)."""
    measures = _measures(k)
    qrels = [ir_measures.Qrel(q, d, 1) for q, docs in gold.items() for d in dict.fromkeys(docs)]
    run: list[ir_measures.ScoredDoc] = []
    for q, ranked in runs.items():
        if not gold.get(q):
            continue
        ranked = list(dict.fromkeys(ranked))
        run.extend(ir_measures.ScoredDoc(q, d, float(len(ranked) - i)) for i, d in enumerate(ranked))
    out = {q: dict.fromkeys(METRICS, 0.0) for q, docs in gold.items() if docs}
    by_measure = {m: name for name, m in measures.items()}
    if run:
        for metric in ir_measures.iter_calc(list(measures.values()), qrels, run):
            if metric.query_id in out:
                out[metric.query_id][by_measure[metric.measure]] = float(metric.value)
    return out


def mean_metrics(gold: Mapping[str, Sequence[str]], runs: Mapping[str, Sequence[str]], k: int) -> dict[str, Optional[float]]:
    """metric -> mean over the queries with gold (None when no query has gold)."""
    rows = per_query(gold, runs, k)
    if not rows:
        return dict.fromkeys(METRICS)
    return {m: sum(r[m] for r in rows.values()) / len(rows) for m in METRICS}


def files_ranking(sources: Sequence[str]) -> list[str]:
    """Evidence files by name (case-insensitive, folder dropped), first occurrence only."""
    return list(dict.fromkeys(str(s).replace("\\", "/").rsplit("/", 1)[-1].lower() for s in sources))


def source_reciprocal_ranks(cases: Sequence[tuple[str, Sequence[str], Sequence[str]]]) -> dict[str, dict[str, float]]:
    """(id, expected files, evidence files) -> per case reciprocal rank and hit (any expected file
    in the evidence), by file name: the evaluator's MRR and source hit rate."""
    gold = {cid: files_ranking(expected) for cid, expected, _ in cases if expected}
    runs = {cid: files_ranking(sources) for cid, _, sources in cases}
    depth = max((len(r) for r in runs.values()), default=1) or 1
    return per_query(gold, runs, depth)


__all__ = ["METRICS", "per_query", "mean_metrics", "source_reciprocal_ranks", "files_ranking"]
