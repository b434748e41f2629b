"""The dense scan and the embedder's thread setting (the 100k latency fix), and the benchmark's
contract: one command ending with the lines the README quotes, app memory measured in a child."""
from __future__ import annotations

import numpy as np
import pytest

from rag.ingest.embedders import embed_threads
from rag.retrieval.indexes import DenseIndex


def test_dense_scan_matches_inner_product_and_orders_ties_by_position():
    rng = np.random.default_rng(0)
    m = rng.standard_normal((500, 384)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    idx = DenseIndex(m)
    assert np.allclose(idx.scores(m[7]), m @ m[7], atol=1e-5)
    assert idx.search(m[7], 3)[0][0] == 7 and len(idx.search(m[7], 3)) == 3
    same = DenseIndex(np.ones((4, 2), dtype=np.float32))
    assert [i for i, _ in same.search(np.ones(2), 4)] == [0, 1, 2, 3]
    assert DenseIndex(np.zeros((0, 384), dtype=np.float32)).search(m[0], 3) == []


@pytest.mark.parametrize("env,expected", [({}, 1), ({"OMP_NUM_THREADS": "2"}, 2), ({"RAG_EMBED_THREADS": "3",
                                          "OMP_NUM_THREADS": "2"}, 3), ({"RAG_EMBED_THREADS": "many"}, 1),
                                          ({"RAG_EMBED_THREADS": "0"}, 1)])
def test_embed_threads_default_one_and_overrides(monkeypatch, env, expected):
    monkeypatch.delenv("RAG_EMBED_THREADS", raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert embed_threads() == expected


def test_benchmark_command_ends_with_its_summary_lines(capsys):
    from bench.retrieval import main

    assert main(["--chunks", "300", "--queries", "3", "--baseline-queries", "1"]) == 0
    out = capsys.readouterr().out
    lines = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line and not line.startswith("|"))
    assert float(lines["sparse_speedup_vs_bm25retriever"]) > 0
    assert float(lines["hybrid_speedup_vs_ensembleretriever"]) > 0
    app_rss = float(lines["app_peak_rss_mb"].split()[0])
    assert 20 < app_rss < 500, "the app with the bundled KB must stay under 500 MB"
    assert float(lines["hybrid_median_ms"]) > 0 and float(lines["peak_rss_mb"]) > 0
    assert [x.split(":")[0] for x in out.rstrip().splitlines()[-3:]] == [
        "sparse_speedup_vs_bm25retriever", "hybrid_median_ms", "peak_rss_mb"]
    assert "| langchain EnsembleRetriever" in out
