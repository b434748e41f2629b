"""Named knowledge bases of the app: names, safe uploads and zips, the background job registry,
incremental re-ingest, the retriever seeing new files, and the same page writing to Milvus Lite.
Embedding uses a counting fake (a few chunks), so nothing here waits for the real model."""
from __future__ import annotations

import io
import stat
import zipfile

import numpy as np
import pytest

from rag import kb_jobs
from rag.errors import UserInputError
from rag.ingest.kbs import create_kb, delete_document, existing_kb, file_rows, list_kbs, validate_kb_name
from rag.ingest.models import SkippedFile
from rag.ingest.paths import default_store_dir, kb_label, kbs_root, named_kb_of
from rag.ingest.uploads import UploadLimits, safe_relative_name, save_document, save_zip
from rag.retrieval import retriever_factory
from tests.retrieval.conftest import make_settings, milvus_missing_reason

ZORBLAX = (b"# Zorblax reactor\n\nThe Zorblax reactor cooldown is forty seconds.\n\n"
           b"## Fuel\n\nThe reactor burns blue crystals only.\n")
LUMA = b"Luma lamps glow green when the battery is full."


class CountingEmbedder:
    model_id = "counting-4"

    def __init__(self):
        self.texts: list[str] = []

    def embed_passages(self, texts):
        self.texts += list(texts)
        return np.array([[len(t) % 7 + 1, 1.0, 2.0, 3.0] for t in texts], dtype=np.float32)

    def embed_query(self, text):
        return np.array([1.0, 1.0, 2.0, 3.0], dtype=np.float32)


def make_zip(members: dict[str, bytes], *, symlinks: dict[str, str] | None = None) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        for name, target in (symlinks or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
    return buf.getvalue()


@pytest.fixture
def kb_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def run_job(name, settings=None, embedder=None, **kw):
    job = kb_jobs.start_ingest(name, settings or make_settings(dense_enabled=False), embedder=embedder, **kw)
    assert job.wait(60), "the ingestion job did not finish"
    state = job.snapshot()
    assert state.status == "done", state.error
    return state


# --- names -------------------------------------------------------------------------------------
@pytest.mark.parametrize("raw, stored", [("docs", "docs"), ("  Team-Docs_2 ", "team-docs_2"), ("a" * 40, "a" * 40)])
def test_valid_names_are_stored_lowercase(raw, stored):
    assert validate_kb_name(raw) == stored


@pytest.mark.parametrize("raw", ["", "   ", "-docs", "_x", "a" * 41, "../etc", "a/b", "a.b", "知识库", "a b", "con\x00"])
def test_unsafe_names_are_refused_with_the_rule(raw):
    with pytest.raises(UserInputError, match="lowercase letters, digits"):
        validate_kb_name(raw)


def test_a_named_kb_keeps_its_store_beside_its_documents(kb_cache):
    folders = create_kb("manuals")
    assert folders.docs == kbs_root() / "manuals" / "docs" and folders.docs.is_dir()
    assert default_store_dir(folders.docs) == folders.store  # the CLI and the retriever agree
    assert named_kb_of(folders.docs) == "manuals" and kb_label(folders.docs) == "manuals"
    assert named_kb_of(kb_cache / "elsewhere" / "docs") is None
    assert list_kbs() == ["manuals"]
    with pytest.raises(UserInputError, match="already exists"):
        create_kb("Manuals")
    with pytest.raises(UserInputError, match="no knowledge base"):
        existing_kb("nothing")


# --- uploads and zips --------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["../x.md", "/etc/passwd.md", "a/../../x.md", "C:/x.md", "..\\..\\x.md",
                                  ".hidden.md", "docs/.git/x.md", "bad\x07name.md", ""])
def test_unsafe_member_names_are_refused(name):
    with pytest.raises(UserInputError):
        safe_relative_name(name)


def test_safe_names_keep_their_folders():
    assert safe_relative_name("guides\\setup/intro.md") == "guides/setup/intro.md"
    assert safe_relative_name("./说明 (v2).md") == "说明 (v2).md"


