"""Read one file into pages of text, or say in plain words why it cannot be ingested.

A bad file must never stop a folder ingest: every failure here is a `BadFile` with a reason
that the report shows next to the file name.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from rag.errors import BadFile
from rag.ingest import words

SUPPORTED_SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".txt": "text", ".pdf": "pdf"}
MAX_FILE_BYTES = 20 * 1024 * 1024


def _decode(data: bytes) -> str:
    if b"\x00" in data[:8192]:
        raise BadFile(words.BINARY_TEXT)
    for enc in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(enc)
        except UnicodeDecodeError:
            continue
    raise BadFile(words.NOT_TEXT)


def file_kind(path: Path) -> str:
    """The loader kind of a file by its suffix; BadFile for a type we do not read."""
    kind = SUPPORTED_SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise BadFile(words.UNSUPPORTED_TYPE.format(suffix=path.suffix or "(none)"))
    return kind


def read_file_bytes(path: Path, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The file's bytes, refusing a file over `max_bytes` before reading it; BadFile otherwise."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise BadFile(words.TOO_LARGE.format(size=size, limit=max_bytes))
        return path.read_bytes()
    except OSError as exc:
        raise BadFile(words.UNREADABLE.format(error=exc.strerror or exc)) from exc


def read_pages(path: Path, data: Optional[bytes] = None, max_bytes: int = MAX_FILE_BYTES,
               max_pages: Optional[int] = None) -> list[tuple[Optional[int], str]]:
    """(page number, text) pairs; page numbers are 1-based for PDF and None for unpaged text. A PDF of
    more than `max_pages` pages (default `RAG_MAX_PAGES_PER_DOC`) is refused before any page is read:
    1.7 MB of PDF can declare 5,000 pages, each one parsed and chunked on the server's CPU."""
    kind = file_kind(path)
    if data is None:
        data = read_file_bytes(path, max_bytes)
    if len(data) > max_bytes:
        raise BadFile(words.TOO_LARGE.format(size=len(data), limit=max_bytes))
    if not data.strip():
        raise BadFile(words.EMPTY_FILE)
    if kind == "pdf":
        from rag.ingest.limits import max_pages_per_doc

        pages = _pdf_pages(data, max_pages or max_pages_per_doc())
    else:
        pages = [(None, _decode(data))]
    if not any(text.strip() for _, text in pages):
        raise BadFile(words.NO_TEXT)
    return pages


def _pdf_pages(data: bytes, max_pages: int) -> list[tuple[Optional[int], str]]:
    import io
    import logging

    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    if not data.startswith(b"%PDF"):
        raise BadFile(words.NOT_PDF)
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise BadFile(words.ENCRYPTED_PDF)
        if len(reader.pages) > max_pages:
            raise BadFile(words.TOO_MANY_PAGES.format(count=len(reader.pages), limit=max_pages))
        return [(i + 1, page.extract_text() or "") for i, page in enumerate(reader.pages)]
    except BadFile:
        raise
    except Exception as exc:  # pypdf raises many types for damaged files
        raise BadFile(words.UNREADABLE_PDF.format(error=f"{type(exc).__name__}: {exc}")) from exc
