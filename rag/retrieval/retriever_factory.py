"""Build the retriever the settings ask for, and keep it in-process.

The app and the tests create retrievers often; loading jieba and the index costs ~1 s, so the
knowledge base is cached per (folder, store, dense) and the retriever per settings fingerprint.
"""
from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from typing import Optional

from rag.ingest.paths import BUNDLED_INDEX_DIR, BUNDLED_KB_DIR, cache_root, default_store_dir, named_kb_of, named_kb_version
from rag.retrieval.retriever import Retriever
from rag.settings import RagSettings, load_settings

_lock = threading.RLock()
_kbs: dict[tuple, object] = {}
_retrievers: dict[str, Retriever] = {}
_retriever_kb: dict[str, str] = {}  # fingerprint -> the folder it searches, to forget one KB's retrievers
_retriever_version: dict[str, object] = {}  # fingerprint -> `named_kb_version` of its folder when built
_milvus_clients: dict[str, object] = {}


def _fingerprint(settings: RagSettings) -> str:
    """Settings identity including secrets (hashed), so a new rerank key gets a new retriever."""
    data = settings.model_dump(mode="json")
    for key in ("openai_api_key", "rerank_api_key"):
        secret = getattr(settings, key)
        data[key] = hashlib.sha256(secret.get_secret_value().encode()).hexdigest() if secret else None
    return hashlib.sha256(repr(sorted(data.items())).encode()).hexdigest()


def kb_dir_of(settings: RagSettings) -> Path:
    return Path(settings.kb_dir).expanduser().resolve() if settings.kb_dir else BUNDLED_KB_DIR


def get_knowledge_base(kb_dir: Path, dense: bool, store_dir: Optional[Path] = None,
                       settings: Optional[RagSettings] = None):
    """The cached `KnowledgeBase` of a folder (opened, i.e. synced with the folder, once per
    embedder: the local model or a configured embeddings endpoint)."""
    from rag.ingest.embedders import embedder_key
    from rag.retrieval.embedded import KnowledgeBase

    store_dir = store_dir or default_store_dir(kb_dir)
    embedder = embedder_key(settings) if dense else ""
    if embedder not in ("", "local") and Path(store_dir) == BUNDLED_INDEX_DIR:
        # The shipped index holds the local model's vectors; an endpoint's vectors go to the cache
        # so the package data is never rewritten.
        store_dir = cache_root() / "stores" / f"bundled-{hashlib.sha1(embedder.encode()).hexdigest()[:12]}"
    key = (str(kb_dir), str(store_dir), dense, embedder)
    with _lock:
        if key not in _kbs:
            if not kb_dir.exists() and kb_dir == BUNDLED_KB_DIR:
                _kbs[key] = KnowledgeBase([], dense_error="bundled knowledge base not found")
            else:
                _kbs[key] = KnowledgeBase.open(kb_dir, store_dir, dense, settings)
        return _kbs[key]


def build_retriever(settings: RagSettings) -> Retriever:
    """A new retriever for these settings (the knowledge base itself is shared from the cache).
    A backend that cannot be opened gives a retriever that answers mode "failed" with the reason
    instead of an exception at startup."""
    from rag.retrieval.embedded import EmbeddedRetriever, FailedRetriever

    backend = settings.retriever_backend
    builders = {
        "langchain": ("LangChain retriever", lambda: langchain_retriever_from_settings(settings)),
        "milvus": ("Milvus backend", lambda: get_milvus_retriever(settings)),
    }
    what, build = builders.get(backend, ("knowledge base", lambda: EmbeddedRetriever(
        get_knowledge_base(kb_dir_of(settings), dense=settings.dense_enabled and backend != "bm25",
                           settings=settings), settings)))
    try:
        return build()
    except Exception as exc:
        failed = FailedRetriever(settings, f"{what} unavailable: {type(exc).__name__}: {exc}")
        if backend in builders:
            failed.name = backend
        return failed


