"""Who created a knowledge base, and who may delete it (issue 24, finding 11).

Why on disk beside the documents (`<kb>/owner.json`): several app servers share the `kbs/` folder,
and the owner must hold on all of them and after a restart. The app knows who a visitor is only
when a login is configured (Streamlit's `st.login`, an `[auth]` section); without one every
visitor is the same nobody, so anyone may delete and the page says so. `RAG_ADMINS`
(comma-separated e-mails) may delete any knowledge base, also one created before the login
existed (no owner recorded): nobody else can, or the first visitor could claim it.
"""
from __future__ import annotations

import json
from pathlib import Path

from rag.access import AccessSettings, Actor, decide, norm
from rag.access import admins as access_admins

OWNER_FILE = "owner.json"


def _norm(person: str) -> str:
    return norm(person)


def admins(raw: str | None = None) -> frozenset[str]:
    """The people in `RAG_ADMINS` (or `raw`), normalised like a signed-in e-mail (rag/access.py)."""
    return access_admins(raw)


def may_delete(*, login: bool, person: str, owner: str, admin_set: frozenset[str]) -> bool:
    """The rule (pure), as rag/access.py decides it for an open server: without a login, anyone; with one, the
    signed-in owner or an admin. A visitor who is not signed in, or a knowledge base without a recorded owner, is
    refused unless admin. The app passes its `Permit` instead, which also knows `RAG_SHARED_STATE`."""
    return decide(Actor(identity=person), "delete_kb", owner,
                  AccessSettings(login=login, admins=admin_set, shared_state="open")).allowed


def write_owner(root: Path, person: str) -> None:
    """Record who created the knowledge base in `root` (nothing without a signed-in person)."""
    if _norm(person):
        (Path(root) / OWNER_FILE).write_text(json.dumps({"owner": " ".join(person.split())}), "utf-8")


def read_owner(root: Path) -> str:
    """The recorded creator, or "" (none recorded, or an unreadable file: then only admins may delete)."""
    try:
        data = json.loads((Path(root) / OWNER_FILE).read_text("utf-8"))
        return str(data.get("owner") or "") if isinstance(data, dict) else ""
    except (OSError, ValueError):
        return ""
