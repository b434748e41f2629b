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
OFFLINE_PROVIDER = "offline-rules"
"""The offline provider's name wherever a person sees it: the Settings page (its active provider and the
provider choice), the sidebar, the result line, the run history and its recordings. One name: the page
said "offline" in one place and "offline-rules" in another. Only the environment keeps the short value
(RAG_MODEL_PROVIDER=offline), which the Settings page's help names."""

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


#: The model roles with a reply cap of their own (`RAG_MAX_TOKENS_<ROLE>`).
MAX_TOKENS_ROLES = ("planner", "grader", "rewriter", "answerer")

FAST_PATH_EXTRA_SETS = ("bilingual",)
"""Names `RAG_FAST_PATH_EXTRA` accepts; the markers themselves live with the rule
(`rag.rules.fast_path.EXTRA_MARKER_SETS`; a test keeps the two lists equal)."""


class RagSettings(BaseSettings):
    """Every setting of a run (models, retrieval, limits), read from the environment; `load_settings` overrides
    single fields per call."""

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
    #: One role call's whole time budget, retries and waits included (not per attempt).
    model_timeout_seconds: float = Field(30.0, gt=0, alias="RAG_MODEL_TIMEOUT_SECONDS")
    model_max_retries: int = Field(2, ge=0, le=10, alias="RAG_MODEL_MAX_RETRIES")
    #: Calls in flight at once per endpoint; unset: 4 for a cloud endpoint, 1 for a loopback one
    #: (`rag.models.call_limits.concurrency_for`).
    model_concurrency: Optional[int] = Field(None, ge=1, le=64, alias="RAG_MODEL_CONCURRENCY")
    #: Reply caps per role in tokens; unset: the role's default (`rag.models.call_limits.DEFAULT_MAX_TOKENS`).
    max_tokens_planner: Optional[int] = Field(None, ge=16, le=65536, alias="RAG_MAX_TOKENS_PLANNER")
    max_tokens_grader: Optional[int] = Field(None, ge=16, le=65536, alias="RAG_MAX_TOKENS_GRADER")
    max_tokens_rewriter: Optional[int] = Field(None, ge=16, le=65536, alias="RAG_MAX_TOKENS_REWRITER")
    max_tokens_answerer: Optional[int] = Field(None, ge=16, le=65536, alias="RAG_MAX_TOKENS_ANSWERER")

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

    def max_tokens_settings(self) -> dict[str, Optional[int]]:
        """Role -> the configured reply cap (None: the role's default)."""
        return {role: getattr(self, f"max_tokens_{role}") for role in MAX_TOKENS_ROLES}

    def provider_label(self) -> str:
        if self.models_configured():
            return f"openai-compatible:{self.fast_model}/{self.grade_model}"
        return OFFLINE_PROVIDER

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


# --- settings a browser session may change ----------------------------------------------------------

#: The model settings of the Settings page: locked together by `RAG_LOCK_MODEL_SETTINGS=1`.
MODEL_FIELDS = ("model_provider", "openai_api_key", "openai_base_url", "fast_model", "grade_model",
                "structured_output_method", "model_timeout_seconds", "model_max_retries", "model_concurrency",
                "max_tokens_planner", "max_tokens_grader", "max_tokens_rewriter", "max_tokens_answerer")
#: Each key of the environment and the endpoint it belongs to.
KEY_ENDPOINTS = (("openai_api_key", "openai_base_url"), ("rerank_api_key", "rerank_host"))
LOCK_ENV = "RAG_LOCK_MODEL_SETTINGS"


def model_settings_locked() -> bool:
    """`RAG_LOCK_MODEL_SETTINGS=1` (or true/yes/on): no browser session may change the model settings."""
    import os

    return os.environ.get(LOCK_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def endpoint_key(url: object) -> str:
    """An endpoint as compared for key ownership: scheme, host, port and path, case- and slash-insensitive
    where URLs are; "" for the default endpoint (no URL)."""
    from urllib.parse import urlsplit

    text = str(url or "").strip()
    if not text:
        return ""
    parts = urlsplit(text)
    host = (parts.hostname or "").lower()
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower(), 0)
    return f"{parts.scheme.lower()}://{host}:{port}{parts.path.rstrip('/')}?{parts.query}"


def endpoint_problem(url: object) -> Optional[str]:
    """Why a base URL typed in a browser cannot be used (None when it can): http(s) with a host, and no
    query string or fragment, which could change the path the client posts to."""
    from urllib.parse import urlsplit

    text = str(url or "").strip()
    if not text:
        return None
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        return _("the base URL is not a valid URL")
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return _("the base URL must start with http:// or https:// and name a host")
    if parts.query or parts.fragment or "?" in text or "#" in text:
        return _("the base URL may not hold a query string (?…) or a fragment (#…): give the API root, e.g. "
                 "https://host/v1")
    return None


def session_settings(overrides: dict, *, env: Optional[RagSettings] = None, locked: Optional[bool] = None) -> RagSettings:
    """The settings of a browser session: the environment's, with the session's overrides, under two rules
    a shared server needs. The environment's key belongs to the environment's endpoint: a session that
    points a role at another endpoint sends no key unless it brought its own (a visitor must never be able
    to send the server's key to a URL of their choosing). With `RAG_LOCK_MODEL_SETTINGS=1` the model settings
    are the environment's, whatever the session asked for."""
    env = env if env is not None else RagSettings()
    locked = model_settings_locked() if locked is None else locked
    data = {k: v for k, v in overrides.items() if not (locked and k in MODEL_FIELDS)}
    for key_field, url_field in KEY_ENDPOINTS:
        if url_field not in data or key_field in data:
            continue
        if endpoint_key(data[url_field]) != endpoint_key(getattr(env, url_field)):
            data[key_field] = None
    return RagSettings(**data)


def uses_foreign_endpoint_without_key(overrides: dict, env: Optional[RagSettings] = None) -> bool:
    """The session points the model at an endpoint that is not the environment's and brought no key: the
    page says that no key is sent there."""
    env = env if env is not None else RagSettings()
    url = overrides.get("openai_base_url", env.openai_base_url)
    own_key = overrides.get("openai_api_key")
    return (endpoint_key(url) != endpoint_key(env.openai_base_url) and not is_really_set(own_key)
            and is_really_set(env.openai_api_key))