def langchain_retriever_from_settings(settings: RagSettings) -> Retriever:
    """`RAG_LANGCHAIN_RETRIEVER=package.module:factory`: import the factory and wrap the LangChain
    `BaseRetriever` it returns (Chroma, PGVector, Elasticsearch, your own) behind our seam. A path,
    like an ASGI app path, because a retriever is a live object that settings cannot hold."""
    import importlib

    from rag.retrieval.langchain_adapter import LangChainRetriever

    spec = (settings.langchain_retriever or "").strip()
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ValueError("set RAG_LANGCHAIN_RETRIEVER to 'package.module:factory' (a callable returning a "
                         "LangChain BaseRetriever)")
    factory = getattr(importlib.import_module(module_name), attr)
    return LangChainRetriever(factory() if callable(factory) else factory, settings=settings)


def milvus_client(settings: RagSettings):
    """The process's client for `settings.milvus_uri` (one per URI: Milvus Lite allows one process
    per data file, so every retriever and every ingestion job of this process shares it)."""
    from rag.retrieval.milvus_backend import connect

    uri = (settings.milvus_uri or "").strip()
    if not uri:
        raise ValueError("MILVUS_URI is not set (a Milvus Lite file like ./milvus.db or http://host:19530)")
    with _lock:
        client = _milvus_clients.get(uri)
        if client is None:
            client = _milvus_clients[uri] = connect(uri)
        return client


def milvus_collection_of(settings: RagSettings, kb_dir: Path) -> str:
    """The collection of a folder: `MILVUS_COLLECTION` itself, or for a named knowledge base of the
    app its own collection beside it, so switching knowledge bases never overwrites another one."""
    from rag.retrieval.milvus_backend import kb_collection_name

    name = named_kb_of(kb_dir)
    return settings.milvus_collection if name is None else kb_collection_name(settings.milvus_collection, name)


def get_milvus_retriever(settings: RagSettings) -> Retriever:
    """The Milvus retriever for `settings.milvus_uri` and the settings' knowledge base."""
    from rag.retrieval.milvus_backend import open_milvus_retriever

    client = milvus_client(settings)
    with _lock:
        kb_dir = kb_dir_of(settings)
        return open_milvus_retriever(settings, kb_dir, client=client,
                                     collection=milvus_collection_of(settings, kb_dir))


def get_default_retriever(settings: Optional[RagSettings] = None) -> Retriever:
    """The process-wide retriever for these settings (environment settings when None)."""
    settings = settings or load_settings()
    key = _fingerprint(settings)
    kb_dir = kb_dir_of(settings)
    version = named_kb_version(kb_dir)  # a named KB re-ingested, maybe by another app server
    with _lock:
        if key in _retrievers and _retriever_version.get(key) != version:
            forget_knowledge_base(kb_dir)
        if key not in _retrievers:
            _retrievers[key] = build_retriever(settings)
            _retriever_kb[key] = str(kb_dir)
            _retriever_version[key] = version
        return _retrievers[key]


def clear_cache() -> None:
    """Forget cached knowledge bases and retrievers (after the KB folder changed in-process)."""
    with _lock:
        _kbs.clear()
        _retrievers.clear()
        _retriever_kb.clear()
        _retriever_version.clear()


def forget_knowledge_base(kb_dir: Path) -> int:
    """Forget the cached knowledge bases and retrievers of one folder (after an ingest changed it),
    so the next search re-opens it and sees the new files; the other folders stay loaded.
    Returns how many cache entries were dropped."""
    folder = str(Path(kb_dir).expanduser().resolve())
    with _lock:
        kbs = [kb_key for kb_key in _kbs if kb_key[0] == folder]
        retrievers = [key for key, kb in _retriever_kb.items() if kb == folder]
        for kb_key in kbs:
            del _kbs[kb_key]
        for key in retrievers:
            _retrievers.pop(key, None)
            _retriever_version.pop(key, None)
            del _retriever_kb[key]
        return len(kbs) + len(retrievers)