def test_a_document_upload_is_bounded_and_typed(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    limits = UploadLimits(max_file_bytes=100, max_kb_bytes=150)
    assert save_document(folder, "a.md", b"x" * 90, limits).written == ["a.md"]
    too_big = save_document(folder, "b.md", b"x" * 101, limits)
    assert not too_big.written and "too large" in too_big.skipped[0].reason
    full = save_document(folder, "c.md", b"x" * 90, limits)
    assert "would exceed" in full.skipped[0].reason
    exe = save_document(folder, "run.exe", b"MZ", limits)
    assert "unsupported file type .exe" in exe.skipped[0].reason
    assert sorted(p.name for p in folder.iterdir()) == ["a.md"]  # nothing half-written, no temp files


def test_zip_extraction_refuses_traversal_symlinks_and_odd_members(tmp_path):
    folder = tmp_path / "kb" / "docs"
    folder.mkdir(parents=True)
    data = make_zip({
        "guide/intro.md": ZORBLAX, "notes.txt": LUMA, "../escape.md": b"climb", "/abs.md": b"abs",
        "tool.exe": b"MZ", "inner.zip": make_zip({"x.md": b"x"}), ".env": b"SECRET=1",
        "__MACOSX/._intro.md": b"junk",
    }, symlinks={"link.md": "/etc/passwd"})
    saved = save_zip(folder, "bundle.zip", data)
    assert sorted(saved.written) == ["guide/intro.md", "notes.txt"]
    reasons = {s.filename: s.reason for s in saved.skipped}
    assert "climbs out" in reasons["bundle.zip:../escape.md"]
    assert "absolute" in reasons["bundle.zip:/abs.md"]
    assert "symlink" in reasons["bundle.zip:link.md"]
    assert "unsupported file type .exe" in reasons["bundle.zip:tool.exe"]
    assert "unsupported file type .zip" in reasons["bundle.zip:inner.zip"]
    assert "hidden" in reasons["bundle.zip:.env"]
    assert not any("MACOSX" in name for name in reasons)
    assert not (tmp_path / "kb" / "escape.md").exists() and not (tmp_path / "escape.md").exists()
    assert (folder / "guide" / "intro.md").read_bytes() == ZORBLAX


def test_zip_bombs_and_oversized_archives_are_refused(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    bomb = make_zip({"bomb.txt": b"0" * (5 * 1024 * 1024)})  # ~5 KB that inflate to 5 MB
    assert len(bomb) < 64 * 1024
    saved = save_zip(folder, "bomb.zip", bomb, UploadLimits(max_ratio=100))
    assert not saved.written and "ratio" in saved.skipped[0].reason
    saved = save_zip(folder, "big.zip", bomb, UploadLimits(max_zip_total_bytes=1024 * 1024, max_ratio=10_000))
    assert not saved.written and "inflates to" in saved.skipped[0].reason
    many = make_zip({f"f{i}.txt": b"x" for i in range(5)})
    assert "5 files" in save_zip(folder, "many.zip", many, UploadLimits(max_zip_members=4)).skipped[0].reason
    assert "archive too large" in save_zip(folder, "a.zip", many, UploadLimits(max_zip_bytes=10)).skipped[0].reason
    assert "not a readable zip" in save_zip(folder, "fake.zip", b"PK not really").skipped[0].reason
    assert list(folder.iterdir()) == []


def test_a_zip_whose_headers_lie_is_cut_off_while_inflating(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    data = bytearray(make_zip({"small.txt": b"y" * 5000}))
    # the central directory now declares 10 bytes for 5,000: the member is read only that far, fails
    # its CRC check, and nothing of it reaches the folder
    cd = data.rfind(b"PK\x01\x02")
    data[cd + 24:cd + 28] = (10).to_bytes(4, "little")
    saved = save_zip(folder, "liar.zip", bytes(data), UploadLimits(max_file_bytes=100))
    assert not saved.written and saved.skipped
    assert list(folder.iterdir()) == []


# --- the job registry --------------------------------------------------------------------------
def test_a_job_reports_progress_per_file_and_is_found_again_by_name(kb_cache):
    folders = create_kb("manuals")
    save_document(folders.docs, "zorblax.md", ZORBLAX)
    save_document(folders.docs, "broken.pdf", b"%PDF-1.4 not really a pdf")
    save_document(folders.docs, "empty.txt", b"   ")
    embedder = CountingEmbedder()
    job = kb_jobs.start_ingest("manuals", make_settings(), embedder=embedder,
                            rejected=[SkippedFile(filename="tool.exe", reason="unsupported file type .exe")])
    assert job.wait(60)
    state = kb_jobs.job_state("manuals")
    assert state.status == "done" and state.fraction == 1.0
    stages = {f.filename: f.stage for f in state.files}
    assert stages == {"zorblax.md": "ingested", "broken.pdf": "skipped", "empty.txt": "skipped"}
    assert state.report.embedded == len(embedder.texts) > 0
    assert "PDF" in state.skipped_reasons()["broken.pdf"]
    rows = {r.filename: r for r in file_rows("manuals", state.skipped_reasons())}
    assert rows["zorblax.md"].status == "ingested" and rows["zorblax.md"].chunks >= 2
    assert rows["empty.txt"].status == "skipped" and rows["empty.txt"].reason == "empty file"
    assert [r.filename for r in state.rejected] == ["tool.exe"]
    # a restarted server: no job in memory, the saved result still says what happened
    kb_jobs.forget_job("manuals")
    again = kb_jobs.job_state("manuals")
    assert again.job_id == state.job_id and again.skipped_reasons() == state.skipped_reasons()


def test_progress_events_move_the_bar_forward_through_every_stage(kb_cache):
    folders = create_kb("steps")
    save_document(folders.docs, "a.md", ZORBLAX)
    save_document(folders.docs, "b.txt", LUMA)
    job = kb_jobs.IngestJob(existing_kb("steps"), make_settings(), embedder=CountingEmbedder())
    fractions, stages, file_stages = [], [], []
    real = job.on_event

    def spy(event):
        real(event)
        snap = job.snapshot()
        fractions.append(snap.fraction)
        stages.append(event.stage)
        file_stages.append({f.filename: f.stage for f in snap.files})
    job.on_event = spy
    job.thread.start()
    assert job.wait(60) and job.snapshot().status == "done"
    assert fractions == sorted(fractions), "the bar never goes back"
    assert {"start", "parsing", "chunking", "ingested", "embedding", "finished"} <= set(stages)
    assert {"a.md": "embedding", "b.txt": "embedding"} in file_stages  # both wait for their vectors
    assert file_stages[-1] == {"a.md": "ingested", "b.txt": "ingested"}


def test_a_second_start_while_running_is_refused(kb_cache, monkeypatch):
    import threading

    folders = create_kb("busy")
    save_document(folders.docs, "a.md", ZORBLAX)
    gate = threading.Event()

    class SlowEmbedder(CountingEmbedder):
        def embed_passages(self, texts):
            gate.wait(30)
            return super().embed_passages(texts)

    job = kb_jobs.start_ingest("busy", make_settings(), embedder=SlowEmbedder())
    try:
        assert kb_jobs.is_busy("busy")
        with pytest.raises(UserInputError, match="already being ingested"):
            kb_jobs.start_ingest("busy", make_settings())
    finally:
        gate.set()
    assert job.wait(60) and not kb_jobs.is_busy("busy")


def test_jobs_of_two_knowledge_bases_run_one_at_a_time(kb_cache):
    import threading

    for name in ("first", "second"):
        save_document(create_kb(name).docs, "a.md", ZORBLAX)
    gate, entered = threading.Event(), threading.Event()

    class GatedEmbedder(CountingEmbedder):
        def embed_passages(self, texts):
            entered.set()
            gate.wait(30)
            return super().embed_passages(texts)

    first = kb_jobs.start_ingest("first", make_settings(), embedder=GatedEmbedder())
    assert entered.wait(30)  # the first job is inside its ingestion
    second = kb_jobs.start_ingest("second", make_settings(), embedder=CountingEmbedder())
    try:
        assert not second.wait(0.5), "the second job must wait for the first"
        assert second.snapshot().status == "queued" and "waiting" in second.snapshot().stage
    finally:
        gate.set()
    assert first.wait(60) and second.wait(60)
    assert first.snapshot().status == second.snapshot().status == "done"


def test_a_failing_job_says_why_and_never_raises(kb_cache):
    folders = create_kb("fails")
    save_document(folders.docs, "a.md", ZORBLAX)

    class Broken(CountingEmbedder):
        def embed_passages(self, texts):
            raise RuntimeError("embedder exploded")

    state = run_job("fails", make_settings(), embedder=Broken())  # an embedding failure: sparse-only, still done
    assert "embedder exploded" in state.report.embedding_error
    (folders.store / "manifest.json").unlink()
    (folders.store / "manifest.json").mkdir()  # a store that cannot be written (even by root)
    job = kb_jobs.start_ingest("fails", make_settings(dense_enabled=False), embedder=None)
    assert job.wait(60)
    failed = job.snapshot()
    assert failed.status == "failed" and failed.error and "Traceback" not in failed.error


# --- incremental re-ingest and the retriever -------------------------------------------------
def test_reingest_embeds_only_new_files_and_deleted_files_leave_the_store(kb_cache):
    folders = create_kb("incremental")
    save_document(folders.docs, "zorblax.md", ZORBLAX)
    first = CountingEmbedder()
    run_job("incremental", make_settings(), first)
    assert first.texts
    save_document(folders.docs, "luma.txt", LUMA)
    second = CountingEmbedder()
    state = run_job("incremental", make_settings(), second)
    assert state.report.unchanged == ["zorblax.md"] and state.report.ingested == ["luma.txt"]
    assert second.texts and all("Zorblax" not in t for t in second.texts), "an unchanged file is not re-embedded"
    third = CountingEmbedder()
    state = run_job("incremental", make_settings(), third)
    assert third.texts == [] and state.report.ingested == []
    delete_document("incremental", "zorblax.md")
    state = run_job("incremental", make_settings(), CountingEmbedder())
    assert state.report.removed == ["zorblax.md"]
    assert [r.filename for r in file_rows("incremental")] == ["luma.txt"]
    with pytest.raises(UserInputError):
        delete_document("incremental", "../incremental/store/manifest.json")


def test_the_retriever_sees_new_files_after_an_ingest(kb_cache):
    folders = create_kb("fresh")
    save_document(folders.docs, "luma.txt", LUMA)
    settings = make_settings(kb_dir=folders.docs, dense_enabled=False, top_k=3)
    run_job("fresh", settings)
    before = retriever_factory.get_default_retriever(settings).search("Zorblax reactor cooldown")
    assert not any("Zorblax" in c.text for c in before.chunks)
    save_document(folders.docs, "zorblax.md", ZORBLAX)
    run_job("fresh", settings)
    after = retriever_factory.get_default_retriever(settings).search("Zorblax reactor cooldown")
    assert after.chunks and "Zorblax" in after.chunks[0].text


def test_forgetting_one_kb_keeps_the_others_loaded(kb_cache):
    a, b = create_kb("one"), create_kb("two")
    save_document(a.docs, "a.txt", LUMA)
    save_document(b.docs, "b.md", ZORBLAX)
    sa, sb = make_settings(kb_dir=a.docs, dense_enabled=False), make_settings(kb_dir=b.docs, dense_enabled=False)
    ra, rb = retriever_factory.get_default_retriever(sa), retriever_factory.get_default_retriever(sb)
    assert retriever_factory.forget_knowledge_base(a.docs) == 2  # its knowledge base and its retriever
    assert retriever_factory.get_default_retriever(sb) is rb and retriever_factory.get_default_retriever(sa) is not ra


# --- Milvus Lite --------------------------------------------------------------------------------
@pytest.mark.skipif(bool(milvus_missing_reason()), reason=milvus_missing_reason() or "")
def test_with_milvus_the_job_writes_the_kb_collection_and_the_retriever_answers_from_it(kb_cache, tmp_path):
    from rag.retrieval.milvus_backend import _existing

    folders = create_kb("team-docs")
    save_document(folders.docs, "zorblax.md", ZORBLAX)
    save_document(folders.docs, "luma.txt", LUMA)
    settings = make_settings(kb_dir=folders.docs, retriever_backend="milvus", dense_enabled=False, top_k=2,
                             milvus_uri=str(tmp_path / "lite" / "kb.db"), milvus_collection="rag_chunks",
                             auto_merge_enabled=False)
    state = run_job("team-docs", settings, None)
    collection = retriever_factory.milvus_collection_of(settings, folders.docs)
    assert collection.startswith("rag_chunks_team_docs_") and collection != "rag_chunks"
    client = retriever_factory.milvus_client(settings)
    assert state.index_sync["inserted"] == len(_existing(client, collection)) > 0
    result = retriever_factory.get_default_retriever(settings).search("Zorblax reactor cooldown")
    assert result.trace_fields["retrieval_mode"] == "sparse_only"
    assert "forty seconds" in result.chunks[0].text
    delete_document("team-docs", "zorblax.md")
    state = run_job("team-docs", settings, None)
    assert state.index_sync["deleted"] > 0
    assert "Zorblax" not in " ".join(c.text for c in retriever_factory.get_default_retriever(settings).search("Zorblax").chunks)
    kb_jobs.delete_knowledge_base("team-docs", settings)
    assert not client.has_collection(collection) and list_kbs() == []


def test_a_retriever_sees_an_ingest_run_by_another_app_server(kb_cache):
    """Two app servers sharing the cache folder: the other one's job writes the store and its
    `last_ingest.json`; this process never ran a job, yet its next search sees the new file."""
    import os

    from rag.ingest import ingest_folder

    folders = create_kb("shared")
    save_document(folders.docs, "luma.txt", LUMA)
    settings = make_settings(kb_dir=folders.docs, dense_enabled=False, top_k=3)
    run_job("shared", settings)
    stale = retriever_factory.get_default_retriever(settings)
    save_document(folders.docs, "zorblax.md", ZORBLAX)
    ingest_folder(folders.docs, folders.store, embedder=None)  # the other server's ingestion
    result = folders.last_ingest
    result.write_text(result.read_text("utf-8"), "utf-8")
    later = result.stat().st_mtime_ns + 1_000_000
    os.utime(result, ns=(later, later))
    fresh = retriever_factory.get_default_retriever(settings)
    assert fresh is not stale
    assert "Zorblax" in fresh.search("Zorblax reactor cooldown").chunks[0].text
    assert retriever_factory.get_default_retriever(settings) is fresh  # no change: the cached one again
