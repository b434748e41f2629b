"""A knowledge-base folder's own retrieval profile: `.rag-kb.json` beside its documents.

Why: some corpora are too large to embed on the first click (the pydoc topics: ~3,900 leaves at
~15 leaves/s). Such a folder says `embed_on_open: false`; opening it then indexes the sparse leg
only and the dense leg runs only when the store already holds every vector (after an explicit
`python -m rag.ingest DIR`). The reason is shown in `retrieval_error` so `sparse_only` is never a
mystery. A dot file, so ingestion never treats it as a document; a missing or broken profile means
the defaults (embed on open), so a typo cannot break a knowledge base.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Optional

from pydantic import BaseModel, ValidationError

PROFILE_NAME = ".rag-kb.json"
log = logging.getLogger(__name__)


class KbProfile(BaseModel):
    embed_on_open: bool = True
    dense_unavailable_reason: Optional[str] = None
    title: Optional[str] = None


def load_profile(kb_dir: Path) -> KbProfile:
    path = Path(kb_dir) / PROFILE_NAME
    try:
        return KbProfile.model_validate_json(path.read_text("utf-8"))
    except FileNotFoundError:
        return KbProfile()
    except (OSError, ValidationError, ValueError) as exc:
        log.warning("ignoring unreadable %s: %s", path, exc)
        return KbProfile()
