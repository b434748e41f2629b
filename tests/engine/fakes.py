"""Injected collaborators for engine tests: a scripted retriever and scripted model roles.

They implement the same seams as the real ones (`Retriever.search`, Runnables per role), so the
tests drive the real compiled graph, only with predictable evidence and model answers.
"""
from __future__ import annotations

import threading
import time
from typing import Callable, Iterable, Optional

from langchain_core.runnables import RunnableLambda

from rag.errors import ModelCallError
from rag.models.base import ModelRoles
from rag.schemas import Chunk, ComplexityResult, EvidenceGrade, RetrievalResult, RewritePlan
from rag.trace import RETRIEVAL_FIELDS


def chunk(i: int, text: str = "", filename: str = "kb.md", **extra) -> Chunk:
    return Chunk(chunk_id=f"c{i}", filename=filename, page_number=1, text=text or f"chunk {i}", score=1.0 / i,
                 rrf_rank=i, **extra)


def retrieval_fields(n: int) -> dict:
    fields = {f: None for f in RETRIEVAL_FIELDS}
    fields.update(
        retrieval_mode="hybrid", retrieval_pipeline="recall_merge_rerank", candidate_k=24,
        candidate_k_source="multiplier", retrieval_candidate_multiplier=3, retrieval_top_k=8, recall_count=n,
        post_merge_candidate_count=n, candidate_count=n, leaf_retrieve_level=3, auto_merge_enabled=False,
        auto_merge_applied=False, auto_merge_threshold=2, auto_merge_replaced_chunks=0, auto_merge_steps=0,
        rerank_enabled=False, rerank_applied=False, post_rerank_count=n, post_threshold_count=n,
    )
    return fields


class FakeRetriever:
    """Returns chunks chosen by the first rule whose key is in the query; records every query."""

    name = "fake"

    def __init__(self, rules: Optional[dict[str, list[Chunk]]] = None, default: Iterable[Chunk] = (),
                 fail: Optional[Exception] = None):
        self.rules = rules or {}
        self.default = list(default)
        self.fail = fail
        self.queries: list[str] = []
        self._lock = threading.Lock()

    def search(self, query: str) -> RetrievalResult:
        with self._lock:
            self.queries.append(query)
        if self.fail:
            raise self.fail
        chunks = self.default
        for key, value in self.rules.items():
            if key in query:
                chunks = value
                break
        return RetrievalResult(chunks=list(chunks), trace_fields=retrieval_fields(len(chunks)))


def grade(relevance="strong", answerability="sufficient", ambiguity="none", route="answer", **kw) -> EvidenceGrade:
    kw.setdefault("confidence", 0.9)
    kw.setdefault("reason", "fake grade")
    return EvidenceGrade(relevance=relevance, answerability=answerability, ambiguity=ambiguity, route=route, **kw)


def _role(fn: Callable, calls: list, delay: float = 0.0):
    def run(inp):
        calls.append(inp)
        if delay:
            time.sleep(delay)
        out = fn(inp)
        if isinstance(out, Exception):
            raise out
        return out

    return RunnableLambda(run)


class FakeRoles:
    """Scripted roles. Each script is a value, a callable of the role input, or an exception."""

    def __init__(self, planner=None, grader=None, rewriter=None, delay: float = 0.0):
        self.planner_calls: list = []
        self.grader_calls: list = []
        self.rewriter_calls: list = []
        self.planner = planner if planner is not None else ComplexityResult(complexity="simple", complexity_reason="fake")
        self.grader = grader if grader is not None else grade()
        self.rewriter = rewriter if rewriter is not None else RewritePlan(method="step_back", step_back_question="general?")
        self.delay = delay

    @staticmethod
    def _as_fn(script):
        if callable(script) and not isinstance(script, (Exception, EvidenceGrade, ComplexityResult, RewritePlan)):
            return script
        return lambda _inp: script

    def roles(self) -> ModelRoles:
        return ModelRoles(
            planner=_role(self._as_fn(self.planner), self.planner_calls, self.delay),
            grader=_role(self._as_fn(self.grader), self.grader_calls, self.delay),
            rewriter=_role(self._as_fn(self.rewriter), self.rewriter_calls, self.delay),
            provider="fake",
        )


def timeout_error() -> ModelCallError:
    return ModelCallError("timeout", "the model did not answer within 0.5 s")
