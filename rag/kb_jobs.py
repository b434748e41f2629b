"""Background ingestion of a named knowledge base, with progress a page can poll.

Why a registry outside the UI: an ingestion outlives the script run (and the browser tab) that
started it. Jobs live in this process, one per knowledge base, found again by the knowledge base's
name, so a page reloaded mid-ingestion shows the same progress bar; a finished job's result is also
written to `<kb>/last_ingest.json`, so the per-file results survive a server restart too.

Jobs run one at a time in this process (a second waits as "queued"): embedding with the local model
uses every core of a small server, and two at once would only take twice as long each. Each job
is `rag.ingest.ingest_folder` (incremental: an unchanged file is not parsed or embedded again) with
its `events` hook feeding the progress; with `RAG_RETRIEVER=milvus` the knowledge base's collection
is then synced from the store. Last, the retriever caches of that folder are dropped, so the next
question searches the new files.
"""
from __future__ import annotations

import logging
import os
import re
import threading
import time
import uuid
from typing import Any, Literal, Optional, Sequence

from pydantic import BaseModel, Field

from rag.access import OPERATOR_PERMIT, Permit
from rag.errors import UserInputError
from rag.i18n import _
from rag.ingest import AUTO, ingest_folder, words
from rag.ingest.kbs import KbFolders, existing_kb
from rag.ingest.models import IngestEvent, IngestReport, SkippedFile
from rag.ingest.store import _atomic_write
from rag.settings import RagSettings

log = logging.getLogger(__name__)

JobStatus = Literal["queued", "running", "done", "failed", "cancelled"]

#: How much lower than the page's threads an ingestion runs (Linux `nice`, per thread): parsing and
#: embedding take every core they are given, and the debugger's Step must not wait behind them.
NICE_INCREMENT = 10

#: Share of the progress bar per phase: files (parse + chunk), then embedding, then the index sync.
FILES_SHARE, EMBED_SHARE = 0.5, 0.45


class FileProgress(BaseModel):
    filename: str
    stage: str = "waiting"  # parsing, chunking, embedding, ingested, unchanged, skipped, removed
    chunks: int = 0
    reason: Optional[str] = None


class JobState(BaseModel):
    """A snapshot of one ingestion, safe to hand to a page (a copy: the job keeps running)."""

    job_id: str
    kb: str
    status: JobStatus = "queued"
    stage: str = words.WAITING_FOR_OTHER
    fraction: float = Field(0.0, ge=0.0, le=1.0)
    files: list[FileProgress] = Field(default_factory=list)
    rejected: list[SkippedFile] = Field(default_factory=list, description="refused at upload, never written")
    report: Optional[IngestReport] = None
    backend: str = "embedded"
    index_sync: Optional[dict[str, int]] = None
    error: Optional[str] = None
    started_at: float = Field(default_factory=time.time)
    finished_at: Optional[float] = None

    @property
    def finished(self) -> bool:
        return self.status in ("done", "failed", "cancelled")

    def skipped_reasons(self) -> dict[str, str]:
        """filename → why the last ingestion skipped it (files still on disk). The report is read
        too, so a file skipped by a rule that emits no event is still listed with its reason."""
        reasons = {s.filename: s.reason for s in (self.report.skipped if self.report else [])}
        reasons.update({f.filename: f.reason or words.SKIPPED for f in self.files if f.stage == "skipped"})
        return reasons


