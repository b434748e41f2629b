"""Ingestion: good files become three-level chunks in a store, bad files are named and skipped,
unchanged files cost nothing on re-ingest."""
from __future__ import annotations

import numpy as np
import pytest

from rag.ingest import ingest_folder
from rag.ingest.__main__ import main as cli_main
from rag.ingest.store import Store


def make_pdf(pages: list[str]) -> bytes:
    """A minimal valid PDF with one text line per page (Helvetica), correct xref offsets."""
    objs = ["<< /Type /Catalog /Pages 2 0 R >>", None, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    for text in pages:
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET"
        objs.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
        content_no = len(objs)
        objs.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {content_no} 0 R "
                    f"/Resources << /Font << /F1 3 0 R >> >> >>")
        kids.append(f"{len(objs)} 0 R")
    objs[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>"
    out = b"%PDF-1.4\n"
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


class CountingEmbedder:
    model_id = "fake-embedder"

    def __init__(self):
        self.calls = 0
        self.texts = 0

    def embed_passages(self, texts):
        self.calls += 1
        self.texts += len(texts)
        return np.ones((len(texts), 4), dtype=np.float32)

    def embed_query(self, text):
        return np.ones(4, dtype=np.float32)


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "docs"
    d.mkdir()
    (d / "guide.md").write_text("# 指南\n\n第一段，介绍产品。\n\n## Setup\n\nPlug it in. Then press start.\n", "utf-8")
    (d / "notes.txt").write_text("Plain notes about the battery.\n\nSecond paragraph.", "utf-8")
    (d / "manual.pdf").write_bytes(make_pdf(["Page one talks about lamps.", "Page two covers the warranty."]))
    return d


def test_good_files_become_three_levels_with_pages(folder, tmp_path):
    emb = CountingEmbedder()
    report = ingest_folder(folder, tmp_path / "store", embedder=emb)
    assert sorted(report.ingested) == ["guide.md", "manual.pdf", "notes.txt"] and report.skipped == []
    store = Store.load(tmp_path / "store")
    by_id = store.by_id()
    leaves = store.leaves()
    assert all(by_id[by_id[x.parent_id].parent_id].level == 1 for x in leaves)
    assert {c.level for c in store.chunks} == {1, 2, 3}
    pdf_pages = {x.page_number: x.text for x in leaves if x.filename == "manual.pdf"}
    assert "lamps" in pdf_pages[1] and "warranty" in pdf_pages[2]
    assert all(x.page_number is None for x in leaves if x.filename != "manual.pdf")
    setup = next(x for x in leaves if "Plug it in" in x.text)
    assert setup.heading == "指南 > Setup" and "Setup" in setup.search_text()
    assert report.embedded == len({x.search_text() for x in leaves}) and len(store.vectors) == report.embedded
    assert report.chunk_counts["3"] == len(leaves)


def test_reingest_unchanged_does_no_work(folder, tmp_path, monkeypatch):
    store_dir = tmp_path / "store"
    ingest_folder(folder, store_dir, embedder=CountingEmbedder())
    import rag.ingest as ingest_mod

    def no_parse(*a, **k):
        raise AssertionError("an unchanged file was parsed again")

    monkeypatch.setattr(ingest_mod, "read_pages", no_parse)
    emb = CountingEmbedder()
    mtime = (store_dir / "docstore.jsonl").stat().st_mtime_ns
    report = ingest_folder(folder, store_dir, embedder=emb)
    assert sorted(report.unchanged) == ["guide.md", "manual.pdf", "notes.txt"]
    assert report.ingested == [] and emb.calls == 0 and report.embedded == 0
    assert (store_dir / "docstore.jsonl").stat().st_mtime_ns == mtime


def test_changed_and_deleted_files_update_the_store(folder, tmp_path):
    store_dir = tmp_path / "store"
    ingest_folder(folder, store_dir, embedder=CountingEmbedder())
    (folder / "notes.txt").write_text("Completely new text about solar panels.", "utf-8")
    (folder / "guide.md").unlink()
    emb = CountingEmbedder()
    report = ingest_folder(folder, store_dir, embedder=emb)
    assert report.ingested == ["notes.txt"] and report.removed == ["guide.md"] and report.unchanged == ["manual.pdf"]
    assert emb.texts == 1  # only the new leaf is embedded; the PDF's vectors are cached
    store = Store.load(store_dir)
    assert {c.filename for c in store.chunks} == {"notes.txt", "manual.pdf"}
    assert any("solar" in c.text for c in store.leaves())


def test_bad_files_are_named_and_skipped(folder, tmp_path):
    (folder / "empty.md").write_text("   \n", "utf-8")
    (folder / "binary.txt").write_bytes(b"abc\x00\x01\x02" * 10)
    (folder / "big.txt").write_text("x" * 5000, "utf-8")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not really a pdf")
    (folder / "fake.pdf").write_bytes(b"hello, I am text")
    (folder / "slides.pptx").write_bytes(b"PK\x03\x04")
    (folder / "dangling.md").symlink_to(tmp_path / "missing-target.md")
    (folder / ".hidden.md").write_text("# hidden", "utf-8")
    report = ingest_folder(folder, tmp_path / "store", embedder=None, max_file_bytes=4000)
    reasons = {s.filename: s.reason for s in report.skipped}
    assert sorted(report.ingested) == ["guide.md", "manual.pdf", "notes.txt"]
    assert reasons["empty.md"] == "empty file"
    assert "binary" in reasons["binary.txt"]
    assert "too large" in reasons["big.txt"]
    assert "unreadable PDF" in reasons["broken.pdf"] or "no extractable text" in reasons["broken.pdf"]
    assert "not a PDF" in reasons["fake.pdf"]
    assert "unsupported" in reasons["slides.pptx"]
    assert "unreadable" in reasons["dangling.md"]
    assert ".hidden.md" not in reasons
    assert {c.filename for c in Store.load(tmp_path / "store").chunks} == {"guide.md", "manual.pdf", "notes.txt"}


def test_bad_folder_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        ingest_folder(tmp_path / "nope", tmp_path / "store", embedder=None)
    (tmp_path / "file.md").write_text("x", "utf-8")
    with pytest.raises(NotADirectoryError):
        ingest_folder(tmp_path / "file.md", tmp_path / "store", embedder=None)


def test_ingested_folder_is_searchable_by_kb_dir(folder, tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_CACHE_DIR", str(tmp_path / "cache"))
    from rag.retrieval.retriever_factory import build_retriever
    from rag.settings import RagSettings

    cli_rc = cli_main([str(folder), "--no-embed"])
    assert cli_rc == 0
    r = build_retriever(RagSettings(kb_dir=folder, dense_enabled=False, rerank_model=None, rerank_api_key=None,
                                    rerank_host=None, top_k=2))
    res = r.search("warranty")
    assert res.trace_fields["retrieval_mode"] == "sparse_only"
    assert res.chunks[0].filename == "manual.pdf" and res.chunks[0].page_number == 2


def test_cli_reports_progress_and_skips(folder, tmp_path, capsys):
    (folder / "empty.txt").write_text("", "utf-8")
    rc = cli_main([str(folder), "--store", str(tmp_path / "store"), "--no-embed"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "guide.md" in out and "skipped empty.txt: empty file" in out and "ingested 3" in out
    assert cli_main([str(tmp_path / "missing")]) == 2
