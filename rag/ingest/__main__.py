"""`python -m rag.ingest FOLDER [--store DIR] [--no-embed]`: ingest a folder, print progress and a
summary; exit 1 when any file was skipped (so scripts notice), 2 when the folder is bad."""
from __future__ import annotations

import argparse
import sys

from rag.ingest import ingest_folder
from rag_debugger.debugger.terminal import one_line


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rag.ingest", description=__doc__)
    parser.add_argument("folder", help="folder of .md / .txt / .pdf files")
    parser.add_argument("--store", default=None, help="store directory (default: the folder's store in the cache)")
    parser.add_argument("--no-embed", action="store_true", help="sparse-only store: skip the dense embeddings")
    args = parser.parse_args(argv)
    try:
        report = ingest_folder(args.folder, args.store, embedder=None if args.no_embed else "auto",
                               progress=lambda msg: print(one_line(msg), flush=True))
    except (FileNotFoundError, NotADirectoryError) as exc:
        print(one_line(f"error: {exc}"), file=sys.stderr)
        return 2
    print(f"store: {report.store_dir}")
    print(f"ingested {len(report.ingested)}, unchanged {len(report.unchanged)}, removed {len(report.removed)}, "
          f"skipped {len(report.skipped)}; embedded {report.embedded}; chunks by level {report.chunk_counts}; "
          f"{report.seconds:.2f}s")
    for s in report.skipped:
        print(one_line(f"skipped {s.filename}: {s.reason}"))
    if report.embedding_error:
        print(f"warning: {report.embedding_error} (the store is sparse-only)")
    print(f"use it with: RAG_KB_DIR={report.folder}")
    return 1 if report.skipped else 0


if __name__ == "__main__":
    sys.exit(main())
