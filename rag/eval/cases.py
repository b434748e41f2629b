"""The evaluation set format: JSON Lines (or CSV), one case a line.

    {"id": ..., "question": ..., "expected_route": "answer|clarify|scope_select|no_knowledge",
     "expected_sources": [...], "hitl_answer": "...", "tags": [...]}

Only `question` is required. `expected_route` is the route the run ENDS in (a rewrite that then
answers is "answer"; a comparison whose sub-questions are all answered is "answer").
`hitl_answer`: when the run asks the user (clarify / scope_select), the evaluator answers this
through `resume_rag_from_hitl` and judges the RESUMED run, so `expected_route` is then the route
after the answer (a run that does not ask is judged as it is).
`expected_sources` are file names; a case hits when any of them is in the run's final evidence.
`expected_passages` name the right chunk (`chunk:<id>`, or text it contains, whitespace collapsed);
with the sources they are the gold that `rag.eval.lost_at` follows through retrieval.
`from_run` is the run a case was made from in the app ("Add to a question set"), so a result links
back to it; `verdict` ("good" / "wrong") is a person's verdict on that run: the case's
`expected_route` is then a person's label, and the agreement between the judge and people
(`rag.eval.agreement`) counts it.
Blank lines and lines starting with `#` are skipped, so a set can carry comments.

CSV: a header row names the columns (the same field names); list columns (`expected_sources`,
`tags`) separate their items with `;`; an empty cell is an absent field. Spreadsheets export this.
"""
from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rag.errors import UserFixableError
from rag.i18n import _
from rag_debugger.debugger.terminal import has_control

ExpectedRoute = Literal["answer", "clarify", "scope_select", "no_knowledge"]
Verdict = Literal["good", "wrong"]
#: A run id as the history writes them (rag.runs.run_info.new_run_id) and links carry them (rag_debugger/views/run_link.py).
RUN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}")


