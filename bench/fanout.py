"""Does the Send fan-out really run sub-questions in parallel?

Model roles sleep a fixed time per call (the grader is the slow part of a sub-question), the
retriever is instant. Baseline, measured in the same run: a complex question with ONE sub-question.
Then the same with 4 sub-questions. Ideal ratio 1x; sequential execution would be ~4x.

    python -m bench.fanout [--delay 0.3] [--repeat 3]

Ends with `fanout_ratio: X` (4-sub-question run time / 1-sub-question run time).
"""
from __future__ import annotations

import argparse
import statistics
import time

from langchain_core.runnables import RunnableLambda

from rag import run_rag_graph
from rag.models.base import ModelRoles
from rag.schemas import Chunk, ComplexityResult, EvidenceGrade, RetrievalResult, RewritePlan
from rag.settings import RagSettings

QUESTION = "Compare the battery, screen, price and weight of the Nova X1 and the Nova Pad in detail please"


class InstantRetriever:
    name = "bench-instant"

    def search(self, query: str) -> RetrievalResult:
        return RetrievalResult(chunks=[Chunk(chunk_id=query, filename="bench.md", text=query, score=1.0)],
                               trace_fields={"retrieval_mode": "hybrid"})


def roles(n_sub: int, delay: float) -> ModelRoles:
    subs = [f"sub-question {i} about the Nova" for i in range(1, n_sub + 1)]

    def grade(_inp):
        time.sleep(delay)
        return EvidenceGrade(relevance="strong", answerability="sufficient", confidence=1.0, route="answer")

    return ModelRoles(
        planner=RunnableLambda(lambda _i: ComplexityResult(complexity="complex", complexity_reason="bench", sub_questions=subs)),
        grader=RunnableLambda(grade),
        rewriter=RunnableLambda(lambda _i: RewritePlan(method="hyde", hyde_document="x")),
        provider="bench-sleep",
    )


def timed_run(n_sub: int, delay: float) -> float:
    settings = RagSettings(model_provider="offline")
    start = time.perf_counter()
    result = run_rag_graph(QUESTION, settings=settings, retriever=InstantRetriever(), roles=roles(n_sub, delay))
    elapsed = time.perf_counter() - start
    assert result["rag_trace"]["sub_agent_count"] == n_sub, result["rag_trace"]
    return elapsed


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.3, help="seconds each grader call sleeps")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    timed_run(1, 0.0)  # warm up imports and graph compilation
    one = statistics.median(timed_run(1, args.delay) for _ in range(args.repeat))
    four = statistics.median(timed_run(4, args.delay) for _ in range(args.repeat))
    ratio = four / one
    print(f"grader delay per call:        {args.delay * 1000:.0f} ms")
    print(f"baseline (1 sub-question):    {one * 1000:.0f} ms (median of {args.repeat})")
    print(f"complex (4 sub-questions):    {four * 1000:.0f} ms (median of {args.repeat})")
    print(f"sequential would be about:    {4 * one * 1000:.0f} ms")
    print(f"fanout_ratio: {ratio:.2f}")
    return ratio


if __name__ == "__main__":
    main()
