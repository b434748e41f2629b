"""The bundled knowledge base through the default retriever: shipped vectors (no embedding at
start), Chinese and English questions land on the right document."""
from __future__ import annotations

import pytest

from rag.ingest.paths import BUNDLED_INDEX_DIR, BUNDLED_KB_DIR
from rag.settings import RagSettings

pytestmark = pytest.mark.skipif(not any(BUNDLED_KB_DIR.glob("*.md")), reason="bundled KB not written yet")


@pytest.fixture(scope="module")
def retriever():
    from rag.retrieval.retriever_factory import get_default_retriever

    return get_default_retriever(RagSettings(rerank_model=None, rerank_api_key=None, rerank_host=None,
                                             candidate_k=None, min_score=None, kb_dir=None, top_k=4))


def test_shipped_index_is_current_so_start_does_not_embed():
    from rag.ingest import ingest_folder
    from rag.ingest.store import Store

    class NoEmbedding:
        model_id = Store.load(BUNDLED_INDEX_DIR).vectors.model_id

        def embed_passages(self, texts):
            raise AssertionError(f"{len(texts)} bundled chunks had no shipped vector: "
                                 "run python -m rag.retrieval.build_bundled_index")

    report = ingest_folder(BUNDLED_KB_DIR, BUNDLED_INDEX_DIR, embedder=NoEmbedding())
    assert report.ingested == [] and report.removed == [] and report.skipped == [], \
        "the KB changed: run python -m rag.retrieval.build_bundled_index"


@pytest.mark.parametrize("query,filename", [
    ("丹瑾是什么属性？", "char_danjin.md"),
    ("月卡多少钱", "shop_monthly_pass.md"),
    ("How do I reset the Nova Speaker?", "nova_speaker.md"),
    ("How do I reset the Nova Thermostat?", "nova_thermostat.md"),
])
def test_queries_find_the_right_document(retriever, query, filename):
    res = retriever.search(query)
    assert res.trace_fields["retrieval_mode"] == "hybrid"
    assert res.chunks[0].filename == filename
