"""The three model roles behind one small interface (docs/workflow.md §4).

Each role is a LangChain `Runnable` from a typed input to its pydantic output, so an offline rule
set, a real OpenAI-compatible model and a test fake are interchangeable per call.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from langchain_core.runnables import Runnable
from pydantic import BaseModel, Field

from rag.retrieval.retriever import CorpusStats


class PlannerInput(BaseModel):
    """Input of the planner (complexity classification)."""

    question: str


class GraderInput(BaseModel):
    """Input of the grader. The grader always sees the ORIGINAL question (workflow §3.7); `docs`
    carries the chunks with their scores so that a rule-based grader can judge without a model."""

    question: str
    context: str
    docs: list[dict] = Field(default_factory=list)
    is_sub_agent: bool = False
    rewrite_count: int = 0
    #: How common the question's words are in the knowledge base, when the retriever can tell
    #: (corpus-level evidence for a rule-based judge; not a prompt variable).
    corpus: Optional[CorpusStats] = None


class RewriterInput(BaseModel):
    """Input of the rewriter: the question and the evidence that was not good enough."""

    question: str
    context: str = ""
    docs: list[dict] = Field(default_factory=list)
    grade_reason: str = ""


#: The template variables each role's prompt must use (and the only ones it may use).
ROLE_INPUTS: dict[str, type[BaseModel]] = {
    "planner": PlannerInput,
    "grader": GraderInput,
    "rewriter": RewriterInput,
}


@dataclass(frozen=True)
class ModelRoles:
    """The planner (FAST_MODEL), grader (GRADE_MODEL) and rewriter (FAST_MODEL) of one provider."""

    planner: Runnable  # PlannerInput -> ComplexityResult
    grader: Runnable  # GraderInput -> EvidenceGrade
    rewriter: Runnable  # RewriterInput -> RewritePlan
    provider: str = "custom"
    prompt_version: Optional[str] = None
    #: The grader reads `GraderInput.corpus`: only then does the graph ask the retriever for corpus
    #: statistics (a model grader reads the evidence text; the extra search would be wasted).
    grader_uses_corpus_stats: bool = False


__all__ = [
    "PlannerInput", "GraderInput", "RewriterInput",
    "ROLE_INPUTS", "ModelRoles",
]
