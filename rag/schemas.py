"""Typed contracts of the RAG workflow (docs/workflow.md §2 and §5).

Everything that crosses a boundary (model output, resume snapshot, retrieval result, evidence item)
is a pydantic model, so that bad data fails at the edge with a message that names the field instead
of deep inside the graph. The graph state itself (`RAGState`) is a TypedDict of plain JSON values,
because LangGraph checkpoints it and the debugger diffs it field by field.
"""
from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, Optional, TypedDict, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

Route = Literal["answer", "rewrite", "clarify", "scope_select", "no_knowledge"]
RetrievalStatus = Literal[
    "answerable", "partial", "needs_rewrite", "needs_clarification", "needs_scope_selection", "no_knowledge"
]
Relevance = Literal["none", "weak", "strong"]
Answerability = Literal["none", "partial", "sufficient"]
Ambiguity = Literal["none", "missing_slot", "multiple_candidates"]
Complexity = Literal["simple", "complex"]
RewriteMethod = Literal["step_back", "hyde"]
RetrievalMode = Literal["hybrid", "dense_fallback", "sparse_only", "failed"]

MAX_SUB_QUESTIONS = 4
MAX_STEP_BACK_CHARS = 300
MAX_HYDE_CHARS = 1200
MAX_SNAPSHOT_REWRITE_COUNT = 100


class EvidenceGrade(BaseModel):
    """Structured output of the grading model (GRADE_MODEL). `route` is only a proposal:
    `rag.rules.routing.resolve_route` corrects it deterministically."""

    relevance: Relevance
    answerability: Answerability
    ambiguity: Ambiguity = "none"
    # Optional with default 0.0, as in the reference: no rule reads it, and models on function_calling /
    # json_mode often leave it out, so a grade without it must not fail closed. (A comment, not the
    # docstring: the docstring is sent to the model as the schema's description.)
    confidence: float = Field(0.0, ge=0.0, le=1.0)
    route: Route
    reason: str = ""
    missing_slots: list[str] = Field(default_factory=list)
    hitl_prompt: str = ""
    hitl_options: list[str] = Field(default_factory=list)


class ComplexityResult(BaseModel):
    """Structured output of the planning model (FAST_MODEL)."""

    complexity: Complexity
    complexity_reason: str = ""
    sub_questions: list[str] = Field(default_factory=list, max_length=MAX_SUB_QUESTIONS)


class RewritePlan(BaseModel):
    """Structured output of the rewriter (FAST_MODEL): one method, exactly one of the two texts."""

    method: RewriteMethod
    step_back_question: Optional[str] = Field(default=None, max_length=MAX_STEP_BACK_CHARS)
    hyde_document: Optional[str] = Field(default=None, max_length=MAX_HYDE_CHARS)

    def model_post_init(self, __context: Any) -> None:
        text = self.step_back_question if self.method == "step_back" else self.hyde_document
        other = self.hyde_document if self.method == "step_back" else self.step_back_question
        if not (text or "").strip():
            raise ValueError(f"rewrite method {self.method!r} needs its text")
        if other:
            raise ValueError("a rewrite plan carries exactly one of step_back_question / hyde_document")


class HitlResumeState(BaseModel):
    """The resume snapshot (`hitl_resume_state`): exactly these 7 fields, never evidence."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1)
    route: Literal["clarify", "scope_select"]
    retrieval_status: Literal["needs_clarification", "needs_scope_selection"]
    #: Strict: "1", True and 1.0 are a foreign or tampered snapshot, not a count. The budget is one
    #: rewrite, so any real count is tiny; the bound refuses absurd integers before they are compared.
    rewrite_count: int = Field(default=0, ge=0, le=MAX_SNAPSHOT_REWRITE_COUNT, strict=True)
    complexity: Optional[Complexity] = None
    complexity_reason: Optional[str] = None
    sub_questions: list[str] = Field(default_factory=list, max_length=MAX_SUB_QUESTIONS)

    @field_validator("question")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("question must not be blank")
        return v


class Chunk(BaseModel):
    """One retrieved chunk as the retrieval seam returns it. Stored in state as a plain dict
    (`model_dump()`), so the checkpointer and the debugger see JSON."""

    chunk_id: Optional[str] = None
    filename: str
    page_number: Optional[int] = None
    text: str
    score: Optional[float] = None
    rrf_rank: Optional[int] = None
    rerank_score: Optional[float] = None
    parent_id: Optional[str] = None
    level: Optional[int] = None


class RetrievalResult(BaseModel):
    """What `search_knowledge_base` returns: the chunks plus the retrieval parameter / count fields
    of the trace (a subset of `rag.trace.RETRIEVAL_FIELDS`)."""

    chunks: list[Chunk] = Field(default_factory=list)
    trace_fields: dict[str, Any] = Field(default_factory=dict)


class EvidenceItem(BaseModel):
    """An evidence item of a normalized trace: the 6 protocol fields (`rag.trace` validates with it).
    A page may be a number or a label, as in the reference."""

    model_config = ConfigDict(extra="forbid")

    filename: str
    page_number: Optional[Union[int, str]] = None
    text: Optional[str] = None
    score: Optional[float] = None
    rrf_rank: Optional[int] = None
    rerank_score: Optional[float] = None


class ProgressStep(BaseModel):
    """One progress step sent to the request's sink (workflow §3.14)."""

    icon: str
    label: str
    detail: str = ""
    elapsed_ms: int = 0
    stage_elapsed_ms: int = 0
    group: Optional[str] = None
    group_label: Optional[str] = None
    node: Optional[str] = None


class SubResult(TypedDict):
    question: str
    docs: list[dict]
    route: str
    retrieval_status: str
    rag_trace: dict


class RAGState(TypedDict, total=False):
    """The graph state. Plain JSON values only (the checkpointer stores it; the debugger diffs it).

    The request context of the reference (progress sink, collaborators) is NOT in the state: it
    cannot be checkpointed, so it travels as LangGraph's runtime context (`rag.context.RagContext`).
    What stays here is the serialisable part: the step group of a sub-question.
    """

    # retrieval
    question: str
    query: str
    docs: list[dict]
    context: str
    # decision
    grade: Optional[dict]
    route: Optional[str]
    retrieval_status: Optional[str]
    rewrite_count: int
    complexity: Optional[str]
    complexity_reason: Optional[str]
    # parallel
    sub_questions: list[str]
    sub_results: Annotated[list[dict], operator.add]
    # runtime (serialisable part)
    step_group: Optional[str]
    step_group_label: Optional[str]
    # trace
    rag_trace: Optional[dict]
    is_sub_agent: bool
    # HITL resume input (the resume graph only)
    hitl_snapshot: Optional[dict]
    hitl_answer: Optional[str]
