"""Corpus statistics for the judge: document frequencies from the sparse index, offered by the
embedded retriever, optional for any other backend, and handed to the grader with the question."""
from __future__ import annotations

import pytest
from langchain_core.runnables import RunnableLambda

from rag.retrieval.indexes import SparseIndex
from rag.retrieval.retriever import CorpusStats, corpus_stats_of
from rag.schemas import EvidenceGrade
from tests.retrieval.conftest import make_settings


@pytest.mark.parametrize("tokens, expected", [
    (["kettle"], {"kettle": 2}),
    (["lamp", "boils"], {"lamp": 1, "boils": 1}),
    (["australia"], {"australia": 0}),  # never used by the corpus
    (["夜间"], {"夜间": 1}),
])
def test_document_frequency_counts_chunks_holding_a_token(tokens, expected):
    index = SparseIndex(["the kettle boils water", "a kettle whistles", "the lamp dims", "灯在夜间变暗"])
    assert index.document_frequency(tokens) == expected
    assert SparseIndex([]).document_frequency(["x"]) == {"x": 0}


def test_embedded_retriever_reports_how_common_the_question_words_are(tmp_path):
    from rag.retrieval.embedded import EmbeddedRetriever, KnowledgeBase

    kb_dir = tmp_path / "kb"
    kb_dir.mkdir()
    (kb_dir / "a.md").write_text("# Kettle\n\nThe kettle boils water in ninety seconds.", "utf-8")
    (kb_dir / "b.md").write_text("# Lamp\n\nThe lamp dims to ten percent at night.", "utf-8")
    kb = KnowledgeBase.open(kb_dir, tmp_path / "store", dense=False)
    stats = EmbeddedRetriever(kb, make_settings(dense_enabled=False)).corpus_stats("Does the kettle boil in Australia?")
    assert stats.documents == len(kb.leaves)
    assert stats.df["kettle"] >= 1 and stats.df["australia"] == 0


class _NoStats:
    name = "plain"


class _BrokenStats:
    name = "broken"

    def corpus_stats(self, text, chunk_ids=()):
        raise RuntimeError("index gone")


def test_corpus_stats_are_optional_and_never_raise():
    assert corpus_stats_of(_NoStats(), "q") is None
    assert corpus_stats_of(_BrokenStats(), "q") is None


def test_the_grader_receives_the_statistics_of_the_original_question():
    from rag.api import run_rag_graph
    from rag.models.base import ModelRoles
    from rag.schemas import ComplexityResult, RewritePlan
    from tests.engine.fakes import FakeRetriever, chunk

    seen = []

    class Retriever(FakeRetriever):
        def corpus_stats(self, text, chunk_ids=()):
            return CorpusStats(documents=10, df={w: 0 for w in text.lower().rstrip("?").split()},
                               both_legs={c: True for c in chunk_ids})

    def grade(inp):
        seen.append(inp)
        return EvidenceGrade(relevance="strong", answerability="sufficient", confidence=0.9, route="answer", reason="ok")

    roles = ModelRoles(
        planner=RunnableLambda(lambda x: ComplexityResult(complexity="simple", complexity_reason="", sub_questions=[])),
        grader=RunnableLambda(grade),
        rewriter=RunnableLambda(lambda x: RewritePlan(method="hyde", hyde_document="d")),
        grader_uses_corpus_stats=True,
    )
    result = run_rag_graph("Kettle boils where?", retriever=Retriever(default=[chunk(1, "kettle")]), roles=roles,
                           settings=make_settings())
    assert result["route"] == "answer"
    assert seen and seen[0].corpus.documents == 10 and set(seen[0].corpus.df) == {"kettle", "boils", "where"}
    assert seen[0].corpus.both_legs == {"c1": True}  # the graded chunks, by id
    # a grader that does not read statistics (a model) costs the retriever no extra search
    seen.clear()
    from dataclasses import replace

    run_rag_graph("Kettle boils where?", retriever=Retriever(default=[chunk(1, "kettle")]),
                  roles=replace(roles, grader_uses_corpus_stats=False), settings=make_settings())
    assert seen and seen[0].corpus is None


def test_with_a_dense_leg_each_chunk_says_whether_both_legs_found_it(fixture_kb):
    from rag.retrieval.embedded import EmbeddedRetriever

    retriever = EmbeddedRetriever(fixture_kb, make_settings(top_k=3, auto_merge_enabled=False))
    question = "How do I reset the Gadget Z9?"
    ids = [c.chunk_id for c in retriever.search(question).chunks]
    stats = retriever.corpus_stats(question, ids)
    assert set(ids) == set(stats.both_legs)
    reset = next(c.chunk_id for c in retriever.search(question).chunks if "twelve seconds" in c.text)
    assert stats.both_legs[reset]
    off = retriever.corpus_stats("What is the capital of Australia?", ids)
    assert not any(off.both_legs.values())  # the word search finds nothing the meaning search agrees on
    # without the dense leg there is nothing to say about agreement, only word statistics
    sparse = EmbeddedRetriever(fixture_kb, make_settings(dense_enabled=False)).corpus_stats(question, ids)
    assert sparse.both_legs == {} and sparse.df["reset"] >= 1
