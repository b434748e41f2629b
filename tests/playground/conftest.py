"""The playground's tests use the run fixtures (offline settings, scripted collaborators, a history on
each engine): the playground forks runs of that history. pytest finds a fixture by its name in a
conftest, so they are imported here by name."""
from __future__ import annotations

from tests.runs.conftest import _no_env_keys, ctx, history, history_target, retriever, settings  # noqa: F401
