"""Retrieval-only evaluation: each case's question through retrieval alone (no planner, grader or
rewriter), the index loaded once, and per case where its gold was lost (rag.eval.lost_at).

Why the question itself and not the run's rewritten queries: this measures the retrieval settings,
which is what a sweep varies; the workflow's rewrites are the full evaluation's business.
The knowledge base is opened once (the factory's cache) and every retriever of a sweep is built
on it, so a point costs its searches and nothing else.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from rag.eval.cases import EvalCase
from rag.eval.ir_metrics import METRICS, mean_metrics
from rag.eval.lost_at import GoldIndex, GoldItem, funnel, lost_at, stage_rankings
from rag.eval.scoring import percentile
from rag.settings import RagSettings

#: The stages the metrics are computed at, in pipeline order (a leg that did not run is skipped).
METRIC_STAGES = ("sparse", "dense", "fusion", "merge", "top_k", "final")


@dataclass(frozen=True)
class RetrievalCase:
    """One case's retrieval: where its gold was lost and each stage's ranking, in gold keys."""

    id: str
    question: str
    lost_at: Optional[str]
    rank: Optional[int] = None
    missing: tuple[str, ...] = ()
    gold: tuple[str, ...] = ()
    rankings: dict = field(default_factory=dict)
    sources: tuple[str, ...] = ()
    latency_ms: float = 0.0
    error: Optional[str] = None

    def to_dict(self) -> dict:
        return {"id": self.id, "question": self.question, "lost_at": self.lost_at, "rank": self.rank,
                "not_in_kb": list(self.missing), "sources": list(self.sources),
                "latency_ms": round(self.latency_ms, 2), "error": self.error}


class Workbench:
    """The knowledge base opened once, and a retriever per settings built on it."""

    def __init__(self, settings: RagSettings, dense: Optional[bool] = None):
        from rag.retrieval.retriever_factory import get_knowledge_base, kb_dir_of

        self.settings = settings
        self.embedded = settings.retriever_backend in ("embedded", "bm25")
        self.kb = None
        if self.embedded:
            want_dense = settings.dense_enabled if dense is None else dense
            self.kb = get_knowledge_base(kb_dir_of(settings), dense=want_dense and settings.retriever_backend != "bm25",
                                         settings=settings)
        self._gold = GoldIndex(self.kb.by_id.values() if self.kb is not None else [])
        self._gold_of: dict[tuple, list[GoldItem]] = {}

    def retriever(self, settings: RagSettings):
        if self.kb is not None:
            from rag.retrieval.embedded import EmbeddedRetriever

            return EmbeddedRetriever(self.kb, settings)
        from rag.retrieval.retriever_factory import build_retriever

        return build_retriever(settings)

    def gold(self, case: EvalCase) -> list[GoldItem]:
        """The case's gold items, resolved once per case for every pass and sweep point."""
        key = (tuple(case.expected_passages), tuple(case.expected_sources))
        if key not in self._gold_of:
            self._gold_of[key] = self._gold.resolve(*key)
        return self._gold_of[key]


def _in_gold_keys(ranking: Sequence[str], gold: Sequence[GoldItem]) -> list[str]:
    """A chunk ranking as gold keys: a chunk that covers a gold item not found yet stands for it;
    any other chunk keeps its id (a second chunk of the same item is not a second hit)."""
    out, found = [], set()
    for cid in ranking:
        item = next((g for g in gold if g.key not in found and cid in g.covers), None)
        if item is not None:
            found.add(item.key)
            out.append(item.key)
        else:
            out.append(f"chunk:{cid}")
    return out


def run_case(case: EvalCase, retriever, gold: list[GoldItem]) -> RetrievalCase:
    started = time.perf_counter()
    try:
        result = retriever.search(case.question)
    except Exception as exc:  # noqa: BLE001 - recorded per case
        return RetrievalCase(case.id or "", case.question, None, error=f"{type(exc).__name__}: {exc}",
                             latency_ms=(time.perf_counter() - started) * 1000)
    ms = (time.perf_counter() - started) * 1000
    trace = result.trace_fields
    final = [c.chunk_id for c in result.chunks]
    where = lost_at(gold, trace, final)
    judged = [g for g in gold if g.in_kb]
    rankings = {stage: _in_gold_keys(ids, judged) for stage, ids in stage_rankings(trace, final).items()}
    return RetrievalCase(case.id or "", case.question, where.stage if where else None,
                         where.rank if where else None, where.missing if where else (),
                         tuple(g.key for g in judged), rankings,
                         tuple(dict.fromkeys(c.filename for c in result.chunks)), ms,
                         trace.get("retrieval_error") if trace.get("retrieval_mode") == "failed" else None)


def run_retrieval(cases: Sequence[EvalCase], settings: RagSettings, bench: Optional[Workbench] = None,
                  on_case: Optional[Callable[[RetrievalCase], None]] = None) -> list[RetrievalCase]:
    """Every case through retrieval under `settings`, on `bench`'s knowledge base (opened here once
    when not given)."""
    bench = bench or Workbench(settings)
    retriever = bench.retriever(settings)
    out = []
    for case in cases:
        res = run_case(case, retriever, bench.gold(case))
        if on_case is not None:
            on_case(res)
        out.append(res)
    return out


def stage_metrics(results: Sequence[RetrievalCase], k: int) -> dict[str, dict[str, Optional[float]]]:
    """stage -> metric -> mean over the cases with gold in the knowledge base (a stage no case
    ran, such as the dense leg of a sparse-only pass, is left out)."""
    gold = {str(i): list(r.gold) for i, r in enumerate(results) if r.gold}
    out = {}
    for stage in METRIC_STAGES:
        if stage in ("sparse", "dense") and not any(stage in r.rankings for r in results):
            continue
        runs = {str(i): r.rankings.get(stage, []) for i, r in enumerate(results)}
        out[stage] = mean_metrics(gold, runs, k)
    return out


def summarize(results: Sequence[RetrievalCase], k: int) -> dict:
    """The figures of one pass: funnel, metrics per stage at k, latency (median, p95), cases."""
    lat = [r.latency_ms for r in results if r.error is None] or [0.0]
    return {"cases": len(results), "k": k, "lost_at": funnel(r.lost_at for r in results),
            "metrics": stage_metrics(results, k),
            "latency_ms": {"p50": round(percentile(lat, 50), 2), "p95": round(percentile(lat, 95), 2)}}


def metric_lines(summary: dict) -> list[str]:
    """`recall@8: 0.930` ... for the final list (the CLI's script lines); n/a when nothing is judged."""
    final = summary["metrics"].get("final", {})
    k = summary["k"]
    return [f"{m}@{k}: " + ("n/a" if final.get(m) is None else f"{final[m]:.3f}") for m in METRICS]


__all__ = ["RetrievalCase", "Workbench", "run_retrieval", "summarize", "stage_metrics", "metric_lines",
           "METRIC_STAGES"]
