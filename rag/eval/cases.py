"""The evaluation set format: JSON Lines, one case a line.

    {"id": ..., "question": ..., "expected_route": "answer|clarify|scope_select|no_knowledge",
     "expected_sources": [...], "tags": [...]}

Only `question` is required. `expected_route` is the route the run ENDS in (a rewrite that then
answers is "answer"; a comparison whose sub-questions are all answered is "answer").
`expected_sources` are file names; a case hits when any of them is in the run's final evidence.
Blank lines and lines starting with `#` are skipped, so a set can carry comments.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

ExpectedRoute = Literal["answer", "clarify", "scope_select", "no_knowledge"]


class EvalCase(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Optional[str] = None
    question: str = Field(min_length=1)
    expected_route: Optional[ExpectedRoute] = None
    expected_sources: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("question is blank")
        return value


class EvalSetError(ValueError):
    """A set file that cannot be used; the message names the file, the line and the field."""


def parse_cases(lines: list[str], source: str = "<set>") -> list[EvalCase]:
    """Cases from the lines of a set file. Ids default to `line<N>`; duplicate ids are an error
    (a report keyed by id would silently merge them)."""
    cases: list[EvalCase] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise EvalSetError(f"{source}:{number}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(data, dict):
            raise EvalSetError(f"{source}:{number}: a case must be a JSON object, got {type(data).__name__}")
        try:
            case = EvalCase.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "case"
            raise EvalSetError(f"{source}:{number}: field '{field}': {err['msg']}") from None
        if case.id is None:
            case = case.model_copy(update={"id": f"line{number}"})
        if case.id in seen:
            raise EvalSetError(f"{source}:{number}: field 'id': {case.id!r} already used on line {seen[case.id]}")
        seen[case.id] = number
        cases.append(case)
    if not cases:
        raise EvalSetError(f"{source}: no cases")
    return cases


def load_cases(path: Path | str) -> list[EvalCase]:
    path = Path(path)
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise EvalSetError(f"{path}: cannot read the set file ({exc.strerror or exc})") from None
    return parse_cases(text.splitlines(), str(path))
