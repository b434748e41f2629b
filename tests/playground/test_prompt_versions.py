"""Prompt versions: files in a folder, validated, listed, compared, and usable by the pipeline."""
from __future__ import annotations

import json
import os

import pytest

from rag.errors import PromptTemplateError, PromptVersionError, UnknownPromptVersionError
from rag.models.factory import get_default_roles
from rag.prompts import load_prompts
from rag.prompts.templates import PromptSet, load_default_prompts
from rag.prompts.versions import (
    compare_versions,
    delete_version,
    get_active,
    list_versions,
    load_version,
    save_version,
    set_active,
    versions_dir,
)
from rag.settings import RagSettings


def edited(**changes) -> PromptSet:
    return load_default_prompts().model_copy(update=changes)


def test_round_trip_keeps_templates_byte_for_byte(tmp_path):
    weird = "Line one {question}\n\n  indented {{literal braces}}\n=== grader ===\n中文：{question}\n"
    prompts = edited(planner=weird)
    info = save_version("v1", prompts, "more concise planner", directory=tmp_path)
    assert info.name == "v1" and info.note == "more concise planner" and info.created_at
    loaded = load_version("v1", directory=tmp_path)
    assert loaded.planner == weird
    assert loaded.grader == prompts.grader and loaded.rewriter == prompts.rewriter
    assert loaded.version == "v1"


def test_file_is_line_per_line_json_so_git_diffs_show_lines(tmp_path):
    save_version("v1", load_default_prompts(), "n", directory=tmp_path)
    doc = json.loads((tmp_path / "v1.json").read_text(encoding="utf-8"))
    assert doc["name"] == "v1" and doc["note"] == "n" and doc["created_at"]
    assert isinstance(doc["templates"]["grader"], list) and len(doc["templates"]["grader"]) > 5


