"""A disk cache of model calls, keyed by (model, prompt, input), for the roles on an OpenAI-compatible
endpoint.

Why: an evaluation re-runs the same questions again and again while one prompt changes; every call
whose model, method, schema and rendered prompt (the template with this input filled in) are
unchanged gives the same answer at temperature 0, so an unchanged re-run of a set should cost no
model call and a prompt change should pay only for the calls that prompt reaches.

Why a wrapper around the role and not inside `ClientPool`: a plain run in the app must always ask
the model (a user debugging a flaky answer wants the live reply); only callers that opt in
(`python -m rag.eval`, the Evaluate page) wrap their roles with `with_call_cache`. The offline
rules are not wrapped: they cost nothing and read evidence the prompt does not carry.

Only successful, validated outputs are stored (a failure is retried next time). One JSON file per
call under `<cache>/model_calls/`, written atomically, so parallel workers and processes can share
the folder without a lock; a corrupt file is a miss.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
import threading
from pathlib import Path
from typing import Any, Optional

from langchain_core.runnables import Runnable, RunnableConfig

from rag.ingest.paths import cache_root
from rag.models.base import ModelRoles
from rag.models.openai_compat import StructuredRole, json_mode_instructions, public_url
from rag.prompts.templates import render

FORMAT = 1


def default_cache_dir() -> Path:
    return cache_root() / "model_calls"


class CallCache:
    """The folder of cached replies, with hit / miss counters (the evaluator reports them)."""

    def __init__(self, directory: Optional[Path | str] = None):
        self.directory = Path(directory) if directory else default_cache_dir()
        self.hits = 0
        self.misses = 0
        self._lock = threading.Lock()

    @staticmethod
    def key(*, model: str, method: str, schema: str, base_url: Optional[str], prompt: str) -> str:
        blob = json.dumps({"v": FORMAT, "model": model, "method": method, "schema": schema,
                           "endpoint": public_url(base_url), "prompt": prompt}, ensure_ascii=False, sort_keys=True)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> Optional[dict]:
        try:
            data = json.loads(self._path(key).read_text("utf-8"))
        except (OSError, ValueError):
            data = None
        with self._lock:
            if isinstance(data, dict) and isinstance(data.get("output"), dict):
                self.hits += 1
                return data["output"]
            self.misses += 1
        return None

    def put(self, key: str, output: dict, *, role: str, model: str) -> None:
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".call.", dir=path.parent)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"role": role, "model": model, "output": output}, fh, ensure_ascii=False)
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only cache only costs the call next time

    def clear(self) -> None:
        import shutil

        shutil.rmtree(self.directory, ignore_errors=True)


class CachedRole(Runnable):
    """A `StructuredRole` that answers from the cache when the same call was made before."""

    def __init__(self, inner: StructuredRole, cache: CallCache):
        self.inner = inner
        self.cache = cache
        self.name = inner.name

    @property
    def InputType(self):  # noqa: N802 - Runnable API
        return self.inner.InputType

    @property
    def OutputType(self):  # noqa: N802 - Runnable API
        return self.inner.OutputType

    def _key(self, data: Any) -> str:
        inner = self.inner
        prompt = render(inner.role, inner.template, data.model_dump())
        if inner.method == "json_mode":
            prompt += json_mode_instructions(inner.output_type_)
        return self.cache.key(model=inner.model, method=inner.method, schema=inner.output_type_.__name__,
                              base_url=inner.pool.settings.openai_base_url, prompt=prompt)

    def invoke(self, input: Any, config: Optional[RunnableConfig] = None, **kwargs: Any):
        inner = self.inner
        data = input if isinstance(input, inner.input_type_) else inner.input_type_.model_validate(input)
        key = self._key(data)
        found = self.cache.get(key)
        if found is not None:
            try:
                return inner.output_type_.model_validate(found)
            except ValueError:
                pass  # the schema changed since: ask again
        output = inner.invoke(data, config, **kwargs)
        self.cache.put(key, output.model_dump(mode="json"), role=inner.role, model=inner.model)
        return output

    def __repr__(self) -> str:
        return f"CachedRole({self.inner!r})"


def with_call_cache(roles: ModelRoles, cache: Optional[CallCache] = None) -> ModelRoles:
    """The same roles, each model role answering from `cache` when it can. Roles that are not
    model calls (the offline rules, a test fake) are returned as they are."""
    cache = cache or CallCache()
    wrapped: dict[str, Any] = {}
    for name in ("planner", "grader", "rewriter"):
        role = getattr(roles, name)
        wrapped[name] = CachedRole(role, cache) if isinstance(role, StructuredRole) else role
    return dataclasses.replace(roles, **wrapped)


__all__ = ["CallCache", "CachedRole", "with_call_cache", "default_cache_dir"]
