"""The bundled demo questions: one or more per route, Chinese and English.

They double as a contract: `tests/offline/test_demo_routes.py` asserts that the offline provider
over the bundled knowledge base takes each one to `expected_route`, so a button in the debugger
labelled "clarify" really shows a clarify run.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rag.i18n import N_, _
from rag.schemas import MAX_SUB_QUESTIONS
from rag.settings import DATA_DIR

DEMO_QUESTIONS_PATH = DATA_DIR / "demo_questions.json"

#: The bundled demos' labels, marked for the catalogue (the JSON file cannot be extracted); a test keeps
#: this list equal to the file's labels. A label not here (a demo file of one's own) shows as written.
BUNDLED_LABELS = (
    N_("answer: 丹瑾's attribute (fast path: no planner call)"),
    N_("answer: Lumen X2 operating temperature"),
    N_("rewrite (HyDE): 大招 is not the wiki's word (终结技)"),
    N_("rewrite (HyDE): 'dies too fast' vs the manual's 'battery drains quickly'"),
    N_("rewrite (step-back): a specific version and date -> the support policy"),
    N_("clarify: the monthly pass price depends on the server"),
    N_("clarify: the firmware update depends on the platform"),
    N_("scope_select: two characters named 白鸦"),
    N_("scope_select: two products named Nova"),
    N_("no_knowledge: weather is not in the knowledge base"),
    N_("no_knowledge: geography is not in the knowledge base"),
    N_("complex: three dimensions of 丹瑾 -> 3 sub-questions"),
    N_("complex: two characters' weapons -> 2 sub-questions"),
    N_("complex: two products, two questions -> 2 sub-questions"),
)

ExpectedRoute = Literal["answer", "rewrite_then_answer", "clarify", "scope_select", "no_knowledge", "complex"]
FinalRoute = Literal["answer", "rewrite", "clarify", "scope_select", "no_knowledge"]


class DemoQuestion(BaseModel):
    """One demo. `expected_route` is the demo's category; for `rewrite_then_answer` the run ends in
    route answer with a rewrite in its trace; for `complex` the run takes the complex chain with
    `expected_sub_questions` sub-questions and ends in `expected_final_route`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    lang: Literal["zh", "en"]
    expected_route: ExpectedRoute
    label: str = Field(min_length=1)
    hitl_answer: Optional[str] = None
    expected_resume_route: Optional[FinalRoute] = None
    expected_sub_questions: Optional[int] = Field(None, ge=2, le=MAX_SUB_QUESTIONS)
    expected_rewrite_method: Optional[Literal["step_back", "hyde"]] = None
    expected_final_route: Optional[FinalRoute] = None

    @model_validator(mode="after")
    def _consistent(self) -> "DemoQuestion":
        hitl = self.expected_route in ("clarify", "scope_select")
        if hitl and not (self.hitl_answer and self.expected_resume_route):
            raise ValueError(f"demo {self.id!r}: a {self.expected_route} demo needs hitl_answer and expected_resume_route")
        if not hitl and (self.hitl_answer or self.expected_resume_route):
            raise ValueError(f"demo {self.id!r}: only clarify / scope_select demos resume")
        if (self.expected_route == "complex") != (self.expected_sub_questions is not None):
            raise ValueError(f"demo {self.id!r}: expected_sub_questions is for complex demos only, and required there")
        if self.expected_rewrite_method and self.expected_route != "rewrite_then_answer":
            raise ValueError(f"demo {self.id!r}: expected_rewrite_method is for rewrite_then_answer demos only")
        return self

    @property
    def display_label(self) -> str:
        """The button's label in the reader's language (`label` itself is data: the English, kept in exports)."""
        return _(self.label)

    @property
    def final_route(self) -> str:
        """The route the run itself ends with."""
        if self.expected_route == "rewrite_then_answer":
            return "answer"
        if self.expected_route == "complex":
            return self.expected_final_route or "answer"
        return self.expected_route


def parse_demo_questions(data: object) -> list[DemoQuestion]:
    """Validate a decoded demo list; ids must be unique so buttons and tests can key on them."""
    if not isinstance(data, list):
        raise ValueError("the demo questions file must hold a JSON list")
    demos = [DemoQuestion.model_validate(item) for item in data]
    seen: set[str] = set()
    for d in demos:
        if d.id in seen:
            raise ValueError(f"duplicate demo id {d.id!r}")
        seen.add(d.id)
    return demos


def load_demo_questions(path: Optional[Path] = None) -> list[DemoQuestion]:
    """The demo questions (the bundled file by default), validated."""
    if path is None:
        return list(_bundled())
    return parse_demo_questions(json.loads(Path(path).read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def _bundled() -> tuple[DemoQuestion, ...]:
    return tuple(parse_demo_questions(json.loads(DEMO_QUESTIONS_PATH.read_text(encoding="utf-8"))))


__all__ = ["DemoQuestion", "load_demo_questions", "parse_demo_questions", "DEMO_QUESTIONS_PATH"]
