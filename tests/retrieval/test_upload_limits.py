"""Issue 24, findings 5 and 10: what a visitor's uploads may cost the shared server. Each test is an
attack from the review, written to fail before the fix: a zip bomb of many small members, the quota
of all knowledge bases together, the page and chunk caps, the case cap of an evaluation upload, a
long Chinese file name, and a Cancel that must leave an index that still answers."""
from __future__ import annotations

import io
import threading

import pytest

from rag import kb_jobs
from rag.errors import UserInputError
from rag.eval.cases import EvalSetError, cases_from_upload
from rag.ingest import ingest_folder
from rag.ingest.kbs import create_kb, file_rows
from rag.ingest.store import Store
from rag.ingest.uploads import UploadLimits, folder_bytes, safe_relative_name, save_document, save_zip
from rag.retrieval import retriever_factory
from tests.retrieval.conftest import make_settings
from tests.retrieval.test_knowledge_bases import LUMA, ZORBLAX, CountingEmbedder, make_zip


@pytest.fixture
def kb_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"

LONG_CHINESE = "知" * 83 + ".md"  # 84 characters, 252 bytes in UTF-8: legal on ext4


# --- finding 5: zip bombs counted on the bytes written ------------------------------------------
def test_a_zip_of_many_small_members_writes_no_more_than_its_ratio_allows(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    members = {f"f{i:03d}.txt": b"a" * 190 * 1024 for i in range(200)}  # each under the old 1 MB floor
    data = make_zip(members)
    assert len(data) < 200 * 1024 and sum(map(len, members.values())) > 30 * 1024 * 1024
    limits = UploadLimits(max_ratio=100)
    saved = save_zip(folder, "bomb.zip", data, limits)
    written = folder_bytes(folder)
    assert written <= 100 * len(data) + 1024 * 1024 + 190 * 1024  # the archive's ratio, counted while writing
    assert len(saved.written) < len(members)
    last = saved.skipped[-1]
    assert last.filename == "bomb.zip" and "zip bomb" in last.reason and "not extracted" in last.reason


def test_a_legitimate_zip_of_text_is_extracted_whole(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    data = make_zip({"guide/intro.md": ZORBLAX, "notes.txt": LUMA})
    assert sorted(save_zip(folder, "ok.zip", data).written) == ["guide/intro.md", "notes.txt"]


# --- finding 5: one quota for all knowledge bases ---------------------------------------------
def test_the_quota_of_all_knowledge_bases_refuses_with_its_number(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    limits = UploadLimits(max_total_bytes=2 * 1024 * 1024)
    big = save_document(folder, "a.md", b"x" * 1000, limits, used_bytes=0, total_used=2 * 1024 * 1024 - 10)
    assert not big.written and "quota of 2 MB" in big.skipped[0].reason and "RAG_KB_QUOTA_MB" in big.skipped[0].reason
    zipped = save_zip(folder, "a.zip", make_zip({"a.md": b"x" * 1000}), limits, used_bytes=0,
                      total_used=2 * 1024 * 1024 - 10)
    assert not zipped.written and "quota" in zipped.skipped[-1].reason
    assert list(folder.iterdir()) == []


def test_the_quota_is_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("RAG_KB_QUOTA_MB", "3")
    monkeypatch.setenv("RAG_KB_MAX_MB", "2")
    monkeypatch.setenv("RAG_ZIP_MAX_RATIO", "nonsense")  # a typo keeps the default, never removes the limit
    limits = UploadLimits.from_env()
    assert limits.max_total_bytes == 3 * 1024 * 1024 and limits.max_kb_bytes == 2 * 1024 * 1024
    assert limits.max_ratio == 100


# --- finding 5: pages and chunks per document --------------------------------------------------
def _blank_pdf(pages: int) -> bytes:
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=200, height=200)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def test_a_pdf_with_more_pages_than_allowed_is_skipped_with_the_number(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_MAX_PAGES_PER_DOC", "50")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "many.pdf").write_bytes(_blank_pdf(60))
    (docs / "ok.md").write_bytes(ZORBLAX)
    report = ingest_folder(docs, tmp_path / "store", embedder=None)
    assert report.ingested == ["ok.md"]
    (skip,) = report.skipped
    assert skip.filename == "many.pdf" and "60 > 50" in skip.reason and "RAG_MAX_PAGES_PER_DOC" in skip.reason


def test_a_document_with_more_chunks_than_allowed_is_skipped_with_the_number(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "long.md").write_text("\n\n".join(f"## Part {i}\n\n" + "word " * 400 for i in range(30)), "utf-8")
    (docs / "ok.md").write_bytes(ZORBLAX)
    report = ingest_folder(docs, tmp_path / "store", embedder=None, max_chunks=10)
    assert report.ingested == ["ok.md"]
    assert "> 10" in report.skipped[0].reason and "RAG_MAX_CHUNKS_PER_DOC" in report.skipped[0].reason


# --- finding 5: cases per uploaded evaluation set ----------------------------------------------
@pytest.mark.parametrize("name, body", [
    ("set.jsonl", "\n".join('{"question": "q%d"}' % i for i in range(6))),
    ("set.csv", "question\n" + "\n".join(f"q{i}" for i in range(6))),
])
def test_an_uploaded_set_with_too_many_cases_is_refused_with_the_number(monkeypatch, name, body):
    monkeypatch.setenv("RAG_MAX_EVAL_CASES", "5")
    with pytest.raises(EvalSetError, match="more than 5 cases"):
        cases_from_upload(name, body.encode())
    monkeypatch.setenv("RAG_MAX_EVAL_CASES", "6")
    assert len(cases_from_upload(name, body.encode())) == 6


# --- finding 10: long names, and no server path in a message -------------------------------------
def test_a_long_chinese_name_up_to_the_file_system_limit_is_accepted(tmp_path):
    assert len(LONG_CHINESE.encode("utf-8")) == 252
    folder = tmp_path / "docs"
    folder.mkdir()
    saved = save_document(folder, LONG_CHINESE, ZORBLAX)
    assert saved.written == [LONG_CHINESE], saved.skipped
    assert (folder / LONG_CHINESE).read_bytes() == ZORBLAX
    zipped = save_zip(folder, "z.zip", make_zip({"sub/" + LONG_CHINESE: LUMA}))
    assert zipped.written == ["sub/" + LONG_CHINESE], zipped.skipped


def test_a_name_past_255_bytes_is_refused_with_the_count_and_no_server_path(tmp_path):
    with pytest.raises(UserInputError, match="258 bytes") as err:
        safe_relative_name("知" * 86)
    assert str(tmp_path) not in str(err.value)
    folder = tmp_path / "docs"
    folder.mkdir()
    saved = save_document(folder, "知" * 86 + ".md", ZORBLAX)
    assert not saved.written and "too long" in saved.skipped[0].reason
    assert "/" not in saved.skipped[0].reason


def test_a_write_error_does_not_show_the_server_path(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "sub").write_text("a file where a folder is needed")
    saved = save_document(folder / "sub", "a.md", ZORBLAX)
    assert saved.skipped and str(tmp_path) not in saved.skipped[0].reason


# --- finding 5: Cancel ---------------------------------------------------------------------------
class GatedEmbedder(CountingEmbedder):
    """Embeds the first batch, then waits until the test has pressed Cancel."""

    def __init__(self):
        super().__init__()
        self.first = threading.Event()
        self.go_on = threading.Event()

    def embed_passages(self, texts):
        out = super().embed_passages(texts)
        self.first.set()
        self.go_on.wait(10)
        return out


def test_cancel_between_files_keeps_the_files_done_and_the_index_answers(kb_cache):
    folders = create_kb("cancel-files")
    for i in range(40):
        (folders.docs / f"f{i:02d}.md").write_bytes(ZORBLAX.replace(b"forty", f"{i} and forty".encode()))
    job = kb_jobs.IngestJob(folders, make_settings(dense_enabled=False), embedder=None)
    reached = threading.Event()
    seen = []

    def on_event(event, _orig=job.on_event):
        _orig(event)
        if event.stage == "ingested":
            seen.append(event.filename)
            if len(seen) == 3:
                job.cancel()
                reached.set()
    job.on_event = on_event
    job.thread.start()
    assert job.wait(60)
    state = job.snapshot()
    assert state.status == "cancelled" and state.report.cancelled
    store = Store.load(folders.store)
    assert sorted(store.files) == sorted(seen) and 3 <= len(seen) < 40
    rows = {r.filename: r.status for r in file_rows("cancel-files")}
    assert [rows[f] for f in seen] == ["ingested"] * len(seen)
    assert list(rows.values()).count("waiting") == 40 - len(seen)
    found = retriever_factory.get_default_retriever(make_settings(kb_dir=folders.docs, dense_enabled=False, top_k=3)) \
        .search("Zorblax reactor cooldown")
    assert found.chunks and "Zorblax" in found.chunks[0].text and found.chunks[0].filename in seen
    again = kb_jobs.start_ingest("cancel-files", make_settings(dense_enabled=False), embedder=None)
    assert again.wait(60) and again.snapshot().status == "done"  # the next ingestion finishes the rest
    assert len(Store.load(folders.store).files) == 40


def test_cancel_mid_embedding_keeps_every_leaf_with_a_vector(kb_cache):
    folders = create_kb("cancel-embed")
    for i in range(6):
        (folders.docs / f"f{i}.md").write_bytes(ZORBLAX + f"\n\nDocument {i} of six, with its own text.\n".encode() * 3)
    first = kb_jobs.IngestJob(folders, make_settings(), embedder=CountingEmbedder())
    first.thread.start()
    assert first.wait(60) and first.snapshot().status == "done"
    for i in range(6, 150):
        (folders.docs / f"f{i}.md").write_bytes(LUMA + f"\n\nLamp {i}: a text of its own.\n".encode() * 3)
    embedder = GatedEmbedder()
    job = kb_jobs.IngestJob(folders, make_settings(), embedder=embedder)
    job.thread.start()
    assert embedder.first.wait(30)
    job.cancel()
    embedder.go_on.set()
    assert job.wait(60)
    state = job.snapshot()
    assert state.status == "cancelled"
    store = Store.load(folders.store)
    from rag.ingest.store import text_hash

    assert all(text_hash(leaf.search_text()) in store.vectors for leaf in store.leaves())
    assert {f"f{i}.md" for i in range(6)} <= set(store.files)  # what was done before stays searchable
    assert len(store.files) < 150  # the batches not started were dropped, with their files
    found = retriever_factory.get_default_retriever(make_settings(kb_dir=folders.docs, dense_enabled=False, top_k=3)) \
        .search("Zorblax reactor cooldown")
    assert found.chunks and "Zorblax" in found.chunks[0].text


@pytest.mark.parametrize("raw, shown", [
    ("[Errno 13] Permission denied: '/srv/cache/kbs/a/store/docstore.jsonl'", "Permission denied: '…/docstore.jsonl'"),
    ("cannot open /tmp/x.db now", "cannot open …/x.db now"),
    ("see http://host/a/b", "see http://host/a/b"),
    ("3/4 done", "3/4 done"),
])
def test_a_failed_jobs_error_names_no_server_folder(raw, shown):
    assert shown in kb_jobs.without_paths(raw) and "/srv/" not in kb_jobs.without_paths(raw)


def test_a_failed_ingestion_shows_no_server_path(kb_cache):
    folders = create_kb("broken")
    (folders.docs / "a.md").write_bytes(ZORBLAX)
    folders.store.write_text("a file where the store folder should be")
    job = kb_jobs.start_ingest("broken", make_settings(dense_enabled=False), embedder=None)
    assert job.wait(60)
    state = job.snapshot()
    assert state.status == "failed" and str(kb_cache) not in (state.error or "")
