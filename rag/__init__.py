"""A faithful, production-grade implementation of the RAG workflow (docs/workflow.md) on LangGraph.

Public API (stable; every name of `__all__`, each listed with its one line in docs/embedding.md): the entry points
`run_rag_graph` / `resume_rag_from_hitl` and their `RagResult`; the compiled graphs `build_rag_graph` /
`build_resume_graph`; the trace protocol `normalize_rag_trace` / `RAG_TRACE_FIELDS`; `make_context`, `RagContext`,
`RagSettings`, `load_settings` and `ModelRoles` for injecting collaborators; the state and model schemas; and the
errors a caller catches.

The names are resolved lazily (PEP 562): `import rag` or `import rag.rules` must not pull LangGraph,
the model clients and the retrievers in, because the app's first paint and the pure rule modules pay
for every import they trigger. `from rag import run_rag_graph` still works as before.
"""
from __future__ import annotations

import importlib as _importlib
import typing as _typing

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "run_rag_graph": "rag.api", "resume_rag_from_hitl": "rag.api", "make_context": "rag.api",
    "build_result": "rag.api", "RagResult": "rag.api", "InvalidQuestionError": "rag.errors", "SnapshotError": "rag.errors",
    "RagContext": "rag.context",
    "build_rag_graph": "rag.graph.build", "build_resume_graph": "rag.graph.build",
    "GraderInput": "rag.models.base", "ModelCallError": "rag.errors", "ModelRoles": "rag.models.base",
    "PlannerInput": "rag.models.base", "RewriterInput": "rag.models.base",
    "Chunk": "rag.schemas", "ComplexityResult": "rag.schemas", "EvidenceGrade": "rag.schemas",
    "EvidenceItem": "rag.schemas", "HitlResumeState": "rag.schemas", "ProgressStep": "rag.schemas",
    "RAGState": "rag.schemas", "RetrievalResult": "rag.schemas", "RewritePlan": "rag.schemas",
    "RagSettings": "rag.settings", "load_settings": "rag.settings",
    "RAG_TRACE_FIELDS": "rag.trace", "normalize_rag_trace": "rag.trace", "InvalidTraceError": "rag.errors",
}

__all__ = [
    "run_rag_graph", "resume_rag_from_hitl", "build_rag_graph", "build_resume_graph", "normalize_rag_trace",
    "RAG_TRACE_FIELDS", "make_context", "build_result", "RagResult", "RagContext", "RagSettings", "load_settings",
    "InvalidQuestionError", "SnapshotError", "ModelRoles", "ModelCallError", "PlannerInput", "GraderInput",
    "RewriterInput", "Chunk", "ComplexityResult", "EvidenceGrade", "EvidenceItem", "HitlResumeState",
    "ProgressStep", "RAGState", "RetrievalResult", "RewritePlan", "InvalidTraceError",
]


def __getattr__(name: str) -> _typing.Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rag' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({n for n in globals() if n.startswith("_")} | set(__all__))


if _typing.TYPE_CHECKING:  # static checkers and IDEs see the real names
    from rag.api import RagResult, build_result, make_context, resume_rag_from_hitl, run_rag_graph
    from rag.context import RagContext
    from rag.errors import InvalidQuestionError, InvalidTraceError, ModelCallError, SnapshotError
    from rag.graph.build import build_rag_graph, build_resume_graph
    from rag.models.base import GraderInput, ModelRoles, PlannerInput, RewriterInput
    from rag.schemas import (
        Chunk,
        ComplexityResult,
        EvidenceGrade,
        EvidenceItem,
        HitlResumeState,
        ProgressStep,
        RAGState,
        RetrievalResult,
        RewritePlan,
    )
    from rag.settings import RagSettings, load_settings
    from rag.trace import RAG_TRACE_FIELDS, normalize_rag_trace