class IngestJob:
    """One ingestion of one knowledge base, run in a daemon thread."""

    def __init__(self, folders: KbFolders, settings: RagSettings, *, rejected: Sequence[SkippedFile] = (),
                 embedder: Any = AUTO):
        self.folders = folders
        self.settings = settings
        self.embedder = embedder
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._cancel = threading.Event()
        self._state = JobState(job_id=uuid.uuid4().hex[:12], kb=folders.name, rejected=list(rejected),
                               backend=settings.retriever_backend)
        self._files: dict[str, FileProgress] = {}
        self.thread = threading.Thread(target=self._run, name=f"ingest-{folders.name}", daemon=True)

    # --- reading ------------------------------------------------------------------------------
    def snapshot(self) -> JobState:
        with self._lock:
            state = self._state.model_copy(deep=True)
            state.files = [f.model_copy() for f in self._files.values()]
            return state

    def cancel(self) -> None:
        """Ask the job to stop after the file (or embedding batch) in hand; the files done are kept."""
        self._cancel.set()

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    def wait(self, timeout: Optional[float] = None) -> bool:
        """True once the job finished (done or failed) within `timeout` seconds."""
        return self._done.wait(timeout)

    # --- progress -----------------------------------------------------------------------------
    def _set(self, **fields) -> None:
        with self._lock:
            for key, value in fields.items():
                setattr(self._state, key, value)

    def on_event(self, event: IngestEvent) -> None:
        """The `events` hook of `ingest_folder`: per-file stage and the bar's position."""
        with self._lock:
            state = self._state
            if event.stage == "start":
                state.stage = words.found_files(event.total)
                state.fraction = 0.0
            elif event.stage == "embedding":
                # the files chunked in this run wait for their vectors; leaves are embedded in the
                # order the files were chunked, so every file before the batch's last one is done
                if event.done == 0:
                    for f in self._files.values():
                        if f.stage == "ingested":
                            f.stage = "embedding"
                elif event.filename in self._files:
                    for f in self._files.values():
                        if f.filename == event.filename:
                            break
                        if f.stage == "embedding":
                            f.stage = "ingested"
                state.stage = words.EMBEDDING_CHUNKS.format(done=event.done, total=event.total)
                state.fraction = FILES_SHARE + EMBED_SHARE * (event.done / max(event.total, 1))
            elif event.stage == "finished":
                for f in self._files.values():
                    if f.stage == "embedding":
                        f.stage = "ingested"
                state.fraction = max(state.fraction, FILES_SHARE + EMBED_SHARE)
            elif event.filename:
                f = self._files.setdefault(event.filename, FileProgress(filename=event.filename))
                f.stage = event.stage
                if event.stage == "ingested":
                    f.chunks = event.chunks
                if event.reason:
                    f.reason = event.reason
                if event.total:
                    state.stage = words.FILE_STAGE_AT.format(stage=event.stage, filename=event.filename,
                                                             index=event.index, total=event.total)
                    done = event.index - (1 if event.stage in ("parsing", "chunking") else 0)
                    state.fraction = FILES_SHARE * done / event.total
                else:
                    state.stage = words.FILE_STAGE.format(stage=event.stage, filename=event.filename)

    # --- the work -----------------------------------------------------------------------------
    def _embedder(self) -> tuple[Any, Optional[str]]:
        if self.embedder != AUTO:
            return self.embedder, None
        if not self.settings.dense_enabled or self.settings.retriever_backend == "bm25":
            return None, None
        from rag.ingest.embedders import default_embedder

        return default_embedder(self.settings)

    def _run(self) -> None:
        _lower_priority()
        try:
            with _run_lock:
                self._set(status="running", stage="starting")
                self._ingest()
            report = self.snapshot().report
            cancelled = report is not None and report.cancelled
            self._set(status="cancelled" if cancelled else "done", stage="cancelled" if cancelled else "finished",
                      fraction=1.0, finished_at=time.time())
        except Exception as exc:  # noqa: BLE001 - reported on the page; the full traceback goes to the log
            log.exception("ingestion of knowledge base %s failed", self.folders.name)
            text = without_paths(str(exc).strip().splitlines()[0])[:300] if str(exc).strip() else ""
            self._set(status="failed", stage="failed", finished_at=time.time(),
                      error=f"{type(exc).__name__}: {text}" if text else type(exc).__name__)
        finally:
            self._save_result()  # first: its mtime is the version other app servers compare
            self._forget_retrievers()
            self._done.set()

    def _forget_retrievers(self) -> None:
        """Whatever was written, the next question must open the folder afresh."""
        try:
            from rag.retrieval import retriever_factory

            retriever_factory.forget_knowledge_base(self.folders.docs)
        except Exception:  # noqa: BLE001 - the version check of the factory catches up anyway
            log.warning("could not drop the cached retrievers of %s", self.folders.name, exc_info=True)

    def _ingest(self) -> None:
        from rag.retrieval import retriever_factory

        embedder, embedding_error = self._embedder()
        report = ingest_folder(self.folders.docs, self.folders.store, embedder=embedder, events=self.on_event,
                               should_stop=self._cancel.is_set)
        if embedding_error and not report.embedding_error:
            report.embedding_error = embedding_error
        self._set(report=report)
        if self.settings.retriever_backend == "milvus":
            from rag.ingest.store import Store
            from rag.retrieval.milvus_backend import sync_collection

            self._set(stage="writing the chunks to Milvus", fraction=FILES_SHARE + EMBED_SHARE)
            client = retriever_factory.milvus_client(self.settings)
            collection = retriever_factory.milvus_collection_of(self.settings, self.folders.docs)
            counts = sync_collection(client, collection, Store.load(self.folders.store))
            self._set(index_sync=counts)

    def _save_result(self) -> None:
        try:
            state = self.snapshot()
            _atomic_write(self.folders.last_ingest, state.model_dump_json(indent=1).encode("utf-8"))
        except OSError:
            log.warning("could not write %s", self.folders.last_ingest, exc_info=True)


