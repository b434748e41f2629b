"""Ingestion survives being killed between its writes: the store has one commit point, so a crash
never leaves a document recorded as ingested with no chunks (hole 7 of the second review)."""
from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rag.ingest import ingest_folder
from rag.ingest.store import Store

#: Run in a child process: ingest `folder` into `store`, killed (SIGKILL, no clean-up at all) right after
#: the first of the store's two main files is renamed into place.
_KILLED_INGEST = textwrap.dedent("""
    import os, signal, sys
    from rag.ingest import ingest_folder, store as store_module

    real_write = store_module._atomic_write

    def write_then_die(path, data):
        real_write(path, data)
        if path.name in (store_module.MANIFEST, store_module.DOCSTORE):
            os.kill(os.getpid(), signal.SIGKILL)

    store_module._atomic_write = write_then_die
    ingest_folder(sys.argv[1], sys.argv[2], embedder=None)
    sys.exit("the ingestion finished without writing the store")
""")


def _killed_ingest(folder: Path, store: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-c", _KILLED_INGEST, str(folder), str(store)], cwd=root,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr


def _chunked(store: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for chunk in Store.load(store).leaves():
        counts[chunk.filename] = counts.get(chunk.filename, 0) + 1
    return counts


def test_a_new_document_killed_mid_save_is_ingested_next_time(tmp_path):
    docs, store = tmp_path / "docs", tmp_path / "store"
    docs.mkdir()
    (docs / "a.md").write_text("# Alpha\n\nThe alpha reactor cools in forty seconds.\n", "utf-8")
    ingest_folder(docs, store, embedder=None)
    (docs / "b.md").write_text("# Beta\n\nBeta lamps glow green when charged.\n", "utf-8")
    (docs / "a.md").write_text("# Alpha\n\nThe alpha reactor now cools in ten seconds.\n", "utf-8")

    _killed_ingest(docs, store)
    report = ingest_folder(docs, store, embedder=None)

    assert "b.md" in report.ingested
    counts = _chunked(store)
    assert counts.get("a.md", 0) > 0 and counts.get("b.md", 0) > 0
    texts = " ".join(c.text for c in Store.load(store).leaves())
    assert "ten seconds" in texts and "forty seconds" not in texts


def test_a_document_removed_and_restored_around_a_crash_keeps_its_chunks(tmp_path):
    """Killed after the docstore dropped b.md's chunks but before the manifest forgot b.md: putting b.md
    back unchanged must not find it 'unchanged' with nothing in the docstore."""
    docs, store = tmp_path / "docs", tmp_path / "store"
    docs.mkdir()
    (docs / "a.md").write_text("# Alpha\n\nThe alpha reactor cools in forty seconds.\n", "utf-8")
    body = "# Beta\n\nBeta lamps glow green when charged.\n"
    (docs / "b.md").write_text(body, "utf-8")
    ingest_folder(docs, store, embedder=None)
    (docs / "b.md").unlink()

    _killed_ingest(docs, store)
    (docs / "b.md").write_text(body, "utf-8")
    ingest_folder(docs, store, embedder=None)

    assert _chunked(store).get("b.md", 0) > 0


@pytest.mark.parametrize("damage", ["edit", "truncate"])
def test_a_docstore_that_does_not_match_its_manifest_loads_as_empty(tmp_path, damage):
    """Whatever happened to the files, a docstore the manifest did not commit is never trusted."""
    docs, store = tmp_path / "docs", tmp_path / "store"
    docs.mkdir()
    (docs / "a.md").write_text("# Alpha\n\nThe alpha reactor cools in forty seconds.\n", "utf-8")
    ingest_folder(docs, store, embedder=None)
    path = store / "docstore.jsonl"
    path.write_text("" if damage == "truncate" else path.read_text("utf-8") + "\n", "utf-8")
    assert Store.load(store).files == {}
    ingest_folder(docs, store, embedder=None)
    assert _chunked(store).get("a.md", 0) > 0
