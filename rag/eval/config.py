"""A configuration to evaluate: the knobs people compare (prompt version, model names, recall size,
dense leg), applied on top of whatever settings the caller has (the environment, the app's
Settings page).

Why only these: they are what a prompt, model or retrieval change touches. The endpoint and its
key stay the caller's: two models are compared on one endpoint by name.
"""
from __future__ import annotations

from typing import Optional

from pydantic import BaseModel, ConfigDict, Field

from rag.settings import RagSettings


class EvalConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    label: str = "A"
    prompt_version: Optional[str] = None
    fast_model: Optional[str] = None
    grade_model: Optional[str] = None
    top_k: Optional[int] = Field(None, ge=1, le=200)
    dense_enabled: Optional[bool] = None

    def overrides(self) -> dict:
        """Settings fields this configuration sets (None: keep the caller's)."""
        return {k: v for k, v in self.model_dump(exclude={"label"}).items() if v is not None}

    def describe(self, settings: RagSettings) -> str:
        dense = "hybrid" if settings.dense_enabled else "sparse only"
        model = f" · models {settings.fast_model}/{settings.grade_model}" if settings.models_configured() else ""
        return f"prompt {settings.prompt_version or 'default'}{model} · top_k {settings.top_k} · {dense}"


def apply_config(base: RagSettings, config: EvalConfig, **extra) -> RagSettings:
    """`base` with the configuration's (and `extra`'s) fields replaced, validated again."""
    values = base.model_dump()
    values.update(config.overrides())
    values.update(extra)
    return RagSettings(**values)


__all__ = ["EvalConfig", "apply_config"]
