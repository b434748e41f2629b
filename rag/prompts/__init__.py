"""Prompts as data: one text file per model role, with `{variable}` placeholders.

Kept out of the node code so that the playground can edit, validate and version them. A template
may use only its role's input fields and must use the required ones; `validate_template` says
which rule a bad template breaks before anything runs.

Three roles are the graph's model calls; the fourth, `answerer`, is the answering agent that runs
after the graph on the evidence of an `answer` route (`rag/answering.py`). It is versioned with the
others so a prompt version fixes everything a model is told, and a version saved before it existed
answers with the built-in answerer prompt.
"""
from __future__ import annotations

import string
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Optional

from pydantic import BaseModel, Field

from rag.errors import PromptTemplateError  # noqa: F401 - re-exported from its old home
from rag.i18n import _

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
            _("the {role} prompt uses unknown variable(s) {unknown}; allowed: {allowed}").format(
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


def load_prompts(version: Optional[str] = None) -> PromptSet:
    """The default prompts, or a saved version (see `rag.prompts.versions`, when present)."""
    if not version or version == "default":
        return load_default_prompts()
    from rag.prompts.versions import load_version  # saved versions live in their own module

    return load_version(version)
