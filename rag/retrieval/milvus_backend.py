"""The Milvus backend: the same pipeline as the embedded one, with recall done by Milvus.

One collection holds the searchable leaves (L3): `dense` (FLOAT_VECTOR, HNSW, inner product),
`text` (VARCHAR analysed by the `jieba` tokenizer) → `sparse` through Milvus's built-in BM25
function, plus filename / page / parent id / level / content hash. Recall is `hybrid_search` of
both legs fused by `RRFRanker(rrf_k)`; if that fails, a dense-only search (`dense_fallback`); if
that fails too, `failed`. With the dense leg off (settings or no embedder), a BM25-only search
(`sparse_only`, like the embedded backend). The reason of any non-hybrid mode is in
`retrieval_error`. Everything after recall is `pipeline.finish`, shared with the embedded backend.

Why parents stay in the local docstore: ingestion (chunking, content hashes, the vector cache)
is the same local `rag.ingest` store as the embedded backend; Milvus only indexes the leaves.
Vectors come from the store's content-hash cache, so syncing a collection never re-embeds.
Sync is incremental: rows whose content hash changed or whose chunk left the store are deleted,
missing ones inserted, so re-opening an unchanged knowledge base does no write.

The same code talks to Milvus Lite (a local `.db` file: tests, small knowledge bases) and to a
Milvus server or cluster (`http://host:19530`, `MILVUS_URI`); only the URI changes. Measured
on a 2-core machine: Milvus Lite at 100k chunks ~275 ms a hybrid query and 2.6 GB RSS, so it is
not the default; it is the path to a real cluster.
"""
from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any, Optional

import numpy as np

from rag.ingest.models import LEAF_LEVEL, ChunkRecord
from rag.ingest.store import Store, text_hash
from rag.retrieval.pipeline import base_fields, finish, record_mode
from rag.schemas import RetrievalResult
from rag.settings import RagSettings

log = logging.getLogger(__name__)

OUTPUT_FIELDS = ["body", "filename", "page_number", "parent_id", "level"]
MAX_TEXT = 16384  # VARCHAR max_length (bytes): leaves are ~160 characters, headings included
NO_PAGE = -1


def _import_pymilvus():
    import pymilvus  # noqa: F401 - raises ImportError with a clear name when missing

    return pymilvus


def connect(uri: str, token: Optional[str] = None):
    """A `MilvusClient` for a URI: a path ending in `.db` is Milvus Lite (its folder is created),
    anything else a server (`http://host:19530`)."""
    from pymilvus import MilvusClient

    if "://" not in uri:
        Path(uri).expanduser().parent.mkdir(parents=True, exist_ok=True)
        uri = str(Path(uri).expanduser())
    return MilvusClient(uri=uri, token=token) if token else MilvusClient(uri=uri)


def create_collection(client, name: str, dim: int) -> None:
    """Create the collection (dense HNSW/IP + jieba BM25 sparse) unless it exists."""
    from pymilvus import DataType, Function, FunctionType

    if client.has_collection(name):
        return
    schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=512)
    schema.add_field("text", DataType.VARCHAR, max_length=MAX_TEXT, enable_analyzer=True,
                     analyzer_params={"tokenizer": "jieba"})
    schema.add_field("body", DataType.VARCHAR, max_length=MAX_TEXT)
    schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
    schema.add_field("dense", DataType.FLOAT_VECTOR, dim=dim)
    schema.add_field("filename", DataType.VARCHAR, max_length=1024)
    schema.add_field("page_number", DataType.INT64)
    schema.add_field("parent_id", DataType.VARCHAR, max_length=512)
    schema.add_field("level", DataType.INT64)
    schema.add_field("content_hash", DataType.VARCHAR, max_length=64)
    schema.add_function(Function(name="text_bm25", function_type=FunctionType.BM25,
                                 input_field_names=["text"], output_field_names=["sparse"]))
    index = client.prepare_index_params()
    index.add_index("dense", index_type="HNSW", metric_type="IP", params={"M": 16, "efConstruction": 200})
    index.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")
    client.create_collection(name, schema=schema, index_params=index)


def row_key(leaf: ChunkRecord, vector_tag: str) -> str:
    return f"{text_hash(leaf.search_text())}:{vector_tag}"


