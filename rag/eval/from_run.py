"""A question-set case made from a recorded run ("Add to a question set" on Run history and in the debugger).

Why pure functions over `RunInfo`s: the history page, the debugger panel and the tests build the same
case from the same facts, and the rules (which question, which HITL answer, which route the case
expects, whether a person's verdict is recorded) are a table test rather than a page test.

What a case keeps of the run:
- the question of the run's main run (a HITL resume or a what-if fork carries its parent's);
- the HITL answer that was given: the resume run's own when a resume run is added, else the first
  recorded answer to the run's question (the evaluator gives it through `resume_rag_from_hitl`, so the
  route a case expects is the route of the run that answer led to);
- the sources of that run's final evidence, as the expected sources (the form lets a person edit them);
- a link back to the run (`from_run`).
The expected route defaults to the run's route; `expected_route` overrides it (the Feedback panel's
corrected route is passed here). A person who keeps the run's route gives the verdict "good", one who
names another route "wrong": either way the case's expected route is then a person's label, which the
agreement between the judge and people counts (rag/eval/agreement.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Optional, Sequence

from pydantic import ValidationError

from rag.eval.cases import EvalCase
from rag.eval.question_sets import QuestionSetError
from rag.eval.scoring import ROUTES
from rag.i18n import _
from rag.runs.run_info import RunInfo


@dataclass(frozen=True)
class RunFacts:
    """What the "Add to a question set" form starts from."""

    run_id: Optional[str]
    question: str
    hitl_answer: Optional[str]
    route: Optional[str]
    """The route the case would expect as it is: the run's, or the answered run's."""
    sources: tuple[str, ...]


def _answer_of(info: RunInfo) -> Optional[str]:
    answer = ((info.result or {}).get("rag_trace") or {}).get("hitl_answer")
    return str(answer) if answer else None


def run_facts(chain: Sequence[RunInfo], answers: Iterable[RunInfo] = ()) -> RunFacts:
    """The facts of `chain[-1]`. `chain`: the run and its parent runs, oldest first
    (rag_debugger.workbench.session.run_chain); `answers`: the resume runs that answered it, oldest first."""
    from rag.eval.runner import result_sources  # lazy: the runner loads the model clients (~1.5 s)

    if not chain:
        raise ValueError("no run")
    run = chain[-1]
    question = next((r.question for r in chain if r.kind == "main"), run.question)
    answered = run if run.kind == "resume" else next(iter(answers), None)
    end = answered or run
    return RunFacts(run_id=run.run_id, question=question, hitl_answer=_answer_of(answered) if answered else None,
                    route=end.route if end.route in ROUTES else None, sources=result_sources(end.result or {}))


def answers_to(history: Any, run_id: str) -> list[RunInfo]:
    """The resume runs that answered `run_id`'s question (not what-if forks), oldest first. One query on the
    `runs` table by parent (not a listing of the whole history: the panel opens on a history of 10,000 runs)."""
    from rag.runs.run_info import COLUMNS, from_row

    rows = history.storage.execute(
        f"SELECT {', '.join(COLUMNS)} FROM runs WHERE parent_run_id = ? AND kind = 'resume' AND fork_json IS NULL "
        f"ORDER BY created_at, {history.storage.order_key}", (run_id,))
    return [from_row(r) for r in rows]


def split_items(text: str, *, lines: bool = False) -> list[str]:
    """A list typed in a box: one item a line (`lines`) or comma-separated; blanks and repeats dropped."""
    raw = str(text or "").splitlines() if lines else str(text or "").replace("，", ",").split(",")
    return list(dict.fromkeys(item.strip() for item in raw if item.strip()))


def case_from_run(facts: RunFacts, *, question: Optional[str] = None, hitl_answer: Optional[str] = None,
                  expected_route: Optional[str] = None, expected_sources: Optional[Sequence[str]] = None,
                  tags: Sequence[str] = (), verdict: Optional[str] = None, case_id: Optional[str] = None,
                  expected_answer_contains: Sequence[str] = ()) -> EvalCase:
    """The case to store. Every argument left None takes the run's value: `expected_route` the run's route
    (the default the Feedback panel's corrected route replaces), `expected_sources` the run's evidence files,
    `verdict` "good" when the expected route is the run's, "wrong" when a person named another.
    A value a case cannot hold raises QuestionSetError naming the field."""
    route = expected_route or facts.route
    if verdict is None and route is not None and facts.route is not None:  # a run without a route: no verdict
        verdict = "good" if route == facts.route else "wrong"
    data = {"id": case_id or None, "question": facts.question if question is None else question,
            "expected_route": route,
            "expected_sources": list(facts.sources if expected_sources is None else expected_sources),
            "hitl_answer": (facts.hitl_answer if hitl_answer is None else hitl_answer) or None,
            "expected_answer_contains": [w for w in expected_answer_contains if str(w).strip()],
            "tags": list(tags), "from_run": facts.run_id, "verdict": verdict}
    return make_case(data)


def make_case(data: dict) -> EvalCase:
    """An EvalCase from a form's fields; a value it cannot hold is a QuestionSetError naming the field, the
    way the CLI names the field of a bad line."""
    try:
        return EvalCase.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "case"
        raise QuestionSetError(_("field '{field}': {problem}").format(field=field, problem=err["msg"])) from None


__all__ = ["RunFacts", "run_facts", "answers_to", "case_from_run", "make_case", "split_items"]
