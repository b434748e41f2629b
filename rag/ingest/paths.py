"""Where stores live: the bundled KB, its shipped index, the named knowledge bases and a user cache.

One module so that the ingest CLI and the retriever agree on where a folder's store lives: a
folder ingested with `python -m rag.ingest DIR` is found again, with no work, by `RAG_KB_DIR=DIR`.
In `rag/ingest/` because ingestion writes the stores and retrieval, the layer above, reads them.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Optional

from rag.i18n import _
from rag.settings import DATA_DIR

BUNDLED_KB_DIR = DATA_DIR / "kb"
BUNDLED_INDEX_DIR = DATA_DIR / "index"


def cache_root() -> Path:
    """The per-user cache (`RAG_CACHE_DIR`, else XDG cache), never /tmp: caches outlive reboots."""
    explicit = os.environ.get("RAG_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or (Path.home() / ".cache")
    return Path(base) / "rag-debugger"


def kbs_root() -> Path:
    """Where the app's named knowledge bases live: `<cache>/kbs/<name>/docs` (the uploaded files)
    beside `<cache>/kbs/<name>/store` (their chunks, parents included, and vectors)."""
    return cache_root() / "kbs"


LAST_INGEST = "last_ingest.json"


def named_kb_version(kb_dir: Path) -> tuple | None:
    """For a named knowledge base, which ingestion ended last: `last_ingest.json` is rewritten by a
    rename (a new inode) by whichever app server ran it, and its mtime and inode change, even on a
    file system with coarse timestamps. A cached retriever built before a change is stale. None for
    any other folder, or before the first ingestion."""
    if named_kb_of(kb_dir) is None:
        return None
    try:
        st = (Path(kb_dir).expanduser().resolve().parent / LAST_INGEST).stat()
        return (st.st_mtime_ns, st.st_ino, st.st_size)
    except OSError:
        return None


def named_kb_of(kb_dir: Path) -> str | None:
    """The name of an app-managed knowledge base when `kb_dir` is its `docs` folder, else None."""
    kb_dir = Path(kb_dir).expanduser().resolve()
    root = kbs_root().expanduser().resolve()
    if kb_dir.name == "docs" and kb_dir.parent.parent == root:
        return kb_dir.parent.name
    return None


def default_store_dir(kb_dir: Path) -> Path:
    """The store of a knowledge-base folder. The bundled KB ships its own; a named knowledge base
    of the app keeps its store beside its documents; any other folder gets one in the cache keyed
    by its absolute path, so user documents are never written into."""
    kb_dir = Path(kb_dir).resolve()
    if kb_dir == BUNDLED_KB_DIR.resolve():
        return BUNDLED_INDEX_DIR
    if named_kb_of(kb_dir) is not None:
        return kb_dir.parent / "store"
    digest = hashlib.sha1(str(kb_dir).encode("utf-8")).hexdigest()[:12]
    return cache_root() / "stores" / f"{kb_dir.name or 'kb'}-{digest}"


def fallback_store_dir(store_dir: Path) -> Path:
    """Where to write when `store_dir` is read-only (e.g. the bundled index inside site-packages)."""
    digest = hashlib.sha1(str(Path(store_dir).resolve()).encode("utf-8")).hexdigest()[:12]
    return cache_root() / "stores" / f"readonly-{digest}"


def kb_label(kb_dir: Optional[Path]) -> str:
    """How a person names the knowledge base a setting points at (the sidebar shows it on every
    page, so this stays light: no store is opened)."""
    if not kb_dir:
        return _("bundled demo (zh/en)")
    path = Path(kb_dir).expanduser()
    name = named_kb_of(path)
    if name is not None:
        return name
    if path.resolve() == BUNDLED_KB_DIR.resolve():
        return _("bundled demo (zh/en)")
    return _("folder {name}").format(name=path.name or path)
