"""Settings from the environment (and per-call overrides).

One pydantic-settings object so that every knob has a name, a type and a default, and a bad value
fails with a message naming the variable. Keys are `SecretStr`: they never appear in a repr, a log
line or an exported run.
"""
from __future__ import annotations

from pathlib import Path
from typing import Literal, Optional

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from rag.i18n import _

PACKAGE_DIR = Path(__file__).resolve().parent
DATA_DIR = PACKAGE_DIR / "data"

#: Settings holding a URL, which can carry credentials (user info, `?api-key=`).
URL_FIELDS = ("openai_base_url", "rerank_host", "milvus_uri")

#: Values people leave in .env templates; they count as "not configured".
PLACEHOLDER_VALUES = frozenset({"", "none", "null", "changeme", "your-api-key", "your_api_key", "xxx", "sk-xxx", "todo"})


def is_really_set(value: object) -> bool:
    """True when a setting holds a real value, not an empty string or a template placeholder."""
    if value is None:
        return False
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    text = str(value).strip()
    return bool(text) and text.lower() not in PLACEHOLDER_VALUES and not text.startswith("<")


FAST_PATH_EXTRA_SETS = ("bilingual",)
"""Names `RAG_FAST_PATH_EXTRA` accepts; the markers themselves live with the rule
(`rag.rules.fast_path.EXTRA_MARKER_SETS`; a test keeps the two lists equal)."""


class RagSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", extra="ignore", populate_by_name=True)

    # --- models (OpenAI-compatible); offline rules when no key/base URL is configured -------------
    model_provider: Literal["auto", "offline", "openai"] = Field("auto", alias="RAG_MODEL_PROVIDER")
    openai_api_key: Optional[SecretStr] = Field(None, alias="OPENAI_API_KEY")
    openai_base_url: Optional[str] = Field(None, alias="OPENAI_BASE_URL")
    model: str = Field("gpt-4o-mini", alias="MODEL")
    fast_model: str = Field("gpt-4o-mini", alias="FAST_MODEL")
    grade_model: str = Field("gpt-4o-mini", alias="GRADE_MODEL")
    structured_output_method: Literal["json_schema", "function_calling", "json_mode"] = Field(
        "json_schema", alias="RAG_STRUCTURED_OUTPUT_METHOD"
    )
    model_timeout_seconds: float = Field(30.0, gt=0, alias="RAG_MODEL_TIMEOUT_SECONDS")
    model_max_retries: int = Field(2, ge=0, le=10, alias="RAG_MODEL_MAX_RETRIES")

    # --- complexity fast path -----------------------------------------------------------------
    #: Comma-separated extra marker sets added to the reference's fast-path lists (opt-in; see
    #: `rag.rules.fast_path.EXTRA_MARKER_SETS`). Unset: exactly the reference's lists.
    fast_path_extra: Optional[str] = Field(None, alias="RAG_FAST_PATH_EXTRA")

    # --- prompts --------------------------------------------------------------------------------
    prompt_version: Optional[str] = Field(None, alias="RAG_PROMPT_VERSION")

    # --- retrieval ------------------------------------------------------------------------------
    retriever_backend: Literal["embedded", "milvus", "bm25", "langchain"] = Field("embedded", alias="RAG_RETRIEVER")
    #: For RAG_RETRIEVER=langchain: "package.module:factory", a callable returning a LangChain BaseRetriever.
    langchain_retriever: Optional[str] = Field(None, alias="RAG_LANGCHAIN_RETRIEVER")
    kb_dir: Optional[Path] = Field(None, alias="RAG_KB_DIR")
    top_k: int = Field(8, ge=1, le=200, alias="RAG_TOP_K")
    candidate_k: Optional[str] = Field(None, alias="RAG_CANDIDATE_K")
    candidate_multiplier: int = Field(3, ge=1, le=50, alias="RAG_CANDIDATE_MULTIPLIER")
    rrf_k: int = Field(60, ge=1, alias="RAG_RRF_K")
    dense_enabled: bool = Field(True, alias="RAG_DENSE_ENABLED")
    auto_merge_enabled: bool = Field(True, alias="RAG_AUTO_MERGE")
    auto_merge_threshold: int = Field(2, ge=1, alias="RAG_AUTO_MERGE_THRESHOLD")
    min_score: Optional[float] = Field(None, alias="RAG_MIN_SCORE")
    rerank_model: Optional[str] = Field(None, alias="RERANK_MODEL")
    rerank_api_key: Optional[SecretStr] = Field(None, alias="RERANK_API_KEY")
    rerank_host: Optional[str] = Field(None, alias="RERANK_HOST")
    rerank_timeout_seconds: float = Field(10.0, gt=0, alias="RERANK_TIMEOUT_SECONDS")
    local_rescore: bool = Field(False, alias="RAG_LOCAL_RESCORE")
    embeddings_model: Optional[str] = Field(None, alias="EMBEDDINGS_MODEL")
    milvus_uri: Optional[str] = Field(None, alias="MILVUS_URI")
    milvus_collection: str = Field("rag_chunks", alias="MILVUS_COLLECTION")

    # --- input limits ---------------------------------------------------------------------------
    max_question_chars: int = Field(4000, ge=1, alias="RAG_MAX_QUESTION_CHARS")

    @field_validator("fast_path_extra")
    @classmethod
    def _known_marker_sets(cls, value: Optional[str]) -> Optional[str]:
        unknown = [n.strip() for n in (value or "").split(",") if n.strip() and n.strip() not in FAST_PATH_EXTRA_SETS]
        if unknown:
            raise ValueError(_("unknown fast-path marker set {name}; known: {known}").format(
                name=repr(unknown[0]), known=", ".join(FAST_PATH_EXTRA_SETS)))
        return value

    def models_configured(self) -> bool:
        """True when an OpenAI-compatible endpoint should be used instead of the offline rules."""
        if self.model_provider == "offline":
            return False
        if self.model_provider == "openai":
            return True
        # A key, or an endpoint of its own (a local vLLM / Ollama server needs no key).
        return is_really_set(self.openai_api_key) or is_really_set(self.openai_base_url)

    def provider_label(self) -> str:
        if self.models_configured():
            return f"openai-compatible:{self.fast_model}/{self.grade_model}"
        return "offline-rules"

    def public_dict(self) -> dict:
        """Settings safe to show, record or export: every secret replaced by whether it is set, and every
        URL without the credentials it may carry (`rag.redaction.redact_url`)."""
        from rag.redaction import redact_url

        data = self.model_dump(mode="json")
        for key in ("openai_api_key", "rerank_api_key"):
            data[key] = "set" if is_really_set(getattr(self, key)) else "unset"
        for key in URL_FIELDS:
            data[key] = redact_url(data.get(key))
        return data

    def secret_strings(self) -> list[str]:
        """Every configured credential as text (keys and the credentials inside URLs), for redacting
        messages and documents. Never log or show the result."""
        from rag.redaction import url_secrets

        out = [k.get_secret_value().strip() for k in (self.openai_api_key, self.rerank_api_key) if k is not None]
        for key in URL_FIELDS:
            out += url_secrets(getattr(self, key))
        return [s for s in out if s]


def load_settings(**overrides) -> RagSettings:
    """Settings from the environment with per-call overrides (field names, not env aliases)."""
    return RagSettings(**overrides) if overrides else RagSettings()
