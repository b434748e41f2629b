"""The offline provider as model roles, and its rules file."""
from __future__ import annotations

import json

import pytest
from langchain_core.runnables import Runnable
from pydantic import ValidationError

from rag.models.base import GraderInput, ModelRoles, PlannerInput, RewriterInput
from rag.models.offline import build_offline_roles
from rag.models.offline_rules import RULES_PATH, load_offline_rules
from rag.schemas import ComplexityResult, EvidenceGrade, RewritePlan


def test_roles_are_runnables_with_the_contract_outputs():
    roles = build_offline_roles()
    assert isinstance(roles, ModelRoles) and roles.provider == "offline-rules"
    for r in (roles.planner, roles.grader, roles.rewriter):
        assert isinstance(r, Runnable)
    assert isinstance(roles.planner.invoke(PlannerInput(question="丹瑾和青棠分别使用什么武器？")), ComplexityResult)
    grade = roles.grader.invoke(GraderInput(question="丹瑾是什么属性？", context="",
                                            docs=[{"filename": "a.md", "text": "丹瑾的属性是霜。"}]))
    assert isinstance(grade, EvidenceGrade) and grade.route == "answer"
    assert isinstance(roles.rewriter.invoke(RewriterInput(question="丹瑾的大招叫什么？")), RewritePlan)


def test_roles_accept_plain_dicts_too():
    roles = build_offline_roles()
    assert roles.planner.invoke({"question": "丹瑾是什么属性？"}).complexity == "simple"
    assert roles.grader.invoke({"question": "x", "context": ""}).route == "no_knowledge"


def test_invalid_input_raises_a_validation_error_not_a_wrong_answer():
    roles = build_offline_roles()
    with pytest.raises(ValidationError):
        roles.grader.invoke({"context": "no question"})


def test_bundled_rules_file_loads_and_is_frozen():
    rules = load_offline_rules()
    assert rules.reason_prefix == "[offline rules]" and rules.zh_reason_prefix == "[离线规则]"
    assert "大招" in rules.synonyms and not any(k.startswith("_") for k in rules.synonyms)
    with pytest.raises(ValidationError):
        rules.grader.answer_top_n = 5  # type: ignore[misc]


def test_a_broken_rules_file_fails_at_load_naming_the_field(tmp_path):
    data = json.loads(RULES_PATH.read_text(encoding="utf-8"))
    data["grader"]["answer_top_n"] = 0
    bad = tmp_path / "rules.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValidationError, match="answer_top_n"):
        load_offline_rules(bad)


def test_custom_rules_change_behaviour(tmp_path):
    data = json.loads(RULES_PATH.read_text(encoding="utf-8"))
    data["reason_prefix"] = "[house rules]"
    data["zh_reason_prefix"] = "[内部规则]"
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    roles = build_offline_roles(load_offline_rules(path))
    grade = roles.grader.invoke(GraderInput(question="丹瑾是什么属性？", context="", docs=[]))
    assert grade.reason.startswith("[内部规则]")
    grade = roles.grader.invoke(GraderInput(question="What is the warranty?", context="", docs=[]))
    assert grade.reason.startswith("[house rules]")