def _lower_priority() -> None:
    """Run this thread (and the embedding threads it starts, which inherit it) at a lower priority,
    so the server's other threads (a Step, a page) get the CPU first. Linux only; elsewhere a no-op."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE_INCREMENT)
    except (AttributeError, OSError):
        pass


_PATH = re.compile(r"(?<![\w:/.])/(?:[^\s/'\"]+/)*[^\s/'\"]+")


def without_paths(text: str) -> str:
    """`text` with every absolute file path replaced by its last name (pure): a job's error is shown
    to every visitor of the page, the server's folders only to its log."""
    return _PATH.sub(lambda m: "…/" + m.group(0).rsplit("/", 1)[-1], text)


_jobs: dict[str, IngestJob] = {}
_jobs_lock = threading.Lock()
_run_lock = threading.Lock()


def require_change(name: str, permit: Permit) -> None:
    """AccessRefused unless `permit` may change knowledge base `name` (add or delete its files, ingest it again):
    its creator or an admin with a login; without one, when visitors may change shared state (rag/access.py)."""
    from rag.ingest.owners import read_owner

    permit.require("change_kb", read_owner(existing_kb(name).root))


def start_ingest(name: str, settings: RagSettings, *, rejected: Sequence[SkippedFile] = (),
                 embedder: Any = AUTO, permit: Permit = OPERATOR_PERMIT) -> IngestJob:
    """Start ingesting a knowledge base in the background; UserInputError when it does not exist
    or an ingestion of it is already queued or running, AccessRefused when `permit` may not change it.
    `rejected`: files refused at upload, kept in the job's result so the page lists them with the rest.
    `embedder`: "auto" (the settings' embedder when the dense leg is on), None, or an embedder object (tests)."""
    require_change(name, permit)
    folders = existing_kb(name)
    with _jobs_lock:
        running = _jobs.get(folders.name)
        if running is not None and not running.snapshot().finished:
            raise UserInputError(_("knowledge base {name} is already being ingested; wait for it to finish")
                                 .format(name=repr(folders.name)))
        job = _jobs[folders.name] = IngestJob(folders, settings, rejected=rejected, embedder=embedder)
        job.thread.start()
        return job


def get_job(name: str) -> Optional[IngestJob]:
    """The job of this process for a knowledge base (running or the last one), if any."""
    with _jobs_lock:
        return _jobs.get(name)


def job_state(name: str) -> Optional[JobState]:
    """The latest ingestion of a knowledge base: this process's job, else the result saved by the
    last one (after a restart), else None."""
    job = get_job(name)
    if job is not None:
        return job.snapshot()
    try:
        return JobState.model_validate_json(existing_kb(name).last_ingest.read_text("utf-8"))
    except (OSError, ValueError):
        return None


def cancel_ingest(name: str) -> bool:
    """Ask the running (or queued) ingestion of a knowledge base to stop; False when none runs."""
    job = get_job(name)
    if job is None or job.snapshot().finished:
        return False
    job.cancel()
    return True


def is_busy(name: str) -> bool:
    job = get_job(name)
    return job is not None and not job.snapshot().finished


def forget_job(name: str) -> None:
    """Drop a finished job from the registry (a deleted knowledge base)."""
    with _jobs_lock:
        job = _jobs.get(name)
        if job is not None and job.snapshot().finished:
            del _jobs[name]


def delete_knowledge_base(name: str, settings: RagSettings, *, login: bool = False, person: str = "",
                          permit: Optional[Permit] = None) -> None:
    """Delete a knowledge base: its documents, its store and, with `RAG_RETRIEVER=milvus`, its
    collection; the retrievers of this process forget it. Refused while it is being ingested, and,
    with a login (`login`), to anyone but its creator and `RAG_ADMINS` (`rag.ingest.owners`)."""
    from rag.ingest.kbs import delete_kb
    from rag.ingest.owners import admins, may_delete, read_owner
    from rag.retrieval import retriever_factory

    folders = existing_kb(name)
    owner = read_owner(folders.root)
    if permit is not None:  # the app's check (rag/access.py); without a login it follows RAG_SHARED_STATE
        permit.require("delete_kb", owner)
    elif not may_delete(login=login, person=person, owner=owner, admin_set=admins()):
        raise UserInputError(
            _("only {owner} (who created {name}) or an administrator (RAG_ADMINS) can delete it").format(
                owner=owner, name=repr(folders.name)) if owner else
            _("only an administrator (RAG_ADMINS) can delete {name}: nobody is recorded as its creator").format(
                name=repr(folders.name)))
    if is_busy(folders.name):
        raise UserInputError(_("knowledge base {name} is being ingested; delete it when that finishes")
                             .format(name=repr(folders.name)))
    if settings.retriever_backend == "milvus":
        client = retriever_factory.milvus_client(settings)
        collection = retriever_factory.milvus_collection_of(settings, folders.docs)
        if client.has_collection(collection):
            client.drop_collection(collection)
    retriever_factory.forget_knowledge_base(folders.docs)
    delete_kb(folders.name)
    forget_job(folders.name)
