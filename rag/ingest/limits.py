"""The bounds a shared server puts on what visitors may ingest, read from the environment.

Why settings and not constants: a team's server and a laptop need different ceilings, and a visitor
must not be able to take the disk or the CPU from everyone else with a few small uploads (issue 24,
finding 5). Each limit is a plain integer so that a refusal can say the number; a value that is not
a positive integer falls back to the default (a typo must not remove a limit).
"""
from __future__ import annotations

import os

MB = 1024 * 1024

#: variable -> default; the README's settings table lists the same names.
DEFAULTS = {
    "RAG_KB_QUOTA_MB": 10 * 1024,        # every knowledge base together: documents, chunks and vectors
    "RAG_KB_MAX_MB": 1024,               # one knowledge base's documents
    "RAG_ZIP_MAX_RATIO": 100,            # bytes written / bytes of the archive, counted while extracting
    "RAG_MAX_PAGES_PER_DOC": 2000,       # pages of one PDF
    "RAG_MAX_CHUNKS_PER_DOC": 20000,     # searchable (leaf) chunks of one document
    "RAG_MAX_EVAL_CASES": 2000,          # cases in one uploaded evaluation set
}


def env_int(name: str) -> int:
    """The positive integer in `name`, else its default."""
    try:
        value = int(str(os.environ.get(name, "")).strip())
    except ValueError:
        return DEFAULTS[name]
    return value if value > 0 else DEFAULTS[name]


def kb_quota_bytes() -> int:
    return env_int("RAG_KB_QUOTA_MB") * MB


def kb_max_bytes() -> int:
    return env_int("RAG_KB_MAX_MB") * MB


def zip_max_ratio() -> int:
    return env_int("RAG_ZIP_MAX_RATIO")


def max_pages_per_doc() -> int:
    return env_int("RAG_MAX_PAGES_PER_DOC")


def max_chunks_per_doc() -> int:
    return env_int("RAG_MAX_CHUNKS_PER_DOC")


def max_eval_cases() -> int:
    return env_int("RAG_MAX_EVAL_CASES")
