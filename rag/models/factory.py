"""Choosing the model provider: the offline rules unless an OpenAI-compatible endpoint is configured.

Roles are created lazily, once per distinct configuration, and reused (docs/workflow.md §4: each client is
created once). The cache key includes a hash of the key, never the key itself.
"""
from __future__ import annotations

import hashlib
import threading
from typing import Optional

from rag.models.base import ModelRoles
from rag.prompts import load_prompts
from rag.prompts.templates import PromptSet
from rag.settings import RagSettings

_cache: dict[str, ModelRoles] = {}
_lock = threading.Lock()


def _cache_key(settings: RagSettings, prompts: PromptSet) -> str:
    public = settings.public_dict()  # URLs lose their credentials here, so they are added back raw
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else ""
    key += repr(settings.openai_base_url)
    digest = hashlib.sha256((repr(sorted(public.items())) + key + prompts.model_dump_json()).encode()).hexdigest()
    return digest


def get_default_roles(settings: RagSettings, prompts: Optional[PromptSet] = None) -> ModelRoles:
    prompts = prompts or load_prompts(settings.prompt_version)
    key = _cache_key(settings, prompts)
    with _lock:
        roles = _cache.get(key)
        if roles is None:
            if settings.models_configured():
                from rag.models.openai_compat import build_openai_roles

                roles = build_openai_roles(settings, prompts)
            else:
                from rag.models.offline import build_offline_roles

                roles = build_offline_roles()
            _cache[key] = roles
        return roles
