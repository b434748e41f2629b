"""Keep the pydoc corpus folder, its store and jieba's cache out of the user's home."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="session")
def _cache_dir(tmp_path_factory):
    import os

    old = os.environ.get("RAG_CACHE_DIR")
    os.environ["RAG_CACHE_DIR"] = str(tmp_path_factory.mktemp("rag-cache"))
    yield
    if old is None:
        os.environ.pop("RAG_CACHE_DIR", None)
    else:
        os.environ["RAG_CACHE_DIR"] = old
