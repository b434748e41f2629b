"""Route-level evaluation of the workflow on a set of questions (`python -m rag.eval SET.jsonl`).

Split in three so each part is testable alone: `cases` reads and validates a set file (pydantic, a
bad line names its line and field), `scoring` holds the pure scoring functions (confusion table,
route accuracy, source hit rate), `runner` runs cases through the public API (`run_rag_graph`).
"""
from rag.eval.cases import EvalCase, EvalSetError, load_cases, parse_cases
from rag.eval.scoring import CaseResult, confusion, format_confusion, route_accuracy, source_hit, source_hit_rate

__all__ = [
    "EvalCase", "EvalSetError", "load_cases", "parse_cases", "CaseResult", "confusion", "format_confusion",
    "route_accuracy", "source_hit", "source_hit_rate",
]
