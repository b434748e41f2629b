"""Hole 4 of issue 39: prompt versions in the shared folder. Any visitor saved, overwrote and activated versions (a
5 MB template was accepted, no count cap), and `RAG_PROMPT_VERSION=active` pipelines then ran the visitor's
prompts. Now saving follows the roles, overwriting, deleting and activating are the admins' (rag/access.py), a
template set is capped at 64 KB and a folder at 200 versions, each refused with a clear message."""
from __future__ import annotations

import pytest

from rag.access import AccessRefused, AccessSettings, Actor, Permit
from rag.errors import PromptVersionError
from rag.prompts import versions
from rag.prompts.templates import load_default_prompts
from rag.prompts.versions import get_active, load_version, save_version, set_active

LOGIN = AccessSettings(login=True, admins=frozenset({"root@corp"}))
ADMIN = Permit(Actor(identity="root@corp"), LOGIN)
MEMBER = Permit(Actor(identity="bob@corp"), LOGIN)
NOT_SIGNED_IN = Permit(Actor(), LOGIN)
READ_ONLY = Permit(Actor(), AccessSettings(shared_state="read-only"))
OPEN = Permit(Actor(), AccessSettings(shared_state="open"))


def _prompts(extra: str = ""):
    base = load_default_prompts()
    return base.model_copy(update={"planner": base.planner + extra}) if extra else base


def test_a_5_mb_template_is_refused_with_its_size(tmp_path):
    with pytest.raises(PromptVersionError, match=r"hold 4,885 KB; a version can hold at most 64 KB"):
        save_version("huge", _prompts("x" * 5_000_000), directory=tmp_path, permit=OPEN)
    assert not list(tmp_path.glob("*.json"))


def test_the_folder_holds_at_most_max_versions(tmp_path, monkeypatch):
    assert versions.MAX_VERSIONS == 200
    monkeypatch.setattr(versions, "MAX_VERSIONS", 3)
    for i in range(3):
        save_version(f"v{i}", _prompts(), directory=tmp_path)
    with pytest.raises(PromptVersionError, match="already holds 3 prompt versions"):
        save_version("v3", _prompts(), directory=tmp_path)
    save_version("v0", _prompts(" again"), directory=tmp_path, overwrite=True)  # replacing one adds none


@pytest.mark.parametrize("permit, save, overwrite, activate", [
    (ADMIN, True, True, True),
    (MEMBER, True, False, False),
    (NOT_SIGNED_IN, False, False, False),
    (READ_ONLY, False, False, False),
    (OPEN, True, True, True),
])
def test_saving_overwriting_and_activating_follow_the_roles(tmp_path, permit, save, overwrite, activate):
    save_version("base", _prompts(), directory=tmp_path)
    set_active("base", directory=tmp_path)
    attempts = {
        "save": lambda: save_version("mine", _prompts(" mine"), directory=tmp_path, permit=permit),
        "overwrite": lambda: save_version("base", _prompts(" evil"), directory=tmp_path, permit=permit, overwrite=True),
        "activate": lambda: set_active("default", directory=tmp_path, permit=permit),
    }
    for what, allowed in (("save", save), ("overwrite", overwrite), ("activate", activate)):
        if allowed:
            attempts[what]()
        else:
            with pytest.raises(AccessRefused):
                attempts[what]()
    if not overwrite:  # a RAG_PROMPT_VERSION=active pipeline still runs what the admin activated
        assert get_active(directory=tmp_path) == "base"
        assert load_version("active", directory=tmp_path).planner == _prompts().planner


def test_deleting_a_version_is_the_admins(tmp_path):
    save_version("base", _prompts(), directory=tmp_path)
    with pytest.raises(AccessRefused, match="admin"):
        versions.delete_version("base", directory=tmp_path, permit=MEMBER)
    versions.delete_version("base", directory=tmp_path, permit=ADMIN)
