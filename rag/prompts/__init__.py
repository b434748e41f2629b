"""Prompts as data: one text file per model role, with `{variable}` placeholders.

Kept out of the node code so that the playground can edit, validate and version them. A template
may use only its role's input fields and must use the required ones; `validate_template` says
which rule a bad template breaks before anything runs.

Three roles are the graph's model calls; the fourth, `answerer`, is the answering agent that runs
after the graph on the evidence of an `answer` route (`rag/answering.py`). It is versioned with the
others so a prompt version fixes everything a model is told, and a version saved before it existed
answers with the built-in answerer prompt.

The templates and their rules are `rag.prompts.templates`, saved versions `rag.prompts.versions`; this
package only picks the one a setting names (`load_prompts`).
"""
from __future__ import annotations

from typing import Optional

from rag.prompts.templates import PromptSet, load_default_prompts
from rag.prompts.versions import load_version


def load_prompts(version: Optional[str] = None) -> PromptSet:
    """The default prompts, or a saved version (`rag.prompts.versions`)."""
    if not version or version == "default":
        return load_default_prompts()
    return load_version(version)