class EvalCase(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Optional[str] = None
    question: str = Field(min_length=1)
    expected_route: Optional[ExpectedRoute] = None
    expected_sources: list[str] = Field(default_factory=list)
    #: `chunk:<id>` or a piece of text the right chunk contains (rag.eval.lost_at).
    expected_passages: list[str] = Field(default_factory=list)
    hitl_answer: Optional[str] = None
    #: Words or phrases the answer must contain (all of them, case and spacing ignored); feedback's
    #: "the answer should say" fills it. Empty: the answer is not judged.
    expected_answer_contains: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    #: The run the case was made from (a link back to it); None for a case written by hand.
    from_run: Optional[str] = None
    #: A person's verdict on `from_run`: with it, `expected_route` is a person's label (agreement).
    verdict: Optional[Verdict] = None

    @field_validator("from_run")
    @classmethod
    def _run_id(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and not RUN_ID.fullmatch(value):
            raise ValueError("from_run is not a run id (1-128 letters, digits, '_', '.', ':', '-')")
        return value

    @field_validator("id")
    @classmethod
    def _printable_id(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and has_control(value):
            raise ValueError("id holds a control character (ESC, CR, a newline, a tab or a direction mark): "
                             "an id is printed on one line of reports and terminals")
        return value

    @field_validator("hitl_answer")
    @classmethod
    def _answer_not_blank(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and not value.strip():
            raise ValueError("hitl_answer is blank (leave the field out when the run should not be answered)")
        return value

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("question is blank")
        return value


class EvalSetError(UserFixableError):
    """A set file that cannot be used; the message names the file, the line and the field."""


def _check_count(cases: list[EvalCase], max_cases: Optional[int], source: str) -> None:
    """Refuse a set past `max_cases` as soon as the next case would pass it: an upload of a million
    one-line cases must not be parsed (nor run) on a shared server."""
    if max_cases is not None and len(cases) >= max_cases:
        raise EvalSetError(_("{source}: more than {limit} cases (RAG_MAX_EVAL_CASES); split the set").format(
            source=source, limit=max_cases))


def parse_cases(lines: list[str], source: str = "<set>", max_cases: Optional[int] = None) -> list[EvalCase]:
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
            raise EvalSetError(_("{source}:{line}: not valid JSON ({error} at column {column})").format(
                source=source, line=number, error=exc.msg, column=exc.colno)) from None
        except RecursionError:
            raise EvalSetError(_("{source}:{line}: field 'case': the JSON nests too deeply to be a case").format(
                source=source, line=number)) from None
        _check_count(cases, max_cases, source)
        cases.append(_case(data, number, source, seen))
    if not cases:
        raise EvalSetError(_("{source}: no cases").format(source=source))
    return cases


def _case(data: object, number: int, source: str, seen: dict[str, int]) -> EvalCase:
    """One validated case; `seen` (id -> line) catches duplicate ids."""
    if not isinstance(data, dict):
        raise EvalSetError(_("{source}:{line}: a case must be a JSON object, got {kind}").format(
            source=source, line=number, kind=type(data).__name__))
    try:
        case = EvalCase.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "case"
        raise EvalSetError(_("{source}:{line}: field '{field}': {problem}").format(
            source=source, line=number, field=field, problem=err["msg"])) from None
    case_id = case.id
    if case_id is None:
        case_id = f"line{number}"
        case = case.model_copy(update={"id": case_id})
    if case_id in seen:
        raise EvalSetError(_("{source}:{line}: field 'id': {id} already used on line {first}").format(
            source=source, line=number, id=repr(case_id), first=seen[case_id]))
    seen[case_id] = number
    return case


LIST_FIELDS = ("expected_sources", "expected_passages", "expected_answer_contains", "tags")


def parse_csv(text: str, source: str = "<set>", max_cases: Optional[int] = None) -> list[EvalCase]:
    """Cases from CSV text with a header row; line numbers are the file's (the header is line 1)."""
    reader = csv.DictReader(io.StringIO(text))
    known = set(EvalCase.model_fields)
    header = [h.strip() for h in (reader.fieldnames or [])]
    if not header:
        raise EvalSetError(_("{source}: no cases").format(source=source))
    unknown = [h for h in header if h not in known]
    if unknown:
        raise EvalSetError(_("{source}:1: field '{field}': unknown column; known: {known}").format(
            source=source, field=unknown[0], known=", ".join(EvalCase.model_fields)))
    if "question" not in header:
        raise EvalSetError(_("{source}:1: field 'question': Field required (no 'question' column)").format(source=source))
    cases: list[EvalCase] = []
    seen: dict[str, int] = {}
    for row in reader:
        number = reader.line_num
        if row.get(None):  # more cells than the header names
            raise EvalSetError(_("{source}:{line}: field 'case': {cells} cells, the header names {named}").format(
                source=source, line=number, cells=len(header) + len(row[None]), named=len(header)))
        data: dict = {}
        for key, value in row.items():
            value = (value or "").strip()
            if key is None or not value:
                continue
            key = key.strip()
            data[key] = [v.strip() for v in value.split(";") if v.strip()] if key in LIST_FIELDS else value
        if not data:
            continue  # a blank row
        _check_count(cases, max_cases, source)
        cases.append(_case(data, number, source, seen))
    if not cases:
        raise EvalSetError(_("{source}: no cases").format(source=source))
    return cases


def utf8_text(raw: bytes, source: str) -> str:
    """The file's text; bytes that are not UTF-8 are refused with the line they are on."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise EvalSetError(_("{source}:{line}: not UTF-8 text; save the set as UTF-8 JSON Lines or CSV").format(
            source=source, line=line)) from None


def load_cases(path: Path | str) -> list[EvalCase]:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise EvalSetError(_("{source}: cannot read the set file ({error})").format(
            source=path, error=exc.strerror or exc)) from None
    text = utf8_text(raw, str(path))
    if path.suffix.lower() == ".csv":
        return parse_csv(text, str(path))
    return parse_cases(text.splitlines(), str(path))


def cases_from_upload(name: str, data: bytes) -> list[EvalCase]:
    """Cases from an uploaded file's bytes (the app): CSV by its name, JSON Lines otherwise; at most
    `RAG_MAX_EVAL_CASES` cases (a local file given to the CLI has no such cap)."""
    from rag.ingest.limits import max_eval_cases

    limit = max_eval_cases()
    text = utf8_text(data, name)
    if name.lower().endswith(".csv"):
        return parse_csv(text, name, limit)
    return parse_cases(text.splitlines(), name, limit)
