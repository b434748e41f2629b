"""Each model call records its endpoint's health (what the sidebar's model badge shows): ok after a
call that worked, the role and error kind after one that failed."""
from __future__ import annotations

import pytest

from rag.errors import ModelCallError
from rag.models.base import GraderInput, PlannerInput
from rag.models.health import last_call
from rag.models.openai_compat import build_openai_roles
from tests.support.fake_openai import closed_port_url


def test_a_working_call_is_recorded_ok(scripted, make_settings):
    settings = make_settings()
    assert last_call(settings.openai_base_url) is None
    build_openai_roles(settings).planner.invoke(PlannerInput(question="Compare A and B"))
    health = last_call(settings.openai_base_url)
    assert health.ok and health.role == "planner" and health.kind is None


def test_the_last_call_wins_and_a_failure_names_role_and_kind(scripted, make_settings):
    url = closed_port_url()
    roles = build_openai_roles(make_settings(openai_base_url=url))
    with pytest.raises(ModelCallError):
        roles.grader.invoke(GraderInput(question="What is A?", context="A is a letter."))
    health = last_call(url)
    assert (health.ok, health.role, health.kind) == (False, "grader", "connection")
    assert last_call(scripted.base_url) is None  # kept per endpoint