def test_env_folder_is_the_default(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_PROMPT_DIR", str(tmp_path / "elsewhere"))
    save_version("envy", load_default_prompts(), "")
    assert versions_dir() == tmp_path / "elsewhere"
    assert (tmp_path / "elsewhere" / "envy.json").is_file()


@pytest.mark.parametrize("name", ["../x", "a/b", "..", "", "   ", "x y", ".hidden", "a" * 65, "default", "active", None])
def test_bad_names_are_refused_with_a_message(tmp_path, name):
    with pytest.raises(PromptVersionError) as exc:
        save_version(name, load_default_prompts(), "", directory=tmp_path)
    assert "name" in str(exc.value) or "reserved" in str(exc.value)
    assert not any(tmp_path.parent.glob("x.json"))
    assert list(tmp_path.iterdir()) == []


def test_invalid_templates_are_refused_before_writing(tmp_path):
    with pytest.raises(PromptTemplateError, match="unknown variable"):
        save_version("bad", edited(grader="{question} {context} {secret}"), "", directory=tmp_path)
    with pytest.raises(PromptTemplateError, match=r"must use \{context\}"):
        save_version("bad", edited(grader="only {question}"), "", directory=tmp_path)
    with pytest.raises(PromptTemplateError, match="syntax"):
        save_version("bad", edited(planner="{question"), "", directory=tmp_path)
    assert not (tmp_path / "bad.json").exists()


def test_existing_name_needs_overwrite_and_note_is_one_line(tmp_path):
    save_version("v1", load_default_prompts(), "first\nsecond   line", directory=tmp_path)
    assert list_versions(directory=tmp_path)[0].note == "first second line"
    with pytest.raises(PromptVersionError, match="already exists"):
        save_version("v1", load_default_prompts(), "", directory=tmp_path)
    save_version("v1", edited(planner="new {question}"), "again", directory=tmp_path, overwrite=True)
    assert load_version("v1", directory=tmp_path).planner == "new {question}"
    with pytest.raises(PromptVersionError, match="one line"):
        save_version("v2", load_default_prompts(), "x" * 500, directory=tmp_path)


def test_list_is_newest_first_and_skips_broken_files(tmp_path):
    save_version("old", load_default_prompts(), "a", directory=tmp_path)
    save_version("new", load_default_prompts(), "b", directory=tmp_path)
    doc = json.loads((tmp_path / "old.json").read_text())
    doc["created_at"] = "2000-01-01T00:00:00+00:00"
    (tmp_path / "old.json").write_text(json.dumps(doc))
    (tmp_path / "broken.json").write_text("{not json")
    names = [v.name for v in list_versions(directory=tmp_path)]
    assert names == ["new", "old"]
    with pytest.raises(PromptVersionError, match="broken"):
        load_version("broken", directory=tmp_path)


def test_missing_folder_lists_nothing(tmp_path):
    assert list_versions(directory=tmp_path / "nope") == []


def test_hand_edited_invalid_file_is_refused_on_load(tmp_path):
    save_version("v1", load_default_prompts(), "", directory=tmp_path)
    doc = json.loads((tmp_path / "v1.json").read_text())
    doc["templates"]["rewriter"] = ["no variables at all"]
    (tmp_path / "v1.json").write_text(json.dumps(doc))
    with pytest.raises(PromptVersionError, match="invalid.*rewriter"):
        load_version("v1", directory=tmp_path)
    del doc["templates"]["rewriter"]
    (tmp_path / "v1.json").write_text(json.dumps(doc))
    with pytest.raises(PromptVersionError, match="lacks the rewriter"):
        load_version("v1", directory=tmp_path)


def test_unknown_version_lists_what_exists(tmp_path):
    save_version("v1", load_default_prompts(), "", directory=tmp_path)
    with pytest.raises(UnknownPromptVersionError, match=r"unknown prompt version 'nope'.*default, v1"):
        load_version("nope", directory=tmp_path)


def test_compare_gives_a_unified_diff_per_role(tmp_path):
    save_version("a", load_default_prompts(), "", directory=tmp_path)
    base = load_default_prompts()
    save_version("b", edited(grader=base.grader.replace("Judge ONLY", "Judge strictly")), "", directory=tmp_path)
    diffs = compare_versions("a", "b", directory=tmp_path)
    assert set(diffs) == {"planner", "grader", "rewriter", "answerer"}
    assert diffs["planner"] == "" and diffs["rewriter"] == "" and diffs["answerer"] == ""
    assert "--- a/grader" in diffs["grader"] and "+++ b/grader" in diffs["grader"]
    assert any(line.startswith("-") and "Judge ONLY" in line for line in diffs["grader"].splitlines())
    assert any(line.startswith("+") and "Judge strictly" in line for line in diffs["grader"].splitlines())
    assert compare_versions("default", "a", directory=tmp_path)["grader"] == ""


def test_active_pointer(tmp_path):
    assert get_active(directory=tmp_path) is None
    save_version("v1", edited(planner="v1 {question}"), "", directory=tmp_path)
    set_active("v1", directory=tmp_path)
    assert get_active(directory=tmp_path) == "v1"
    assert (tmp_path / "ACTIVE").read_text().strip() == "v1"
    assert load_version("active", directory=tmp_path).planner == "v1 {question}"
    with pytest.raises(UnknownPromptVersionError):
        set_active("ghost", directory=tmp_path)
    assert get_active(directory=tmp_path) == "v1"
    delete_version("v1", directory=tmp_path)
    assert get_active(directory=tmp_path) is None
    assert load_version("active", directory=tmp_path) == load_default_prompts()
    set_active("default", directory=tmp_path)
    assert get_active(directory=tmp_path) is None


def test_active_pointer_to_a_removed_file_is_ignored(tmp_path):
    save_version("v1", load_default_prompts(), "", directory=tmp_path)
    set_active("v1", directory=tmp_path)
    os.remove(tmp_path / "v1.json")
    assert get_active(directory=tmp_path) is None


def test_pipeline_uses_a_saved_version_through_settings(tmp_path, monkeypatch):
    """RAG_PROMPT_VERSION flows through load_prompts into the model roles of the factory."""
    monkeypatch.setenv("RAG_PROMPT_DIR", str(tmp_path))
    custom = edited(grader="Strict grader.\n{question}\n---\n{context}")
    save_version("strict", custom, "stricter grading")
    monkeypatch.setenv("RAG_PROMPT_VERSION", "strict")
    settings = RagSettings(model_provider="openai", openai_api_key="sk-test-not-used",
                           openai_base_url="http://127.0.0.1:9/v1")
    assert settings.prompt_version == "strict"
    assert load_prompts(settings.prompt_version).grader == custom.grader
    roles = get_default_roles(settings)
    assert roles.prompt_version == "strict"
    assert roles.grader.template == custom.grader


def test_pipeline_with_an_unknown_version_fails_clearly(tmp_path):
    settings = RagSettings(model_provider="offline", prompt_version="does-not-exist")
    with pytest.raises(UnknownPromptVersionError, match="does-not-exist.*RAG_PROMPT_VERSION"):
        get_default_roles(settings)


def test_shipped_baseline_equals_the_builtin_prompts(monkeypatch):
    monkeypatch.delenv("RAG_PROMPT_DIR", raising=False)
    assert "baseline" in [v.name for v in list_versions()]
    baseline = load_version("baseline")
    default = load_default_prompts()
    assert (baseline.planner, baseline.grader, baseline.rewriter) == (default.planner, default.grader, default.rewriter)
    assert baseline.answerer == default.answerer


# ----- the answerer: the fourth role (the answering agent after the graph) ------------------------

BRIEF = "Answer in one sentence from the evidence, citing [n].\nQ: {question}\nEvidence:\n{context}\n"


def test_answerer_prompt_versions_round_trip(tmp_path):
    save_version("brief", edited(answerer=BRIEF), "one-sentence answers", directory=tmp_path)
    doc = json.loads((tmp_path / "brief.json").read_text(encoding="utf-8"))
    assert doc["templates"]["answerer"] == BRIEF.split("\n")  # line per line, like the other roles
    loaded = load_version("brief", directory=tmp_path)
    assert loaded.answerer == BRIEF and loaded.grader == load_default_prompts().grader
    diffs = compare_versions("default", "brief", directory=tmp_path)
    assert diffs["answerer"] and not diffs["grader"]
    assert any(line.startswith("+") and "one sentence" in line for line in diffs["answerer"].splitlines())


def test_answerer_template_is_validated_like_the_others(tmp_path):
    with pytest.raises(PromptTemplateError, match="answerer prompt must use {context}"):
        save_version("bad", edited(answerer="Answer {question}."), directory=tmp_path)
    with pytest.raises(PromptTemplateError, match="unknown variable"):
        save_version("bad", edited(answerer="{question} {context} {grade_reason}"), directory=tmp_path)
    assert not (tmp_path / "bad.json").exists()


def test_a_version_saved_before_the_answerer_role_answers_with_the_builtin_prompt(tmp_path):
    save_version("old", load_default_prompts(), directory=tmp_path)
    path = tmp_path / "old.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    del doc["templates"]["answerer"]
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert load_version("old", directory=tmp_path).answerer == load_default_prompts().answerer
