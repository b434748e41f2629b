"""The local store of one knowledge base: a docstore of all chunk levels, a manifest of file
content hashes, and a vector cache keyed by the hash of the text that was embedded.

Plain JSON + one .npy, so the bundled KB's store ships in the package and loads in milliseconds,
and so a person can open it and see what was indexed.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Optional

import numpy as np

from rag.ingest.models import LEAF_LEVEL, ChunkRecord

STORE_VERSION = 1
MANIFEST = "manifest.json"
DOCSTORE = "docstore.jsonl"
VECTORS = "vectors.npy"
VECTOR_KEYS = "vectors.json"


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _atomic_write(path: Path, data: bytes) -> None:
    """Write-then-rename, so a crash or a parallel reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; the bundled index ships in the package
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class VectorCache:
    """Vectors by content hash of the embedded text, per embedding model: changing the model
    invalidates the cache instead of mixing two vector spaces."""

    def __init__(self, model_id: Optional[str] = None, keys: Optional[list[str]] = None,
                 matrix: Optional[np.ndarray] = None):
        self.model_id = model_id
        self._rows: dict[str, np.ndarray] = {}
        if keys is not None and matrix is not None:
            for k, row in zip(keys, matrix, strict=False):
                self._rows[k] = row

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, key: str) -> bool:
        return key in self._rows

    def get(self, key: str) -> Optional[np.ndarray]:
        return self._rows.get(key)

    def put(self, keys: list[str], matrix: np.ndarray) -> None:
        for k, row in zip(keys, np.asarray(matrix, dtype=np.float32), strict=False):
            self._rows[k] = row

    def retain(self, keys: set[str]) -> None:
        self._rows = {k: v for k, v in self._rows.items() if k in keys}

    def for_model(self, model_id: str) -> "VectorCache":
        """Self if it holds this model's vectors, else an empty cache for that model."""
        if self.model_id == model_id:
            return self
        return VectorCache(model_id)


class Store:
    """A loaded store. `files` maps a file's relative name to its sha256 and chunk count."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self.files: dict[str, dict] = {}
        self.chunking: dict = {}
        self.chunks: list[ChunkRecord] = []
        self.vectors = VectorCache()

    # --- read -------------------------------------------------------------------------------
    @classmethod
    def load(cls, directory: Path) -> "Store":
        """Load a store; a missing, unreadable or uncommitted store loads as empty (it is rebuilt from the
        documents, which are the source of truth). The vector cache is keyed by text, so it is kept even
        then: a rebuild re-chunks but does not re-embed."""
        store = cls(directory)
        try:
            manifest = json.loads((store.directory / MANIFEST).read_text("utf-8"))
            if manifest.get("version") != STORE_VERSION:
                return store
            data = (store.directory / DOCSTORE).read_bytes()
            committed = manifest.get("docstore_sha256")
            if committed is not None and hashlib.sha256(data).hexdigest() != committed:
                raise ValueError("the docstore is not the one the manifest committed (a crash between writes)")
            chunks = [ChunkRecord.model_validate_json(line) for line in data.decode("utf-8").splitlines() if line.strip()]
            store.files, store.chunking, store.chunks = manifest["files"], manifest.get("chunking", {}), chunks
        except (OSError, ValueError, KeyError):
            store = cls(directory)
        try:
            meta = json.loads((store.directory / VECTOR_KEYS).read_text("utf-8"))
            matrix = np.load(store.directory / VECTORS, allow_pickle=False)
            if len(meta["keys"]) == len(matrix):
                store.vectors = VectorCache(meta.get("model_id"), meta["keys"], matrix)
        except (OSError, ValueError, KeyError):
            pass
        return store

    # --- write ------------------------------------------------------------------------------
    def save(self) -> None:
        """Docstore and vectors first, the manifest last: renaming the manifest into place is the one commit
        point. It carries the docstore's hash, so a crash between the writes (a new docstore beside the
        old manifest) loads as a store to rebuild, never as files recorded as ingested with no chunks."""
        lines = "".join(c.model_dump_json() + "\n" for c in self.chunks).encode("utf-8")
        _atomic_write(self.directory / DOCSTORE, lines)
        used = {text_hash(c.search_text()) for c in self.leaves()}
        self.vectors.retain(used)
        keys = sorted(k for k in used if k in self.vectors)
        if keys:
            import io

            buf = io.BytesIO()
            rows = [self.vectors.get(k) for k in keys]  # all present: `keys` are those in self.vectors
            np.save(buf, np.stack([r for r in rows if r is not None]).astype(np.float32), allow_pickle=False)
            _atomic_write(self.directory / VECTORS, buf.getvalue())
            meta = {"model_id": self.vectors.model_id, "keys": keys}
            _atomic_write(self.directory / VECTOR_KEYS, json.dumps(meta).encode("utf-8"))
        else:
            for name in (VECTORS, VECTOR_KEYS):
                try:
                    (self.directory / name).unlink()
                except FileNotFoundError:
                    pass
        manifest = {"version": STORE_VERSION, "chunking": self.chunking, "files": self.files,
                    "docstore_sha256": hashlib.sha256(lines).hexdigest()}
        _atomic_write(self.directory / MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=1).encode("utf-8"))

    # --- edit -------------------------------------------------------------------------------
    def replace_file(self, filename: str, sha256: str, chunks: list[ChunkRecord]) -> None:
        self.chunks = [c for c in self.chunks if c.filename != filename] + chunks
        self.files[filename] = {"sha256": sha256, "chunks": len(chunks)}

    def remove_file(self, filename: str) -> None:
        self.chunks = [c for c in self.chunks if c.filename != filename]
        self.files.pop(filename, None)

    # --- views ------------------------------------------------------------------------------
    def leaves(self) -> list[ChunkRecord]:
        return [c for c in self.chunks if c.level == LEAF_LEVEL]

    def by_id(self) -> dict[str, ChunkRecord]:
        return {c.chunk_id: c for c in self.chunks}

    def level_counts(self) -> dict[str, int]:
        counts = {"1": 0, "2": 0, "3": 0}
        for c in self.chunks:
            counts[str(c.level)] += 1
        return counts
