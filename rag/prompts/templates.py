"""The prompt templates: the roles, the variables each may use, validation and rendering, and the
built-in defaults. Saved versions are `rag.prompts.versions`; `rag.prompts.load_prompts` picks one."""
from __future__ import annotations

import string
from functools import lru_cache
from pathlib import Path
from typing import Mapping

from pydantic import BaseModel, Field

from rag.errors import PromptTemplateError
from rag.i18n import _, ngettext

DEFAULT_DIR = Path(__file__).resolve().parent / "default"
ROLES = ("planner", "grader", "rewriter", "answerer")
#: The roles the graph's nodes call; `answerer` runs after the graph.
GRAPH_ROLES = ("planner", "grader", "rewriter")

#: Variables a role's template must reference, and those it may reference.
REQUIRED_VARIABLES: dict[str, frozenset[str]] = {
    "planner": frozenset({"question"}),
    "grader": frozenset({"question", "context"}),
    "rewriter": frozenset({"question"}),
    "answerer": frozenset({"question", "context"}),
}
ALLOWED_VARIABLES: dict[str, frozenset[str]] = {
    "planner": frozenset({"question"}),
    "grader": frozenset({"question", "context", "is_sub_agent", "rewrite_count"}),
    "rewriter": frozenset({"question", "context", "grade_reason"}),
    "answerer": frozenset({"question", "context"}),
}


@lru_cache(maxsize=1)
def _builtin_answerer() -> str:
    return (DEFAULT_DIR / "answerer.md").read_text(encoding="utf-8")


class PromptSet(BaseModel):
    """The four prompts of one version (a set made without an answerer gets the built-in one)."""

    planner: str
    grader: str
    rewriter: str
    answerer: str = Field(default_factory=_builtin_answerer)
    version: str = "default"

    def get(self, role: str) -> str:
        return getattr(self, role)


def template_variables(template: str) -> set[str]:
    """Names of the `{placeholders}` in a template; raises PromptTemplateError on bad syntax."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise PromptTemplateError(_("template syntax error: {error} (write literal braces as {open} and {close})")
                                  .format(error=exc, open="{{", close="}}")) from exc
    names = set()
    for _literal, field_name, _spec, _conversion in parsed:
        if field_name is None:
            continue
        if field_name == "" or not field_name.isidentifier():
            raise PromptTemplateError(
                _("placeholder {placeholder} is not a variable name (write literal braces as {open} and {close})")
                .format(placeholder="{" + field_name + "}", open="{{", close="}}")
            )
        names.add(field_name)
    return names


def validate_template(role: str, template: str) -> set[str]:
    """Check a role's template; returns its variables or raises PromptTemplateError."""
    if role not in ROLES:
        raise PromptTemplateError(_("unknown role {role}; expected one of {roles}").format(role=repr(role),
                                                                                     roles=", ".join(ROLES)))
    if not template.strip():
        raise PromptTemplateError(_("the {role} prompt is empty").format(role=role))
    names = template_variables(template)
    unknown = names - ALLOWED_VARIABLES[role]
    if unknown:
        raise PromptTemplateError(
            ngettext("the {role} prompt uses an unknown variable {unknown}; allowed: {allowed}",
                     "the {role} prompt uses unknown variables {unknown}; allowed: {allowed}", len(unknown)).format(
                role=role, unknown=", ".join(sorted(unknown)), allowed=", ".join(sorted(ALLOWED_VARIABLES[role])))
        )
    missing = REQUIRED_VARIABLES[role] - names
    if missing:
        raise PromptTemplateError(
            _("the {role} prompt must use {variables}").format(
                role=role, variables=", ".join("{" + m + "}" for m in sorted(missing)))
        )
    return names


def render(role: str, template: str, values: Mapping[str, object]) -> str:
    validate_template(role, template)
    return template.format(**{k: values.get(k, "") for k in ALLOWED_VARIABLES[role]})


def load_default_prompts() -> PromptSet:
    return PromptSet(**{role: (DEFAULT_DIR / f"{role}.md").read_text(encoding="utf-8") for role in ROLES})

