"""Named knowledge bases managed from the app: `<cache>/kbs/<name>/docs` holds the documents people
upload, `<cache>/kbs/<name>/store` their chunks and vectors (`rag.ingest.paths`), and
`<cache>/kbs/<name>/last_ingest.json` what the last ingestion did, so a page opened after a restart
still says which files were skipped and why.

A named knowledge base is an ordinary folder to the rest of the engine: `RagSettings.kb_dir` points
at its `docs`, the CLI can ingest it, and the retriever opens it like any `RAG_KB_DIR`.
"""
from __future__ import annotations

import functools
import re
import shutil
from pathlib import Path
from typing import Optional

from pydantic import BaseModel

from rag.access import OPERATOR_PERMIT, Permit
from rag.errors import UserInputError
from rag.i18n import N_, _
from rag.ingest import words
from rag.ingest.owners import write_owner
from rag.ingest.paths import LAST_INGEST, kbs_root
from rag.ingest.store import DOCSTORE, MANIFEST, Store

NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
NAME_RULE = N_("1 to 40 characters: lowercase letters, digits, '-' and '_', starting with a letter or digit")
MAX_KBS = 200


def validate_kb_name(name: str) -> str:
    """The name as stored, or UserInputError naming the rule. Names become folder names and part of
    a Milvus collection name, so the charset is narrow on purpose; case is folded so `Docs` and
    `docs` cannot be two knowledge bases on one file system and the same one on another."""
    text = (name or "").strip().lower()
    if not NAME_PATTERN.match(text):
        raise UserInputError(_("invalid knowledge base name {name}: use {rule}").format(name=repr(name), rule=_(NAME_RULE)))
    return text


class KbFolders(BaseModel):
    name: str
    root: Path

    @property
    def docs(self) -> Path:
        return self.root / "docs"

    @property
    def store(self) -> Path:
        return self.root / "store"

    @property
    def last_ingest(self) -> Path:
        return self.root / LAST_INGEST


def kb_folders(name: str) -> KbFolders:
    name = validate_kb_name(name)
    return KbFolders(name=name, root=kbs_root() / name)


def list_kbs() -> list[str]:
    """Names of the knowledge bases on disk, sorted (folders with an unsafe name are ignored)."""
    root = kbs_root()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir()
                  if p.is_dir() and not p.is_symlink() and NAME_PATTERN.match(p.name) and (p / "docs").is_dir())


def create_kb(name: str, owner: str = "", permit: Permit = OPERATOR_PERMIT) -> KbFolders:
    """Create an empty knowledge base, recording `owner` (the signed-in creator, if any);
    UserInputError when the name is invalid or taken, AccessRefused when `permit` may not create one."""
    permit.require("create_kb")
    folders = kb_folders(name)
    if folders.docs.exists():
        raise UserInputError(_("a knowledge base named {name} already exists").format(name=repr(folders.name)))
    if len(list_kbs()) >= MAX_KBS:
        raise UserInputError(_("there are already {count} knowledge bases; delete one first").format(count=MAX_KBS))
    folders.docs.mkdir(parents=True)
    write_owner(folders.root, owner)
    return folders


def existing_kb(name: str) -> KbFolders:
    folders = kb_folders(name)
    if not folders.docs.is_dir():
        raise UserInputError(_("no knowledge base named {name}").format(name=repr(folders.name)))
    return folders


def document_names(folder: Path) -> list[str]:
    """Relative names of the files in a docs folder as ingestion sees them (hidden parts left out;
    symlinks listed, ingestion reports them)."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    names = []
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder)
        if any(part.startswith(".") for part in rel.parts):
            continue
        if p.is_file() or p.is_symlink():
            names.append(rel.as_posix())
    return names


def delete_document(name: str, filename: str) -> None:
    """Remove one document from a knowledge base's folder (its chunks leave the store at the next
    ingestion). UserInputError for a name outside the folder or not in it."""
    from rag.ingest.uploads import safe_relative_name

    folders = existing_kb(name)
    rel = safe_relative_name(filename)
    path = folders.docs / rel
    if rel not in document_names(folders.docs):
        raise UserInputError(_("{filename} is not in knowledge base {name}").format(filename=repr(filename),
                                                                                    name=repr(folders.name)))
    path.unlink()
    parent = path.parent
    while parent != folders.docs and parent.is_dir() and not any(parent.iterdir()):
        parent.rmdir()
        parent = parent.parent


def delete_kb(name: str) -> None:
    """Remove a knowledge base: its documents, its store and its last report."""
    folders = existing_kb(name)
    shutil.rmtree(folders.root)


@functools.lru_cache(maxsize=16)
def _leaf_counts(store_dir: str, version: tuple) -> dict[str, int]:
    """filename → leaf chunks in a store, read once per store version (docstore and manifest): the page asks
    twice a second while a job runs, and parsing a large docstore each time would compete with the job."""
    counts: dict[str, int] = {}
    for chunk in Store.load(Path(store_dir)).leaves():
        counts[chunk.filename] = counts.get(chunk.filename, 0) + 1
    return counts


class FileRow(BaseModel):
    """One document as the page lists it."""

    filename: str
    status: str            # ingested / skipped / waiting
    chunks: int = 0        # searchable (leaf) chunks in the store
    reason: str = ""


def file_rows(name: str, skipped: Optional[dict[str, str]] = None) -> list[FileRow]:
    """Every document of a knowledge base with its state: in the store (with its leaf chunks),
    skipped (with the reason of the last ingestion), or waiting for an ingestion."""
    folders = existing_kb(name)
    skipped = skipped or {}
    try:
        # a save renames the docstore, then the manifest (its commit point) into place: a read between the two
        # sees an uncommitted docstore, so the version is both files' (a rename gives each a new inode)
        version = tuple((s.st_mtime_ns, s.st_size, s.st_ino)
                        for s in ((folders.store / DOCSTORE).stat(), (folders.store / MANIFEST).stat()))
    except OSError:
        version = None
    leaves = _leaf_counts(str(folders.store), version) if version is not None else {}
    rows = []
    for filename in document_names(folders.docs):
        if filename in skipped:
            rows.append(FileRow(filename=filename, status="skipped", reason=skipped[filename]))
        elif filename in leaves:
            rows.append(FileRow(filename=filename, status="ingested", chunks=leaves[filename]))
        else:
            rows.append(FileRow(filename=filename, status="waiting", reason=words.NOT_INGESTED_YET))
    return rows