def _row(leaf: ChunkRecord, vector: np.ndarray, vector_tag: str) -> dict:
    search_text = leaf.search_text()
    return {"id": leaf.chunk_id, "text": search_text[:MAX_TEXT // 4], "body": leaf.text[:MAX_TEXT // 4],
            "dense": np.asarray(vector, dtype=np.float32).tolist(), "filename": leaf.filename,
            "page_number": NO_PAGE if leaf.page_number is None else leaf.page_number,
            "parent_id": leaf.parent_id or "", "level": leaf.level, "content_hash": row_key(leaf, vector_tag)}


def _existing(client, name: str) -> dict[str, str]:
    """id → content hash of every row, read in pages (a large collection is never loaded at once)."""
    out: dict[str, str] = {}
    it = client.query_iterator(name, batch_size=1000, filter='id != ""', output_fields=["id", "content_hash"])
    try:
        while True:
            page = it.next()
            if not page:
                break
            out.update({r["id"]: r["content_hash"] for r in page})
    finally:
        it.close()
    return out


def sync_collection(client, name: str, store: Store, *, dim: int = 384, batch: int = 512) -> dict[str, int]:
    """Make the collection hold exactly the store's leaves. Leaves without a stored vector are
    inserted with a zero vector only if the store has no vectors at all (sparse-only store);
    otherwise a missing vector is an error (run the ingest with the embedder first)."""
    leaves = store.leaves()
    has_vectors = len(store.vectors) > 0
    first = store.vectors.get(text_hash(leaves[0].search_text())) if leaves else None
    dim = len(first) if first is not None else dim
    tag = text_hash(store.vectors.model_id or "")[:8] if has_vectors else "none"
    create_collection(client, name, dim)
    existing = _existing(client, name)
    wanted = {leaf.chunk_id: leaf for leaf in leaves}
    # the row key is text hash + vector model: new text, a new model or vectors that arrived
    # after a sparse-only sync all rewrite the row
    stale = [cid for cid, h in existing.items()
             if cid not in wanted or h != row_key(wanted[cid], tag)]
    if stale:
        for i in range(0, len(stale), batch):
            part = stale[i:i + batch]
            client.delete(name, ids=part)
    stale_set = set(stale)
    todo = [leaf for cid, leaf in wanted.items() if cid not in existing or cid in stale_set]
    zero = np.zeros(dim, dtype=np.float32)
    for i in range(0, len(todo), batch):
        rows = []
        for leaf in todo[i:i + batch]:
            vector = store.vectors.get(text_hash(leaf.search_text()))
            if vector is None:
                if has_vectors:
                    raise ValueError(f"no stored vector for chunk {leaf.chunk_id}: ingest with the embedder first")
                vector = zero
            rows.append(_row(leaf, vector, tag))
        client.insert(name, rows)
    if stale or todo:
        client.flush(name)
    return {"inserted": len(todo), "deleted": len(stale), "unchanged": len(wanted) - len(todo)}


def _hit_dict(hit: dict, score: float) -> dict:
    entity = hit.get("entity") or {}
    page = entity.get("page_number")
    return {"chunk_id": hit.get("id"), "filename": entity.get("filename") or "(unknown source)",
            "page_number": None if page is None or page == NO_PAGE else int(page),
            "text": entity.get("body") or "", "score": float(score),
            "parent_id": entity.get("parent_id") or None, "level": entity.get("level") or LEAF_LEVEL}


class MilvusRetriever:
    """`Retriever` over a Milvus collection synced from a local store (parents for auto-merge)."""

    name = "milvus"

    def __init__(self, client, collection: str, settings: RagSettings, *, store: Store,
                 embedder=None, dense_error: Optional[str] = None):
        self.client = client
        self.collection = collection
        self.settings = settings
        self.embedder = embedder
        self.dense_error = dense_error if embedder is None else None
        self._by_id = {c.chunk_id: c for c in store.chunks}
        self._lock = threading.Lock()  # one Milvus Lite handle; graph sub-agents run in threads

    def parent(self, chunk_id: str) -> Optional[dict]:
        c = self._by_id.get(chunk_id)
        if c is None:
            return None
        return {"chunk_id": c.chunk_id, "filename": c.filename, "page_number": c.page_number, "text": c.text,
                "parent_id": c.parent_id, "level": c.level}

    # --- recall -----------------------------------------------------------------------------
    def _requests(self, query: str, qv: Optional[np.ndarray], k: int) -> list:
        from pymilvus import AnnSearchRequest

        reqs = []
        if qv is not None:
            reqs.append(AnnSearchRequest(data=[qv.tolist()], anns_field="dense",
                                         param={"metric_type": "IP", "params": {"ef": max(64, k)}}, limit=k))
        reqs.append(AnnSearchRequest(data=[query], anns_field="sparse", param={"metric_type": "BM25"}, limit=k))
        return reqs

    def _single(self, data: Any, field: str, metric: str, k: int) -> list[dict]:
        """One leg alone; its hits get the single-list RRF score 1/(rrf_k + rank), the scale the
        embedded backend gives a one-leg recall, so min_score means the same in every mode."""
        params = {"metric_type": metric, "params": {"ef": max(64, k)}} if field == "dense" else {"metric_type": metric}
        res = self.client.search(self.collection, data=[data], anns_field=field, search_params=params, limit=k,
                                 output_fields=OUTPUT_FIELDS)
        hits = list(res[0]) if res else []
        return [_hit_dict(h, 1.0 / (self.settings.rrf_k + rank)) for rank, h in enumerate(hits, 1)]

    def _recall(self, query: str, k: int, fields: dict) -> list[dict]:
        from pymilvus import RRFRanker

        errors: list[str] = []
        qv = None
        if not self.settings.dense_enabled:
            pass  # the user's choice, not an error: sparse_only without retrieval_error (as embedded)
        elif self.embedder is None:
            errors.append(self.dense_error or "no embedder")
        else:
            try:
                qv = np.asarray(self.embedder.embed_query(query), dtype=np.float32).reshape(-1)
            except Exception as exc:
                errors.append(f"query embedding failed: {type(exc).__name__}: {exc}")
        if qv is None:  # sparse only, as the embedded backend does without a dense leg
            try:
                docs = self._single(query, "sparse", "BM25", k)
                record_mode(fields, "sparse_only", errors)
                return docs
            except Exception as exc:
                record_mode(fields, "failed", errors + [f"sparse search failed: {type(exc).__name__}: {exc}"])
                return []
        try:
            res = self.client.hybrid_search(self.collection, self._requests(query, qv, k),
                                             ranker=RRFRanker(self.settings.rrf_k), limit=k,
                                             output_fields=OUTPUT_FIELDS)
            record_mode(fields, "hybrid")
            return [_hit_dict(h, h.get("distance", 0.0)) for h in (list(res[0]) if res else [])]
        except Exception as exc:
            errors.append(f"hybrid search failed: {type(exc).__name__}: {exc}")
        try:
            docs = self._single(qv.tolist(), "dense", "IP", k)
            record_mode(fields, "dense_fallback", errors)
            return docs
        except Exception as exc:
            record_mode(fields, "failed", errors + [f"dense search failed: {type(exc).__name__}: {exc}"])
            return []

    def search(self, query: str) -> RetrievalResult:
        fields = base_fields(self.settings)
        with self._lock:
            docs = self._recall(query, fields["candidate_k"], fields)
        return finish(query, docs, fields, self.settings, self.parent)


def kb_collection_name(base: str, kb_name: str) -> str:
    """The collection of a named knowledge base: `<base>_<name>` with the characters Milvus refuses
    in a name (`-`) replaced, plus a short hash of the real name so `a-b` and `a_b` never share."""
    import hashlib

    safe = "".join(ch if ch.isascii() and (ch.isalnum() or ch == "_") else "_" for ch in kb_name)
    return f"{base}_{safe}_{hashlib.sha1(kb_name.encode('utf-8')).hexdigest()[:6]}"


def open_milvus_retriever(settings: RagSettings, kb_dir: Path, store_dir: Optional[Path] = None,
                          client=None, collection: Optional[str] = None) -> MilvusRetriever:
    """Ingest `kb_dir` into its local store (incremental, embeds missing vectors when dense is on),
    sync the leaves into `settings.milvus_collection` at `settings.milvus_uri`, and return the
    retriever (`collection`: default `settings.milvus_collection`). Raises on a missing URI, a missing pymilvus
    or an unreachable server: the factory
    turns that into a retriever that answers "failed" with the reason."""
    from rag.ingest import ingest_folder
    from rag.ingest.paths import default_store_dir

    _import_pymilvus()
    if client is None:
        if not settings.milvus_uri or not settings.milvus_uri.strip():
            raise ValueError("MILVUS_URI is not set (a Milvus Lite file like ./milvus.db or http://host:19530)")
        client = connect(settings.milvus_uri)
    embedder: Any = None
    dense_error: Optional[str] = "dense disabled by settings (RAG_DENSE_ENABLED=false)"
    if settings.dense_enabled:
        from rag.ingest.embedders import default_embedder

        embedder, dense_error = default_embedder(settings)
    report = ingest_folder(kb_dir, store_dir or default_store_dir(kb_dir), embedder=embedder)
    if report.embedding_error:
        embedder, dense_error = None, report.embedding_error
    store = Store.load(Path(report.store_dir))
    collection = collection or settings.milvus_collection
    counts = sync_collection(client, collection, store)
    log.info("milvus collection %s synced: %s", collection, counts)
    return MilvusRetriever(client, collection, settings, store=store, embedder=embedder,
                           dense_error=dense_error)
