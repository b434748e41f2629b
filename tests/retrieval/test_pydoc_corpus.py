"""The pydoc help-topics corpus: written on demand, idempotent, searched sparse-only by default
(with the reason in the trace), and hybrid once a folder's vectors are stored explicitly."""
from __future__ import annotations

import json

import pytest

from rag.ingest.profile import PROFILE_NAME, KbProfile, load_profile
from rag.ingest.pydoc_corpus import pydoc_corpus_dir, topic_markdown, topics
from rag.retrieval.retriever_factory import build_retriever
from tests.retrieval.conftest import make_settings

pytestmark = pytest.mark.skipif(not topics(), reason="this Python ships no pydoc_data")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return pydoc_corpus_dir(tmp_path_factory.mktemp("pydoc"))


def test_folder_holds_one_markdown_file_per_topic(corpus):
    names = {p.name for p in corpus.glob("*.md")}
    assert len(names) == len(topics()) and {"with.md", "try.md", "lambda.md"} <= names
    text = (corpus / "with.md").read_text("utf-8")
    assert text.startswith('# The "with" statement\n')
    assert not load_profile(corpus).embed_on_open


def test_default_folder_is_created_in_the_cache_on_demand():
    import os
    from pathlib import Path

    folder = pydoc_corpus_dir()
    assert Path(os.environ["RAG_CACHE_DIR"]) in folder.parents and (folder / "with.md").exists()


def test_second_call_rewrites_nothing_and_drops_stale_topics(corpus):
    stamps = {p.name: p.stat().st_mtime_ns for p in corpus.iterdir()}
    (corpus / "gone_topic.md").write_text("# old\n\nfrom an older Python", "utf-8")
    assert pydoc_corpus_dir(corpus) == corpus
    assert not (corpus / "gone_topic.md").exists()
    assert {p.name: p.stat().st_mtime_ns for p in corpus.iterdir()} == stamps


def test_underlined_titles_become_headings_and_hash_lines_cannot():
    md = topic_markdown("demo", "Title here\n**********\n\nintro\n\nPart\n====\n\n# not a heading\nbody\n")
    assert md.splitlines()[:6] == ["# Title here", "", "intro", "", "## Part", ""]
    assert " # not a heading" in md.splitlines()
    assert topic_markdown("bare", "no title at all").startswith("# bare\n")


@pytest.mark.parametrize("query,filename", [
    ("what does the with statement do", "with.md"),
    ("how does try finally work", "try.md"),
    ("how does the global statement work", "global.md"),
])
def test_english_questions_find_their_topic_sparse_only_with_reason(corpus, query, filename):
    res = build_retriever(make_settings(kb_dir=corpus, top_k=4)).search(query)
    f = res.trace_fields
    assert res.chunks[0].filename == filename
    assert f["retrieval_mode"] == "sparse_only"
    assert "sparse-only by default" in f["retrieval_error"] and "python -m rag.ingest" in f["retrieval_error"]


def _profiled_folder(tmp_path):
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "a.md").write_text("# Kettle\n\nThe kettle boils water in ninety seconds.", "utf-8")
    (kb / "b.md").write_text("# Lamp\n\nThe lamp dims to ten percent at night.", "utf-8")
    (kb / PROFILE_NAME).write_text(KbProfile(embed_on_open=False, dense_unavailable_reason="too big").model_dump_json())
    return kb


def test_profile_skips_embedding_on_open_then_uses_stored_vectors(tmp_path):
    from rag.ingest import ingest_folder
    from rag.retrieval.embedded import EmbeddedRetriever, KnowledgeBase

    kb_dir, store = _profiled_folder(tmp_path), tmp_path / "store"
    kb = KnowledgeBase.open(kb_dir, store, dense=True)
    res = EmbeddedRetriever(kb, make_settings(top_k=1)).search("kettle boils")
    assert res.trace_fields["retrieval_mode"] == "sparse_only" and res.trace_fields["retrieval_error"] == "too big"
    assert res.chunks[0].filename == "a.md"
    report = ingest_folder(kb_dir, store)  # the explicit ingest embeds; the profile file is no document
    assert report.embedded == 2 and report.skipped == [] and sorted(report.unchanged) == ["a.md", "b.md"]
    kb = KnowledgeBase.open(kb_dir, store, dense=True)
    res = EmbeddedRetriever(kb, make_settings(top_k=1)).search("kettle boils")
    assert res.trace_fields["retrieval_mode"] == "hybrid" and "retrieval_error" not in res.trace_fields


def test_broken_profile_means_defaults(tmp_path):
    (tmp_path / PROFILE_NAME).write_text("{not json", "utf-8")
    assert load_profile(tmp_path) == KbProfile()
    (tmp_path / PROFILE_NAME).write_text(json.dumps({"embed_on_open": "sometimes"}), "utf-8")
    assert load_profile(tmp_path).embed_on_open is True
