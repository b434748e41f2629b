"""What an ingestion says about a file and about its progress, in English as it is stored, and in the
reader's language where a page shows it (`translate_ingest`).

Why English first: an ingestion runs in a background thread and every browser watching the knowledge
base reads the same job, so its text cannot be in one reader's language. The loaders and the job format
these templates; the Knowledge bases page translates them with the same table.
"""
from __future__ import annotations

from rag.i18n import N_, _
from rag.i18n.read_back import TemplateTable

BINARY_TEXT = N_("binary content (NUL bytes) in a text file")
NOT_TEXT = N_("not valid UTF-8 or GB18030 text")
UNSUPPORTED_TYPE = N_("unsupported file type {suffix}")
TOO_LARGE = N_("too large ({size} bytes > {limit})")
UNREADABLE = N_("unreadable: {error}")
EMPTY_FILE = N_("empty file")
NO_TEXT = N_("no extractable text")
NOT_PDF = N_("not a PDF (missing %PDF header)")
ENCRYPTED_PDF = N_("encrypted PDF")
UNREADABLE_PDF = N_("unreadable PDF: {error}")
OUTSIDE_LINK = N_("symbolic link leading outside the knowledge-base folder: not followed")
NOT_INGESTED_YET = N_("not ingested yet")
SKIPPED = N_("skipped")
TOO_MANY_PAGES = N_("too many pages ({count} > {limit}, RAG_MAX_PAGES_PER_DOC)")
TOO_MANY_CHUNKS = N_("too many chunks ({count} > {limit}, RAG_MAX_CHUNKS_PER_DOC)")
CANCELLED_BEFORE = N_("ingestion cancelled before this file was embedded")

FOUND_ONE_FILE = N_("found {n} file")
FOUND_FILES = N_("found {n} files")
"""Two templates, not `ngettext`: the line is stored in English and read back by template (`found_files`)."""
EMBEDDING_CHUNKS = N_("embedding chunks {done}/{total}")
FILE_STAGE_AT = N_("{stage} {filename} ({index}/{total})")
FILE_STAGE = N_("{stage} {filename}")
WAITING_FOR_OTHER = N_("waiting for another ingestion to finish")

#: A file's stage inside a progress line (data in the job; a word for the reader).
STAGE_WORDS = {"waiting": N_("waiting"), "parsing": N_("parsing"), "chunking": N_("chunking"),
               "embedding": N_("embedding"), "ingested": N_("ingested"), "unchanged": N_("unchanged"),
               "skipped": N_("skipped"), "removed": N_("removed")}


def _value(name: str, value: str) -> str:
    return _(STAGE_WORDS[value]) if name == "stage" and value in STAGE_WORDS else value


_TABLE = TemplateTable(
    (BINARY_TEXT, NOT_TEXT, UNSUPPORTED_TYPE, TOO_LARGE, UNREADABLE, EMPTY_FILE, NO_TEXT, NOT_PDF, ENCRYPTED_PDF,
     UNREADABLE_PDF, OUTSIDE_LINK, NOT_INGESTED_YET, SKIPPED, TOO_MANY_PAGES, TOO_MANY_CHUNKS, CANCELLED_BEFORE,
     FOUND_ONE_FILE, FOUND_FILES, EMBEDDING_CHUNKS, WAITING_FOR_OTHER,
     FILE_STAGE_AT, FILE_STAGE),
    values=_value,
)


def found_files(n: int) -> str:
    """The progress line of an ingestion that found `n` files, in English (see the module's docstring)."""
    return (FOUND_ONE_FILE if n == 1 else FOUND_FILES).format(n=n)


def translate_ingest(text: object) -> str:
    """A skip reason or a progress line of an ingestion in the active language; other text unchanged."""
    return _TABLE.translate(text)


__all__ = ["OUTSIDE_LINK", "STAGE_WORDS", "found_files", "translate_ingest"]
