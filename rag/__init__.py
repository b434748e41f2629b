"""A faithful, production-grade implementation of the RAG workflow of docs/workflow.md on LangGraph.

Public API (stable): `run_rag_graph`, `resume_rag_from_hitl`, `build_rag_graph`, `build_resume_graph`,
`normalize_rag_trace`, `RAG_TRACE_FIELDS`, the schemas, and `make_context` for injecting collaborators.
"""
from rag.api import InvalidQuestionError, SnapshotError, build_result, make_context, resume_rag_from_hitl, run_rag_graph
from rag.context import RagContext
from rag.graph.build import build_rag_graph, build_resume_graph
from rag.models.base import GraderInput, ModelCallError, ModelRoles, PlannerInput, RewriterInput
from rag.schemas import (
    Chunk, ComplexityResult, EvidenceGrade, EvidenceItem, HitlResumeState, ProgressStep, RAGState, RetrievalResult,
    RewritePlan,
)
from rag.settings import RagSettings, load_settings
from rag.trace import RAG_TRACE_FIELDS, normalize_rag_trace

__all__ = [
    "run_rag_graph", "resume_rag_from_hitl", "build_rag_graph", "build_resume_graph", "normalize_rag_trace",
    "RAG_TRACE_FIELDS", "make_context", "build_result", "RagContext", "RagSettings", "load_settings",
    "InvalidQuestionError", "SnapshotError", "ModelRoles", "ModelCallError", "PlannerInput", "GraderInput",
    "RewriterInput", "Chunk", "ComplexityResult", "EvidenceGrade", "EvidenceItem", "HitlResumeState",
    "ProgressStep", "RAGState", "RetrievalResult", "RewritePlan",
]
