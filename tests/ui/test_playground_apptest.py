"""The prompt playground under AppTest: a bad template is refused with its rule, A/B shows two
results side by side (offline: with the "prompts are ignored" note; with a local OpenAI-compatible
server: B's edit really changes the route, and the diff says so), a question that never reaches
the role's node gets a message, and prompt versions save / load / compare / activate in a tmp
RAG_PROMPT_DIR."""
from __future__ import annotations

import json

import pytest

from rag.demo import load_demo_questions
from rag.prompts.templates import load_default_prompts
from tests.support.browser import ROOT
from tests.support.fake_openai import running_fake_openai

STRICT = "BE STRICT: treat every passage as off-topic."


def playground(role: str = "grader"):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("pages/playground.py").run()
    at.radio(key="pg_role").set_value(role).run()
    return at


def problems(at) -> list:
    return [e.value for e in at.exception]


def answer_demo():
    return next(d for d in load_demo_questions() if d.expected_route == "answer")


def side_by_side(at) -> bool:
    """Variant A's and B's headings sit in two sibling columns."""
    cols = list(at.columns)
    for left, right in zip(cols, cols[1:], strict=False):
        if any(m.value == "### A — current" for m in left.markdown) and \
                any(m.value == "### B — edited" for m in right.markdown):
            return True
    return False


def messages(at) -> list[str]:
    return [w.body for w in at.warning] + [e.body for e in at.error]


@pytest.mark.parametrize("template, rule", [
    ("Grade {question} against {context} and {secret_var}.", "unknown variable secret_var"),
    ("Grade {question} only.", "must use {context}"),
    ("Grade {question} with {context} and a stray { brace", "template syntax error"),
    ("   ", "is empty"),
], ids=["unknown-variable", "missing-required", "syntax", "empty"])
def test_a_bad_template_is_refused_with_its_rule(env, template, rule):
    at = playground("grader")
    at.text_area(key="pg_b_grader").set_value(template).run()
    assert any(rule in e.body and "Not runnable" in e.body for e in at.error), messages(at)
    at.text_input(key="pg_question").set_value(answer_demo().question).run()
    at.button(key="pg_run").click().run()
    assert not problems(at)
    assert any(rule in w.body for w in at.warning), messages(at)
    assert not any(m.value == "### A/B result" for m in at.markdown)


def test_offline_ab_shows_both_variants_side_by_side_and_says_prompts_are_ignored(env):
    at = playground("grader")
    demo = answer_demo()
    at.button(key=f"pg_demo_{demo.id}").click().run()
    assert at.text_input(key="pg_question").value == demo.question
    at.text_area(key="pg_b_grader").set_value(load_default_prompts().grader + "\n" + STRICT).run()
    assert any("Valid template" in s.body for s in at.success)
    at.button(key="pg_run").click().run()
    assert not problems(at), problems(at)
    assert side_by_side(at)
    assert any("offline rule-based provider ignores prompt text" in w.body and "Settings" in w.body
               for w in at.warning)
    assert any("A and B ended in the same state" in s.body for s in at.success)
    outputs = [json.loads(j.value) for j in at.json]
    assert len(outputs) >= 2 and outputs[0]["route"] == outputs[1]["route"] == "answer"


def _grade(req) -> dict:
    if "BE STRICT" in req.text:
        return {"relevance": "none", "answerability": "none", "ambiguity": "none", "confidence": 0.9,
                "route": "no_knowledge", "reason": "strict prompt: off-topic"}
    return {"relevance": "strong", "answerability": "sufficient", "ambiguity": "none", "confidence": 0.8,
            "route": "answer", "reason": "the passage answers it"}


def test_with_a_model_the_edit_changes_the_route_and_the_diff_shows_it(env, monkeypatch):
    with running_fake_openai() as fake:
        fake.reply(_grade, schema="EvidenceGrade")
        monkeypatch.setenv("RAG_MODEL_PROVIDER", "openai")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-playground")
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("RAG_MODEL_MAX_RETRIES", "0")
        at = playground("grader")
        at.text_input(key="pg_question").set_value(answer_demo().question).run()
        at.text_area(key="pg_b_grader").set_value(load_default_prompts().grader + "\n" + STRICT).run()
        at.button(key="pg_run").click().run()
        assert not problems(at), problems(at)
        graded = fake.requests_for("EvidenceGrade")
        assert len(graded) == 2 and sum("BE STRICT" in r.text for r in graded) == 1
    assert side_by_side(at)
    assert not any("offline" in w.body for w in at.warning)
    sides = " ".join(m.value for m in at.markdown)
    assert "final **`answer`**" in sides and "final **`no_knowledge`**" in sides
    diff = next(df.value for df in at.dataframe if {"field", "A", "B", "kind"} <= set(df.value.columns))
    route = diff[diff["field"] == "route"].iloc[0]
    assert (route["A"], route["B"]) == ('"answer"', '"no_knowledge"')


def test_a_question_that_never_reaches_the_role_gets_a_message(env):
    at = playground("rewriter")
    at.text_input(key="pg_question").set_value(answer_demo().question).run()
    at.button(key="pg_run").click().run()
    assert not problems(at)
    assert any("never reaches rewrite_question" in w.body for w in at.warning), messages(at)


def test_versions_save_load_compare_and_activate(env):
    folder = env / "prompt_versions"
    at = playground("grader")
    edited = load_default_prompts().grader + "\n" + STRICT
    at.text_area(key="pg_b_grader").set_value(edited).run()
    at.text_input(key="pg_save_name").set_value("strict-grader").run()
    at.text_input(key="pg_save_note").set_value("treat weak evidence as off-topic").run()
    at.button(key="pg_save").click().run()
    assert any("Saved prompt version “strict-grader”" in s.body for s in at.success), messages(at)
    assert (folder / "strict-grader.json").is_file()
    versions = next(df.value for df in at.dataframe if "note" in df.value.columns)
    assert list(versions["name"]) == ["default", "strict-grader"] and versions["note"][1] == "treat weak evidence as off-topic"
    assert list(versions["active"]) == ["active", ""]  # the page says "Active version: default": the table marks it
    save_box = at.button(key="pg_save")  # the confirmation is said once, not again on the next rerun
    assert len([s for s in at.success if "Saved prompt version" in s.body]) == 1
    at.run()
    assert not [s for s in at.success if "Saved prompt version" in s.body] and save_box is not None

    at.button(key="pg_save").click().run()  # same name again
    assert any("already exists" in w.body for w in at.warning)
    at.text_input(key="pg_save_name").set_value("../evil").run()
    at.button(key="pg_save").click().run()
    assert any("invalid prompt version name" in w.body for w in at.warning)
    assert sorted(p.name for p in folder.iterdir()) == ["strict-grader.json"]

    at.selectbox(key="pg_version").set_value("default").run()
    at.button(key="pg_load").click().run()
    assert at.text_area(key="pg_b_grader").value == load_default_prompts().grader
    at.selectbox(key="pg_version").set_value("strict-grader").run()
    at.button(key="pg_load").click().run()
    assert at.text_area(key="pg_b_grader").value == edited

    at.selectbox(key="pg_version").set_value("default").run()
    at.selectbox(key="pg_cmp_b").set_value("strict-grader").run()
    at.button(key="pg_compare").click().run()
    diffs = [c for c in at.code if c.language == "diff"]
    assert len(diffs) == 1 and f"+{STRICT}" in diffs[0].value and "default/grader" in diffs[0].value
    assert any("planner: identical" in c.value for c in at.caption)

    at.selectbox(key="pg_version").set_value("strict-grader").run()
    at.button(key="pg_set_active").click().run()
    assert (folder / "ACTIVE").read_text().strip() == "strict-grader"
    assert any("Active version: **strict-grader**" in c.value for c in at.caption)
    versions = next(df.value for df in at.dataframe if "note" in df.value.columns)
    assert list(versions["active"]) == ["", "active"]
    assert len([s for s in at.selectbox if s.label == "Version"]) == 1  # one picker for load, activate, compare
    assert any("version `strict-grader`" in m.value for m in at.markdown)  # variant A follows it


# ----- the answerer: the fourth role --------------------------------------------------------------

TERSE = "\nTERSE: answer in at most five words."


def test_the_playground_lists_four_roles_and_the_answerer_is_the_answer_step(env):
    at = playground("answerer")
    assert list(at.radio(key="pg_role").options) == [
        "planner (classify_complexity)", "grader (grade_documents)", "rewriter (rewrite_question)",
        "answerer (answer_step)"]
    assert at.text_area(key="pg_b_answerer").value == load_default_prompts().answerer
    assert any("used by the answer step after the graph" in m.value for m in at.markdown)
    at.text_area(key="pg_b_answerer").set_value("Answer {question}.").run()
    assert any("must use {context}" in e.body for e in at.error), messages(at)


def test_offline_answerer_ab_shows_the_same_extractive_answer_twice_and_says_why(env):
    at = playground("answerer")
    at.button(key=f"pg_demo_{answer_demo().id}").click().run()
    at.text_area(key="pg_b_answerer").set_value(load_default_prompts().answerer + TERSE).run()
    at.button(key="pg_run").click().run()
    assert not problems(at), problems(at)
    assert side_by_side(at)
    assert any("Offline, the answer is extractive" in w.body for w in at.warning), messages(at)
    assert sum("**Extractive answer**" in m.value for m in at.markdown) == 2
    assert any("A and B gave the same answer" in s.body for s in at.success)


def test_with_a_model_the_answerer_ab_shows_two_different_answers(env, monkeypatch):
    def answer(req) -> dict:
        return {"answer": "Short [1]"} if "TERSE" in req.text else {"answer": "A long answer citing [1] and [2]"}

    with running_fake_openai() as fake:
        fake.reply({"complexity": "simple", "complexity_reason": "one fact", "sub_questions": []},
                   schema="ComplexityResult")
        fake.reply(_grade, schema="EvidenceGrade")
        fake.reply(answer, method="plain")
        monkeypatch.setenv("RAG_MODEL_PROVIDER", "openai")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-playground")
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("RAG_MODEL_MAX_RETRIES", "0")
        at = playground("answerer")
        at.text_input(key="pg_question").set_value(answer_demo().question).run()
        at.text_area(key="pg_b_answerer").set_value(load_default_prompts().answerer + TERSE).run()
        at.button(key="pg_run").click().run()
        assert not problems(at), problems(at)
        sent = [r for r in fake.requests if r.method == "plain"]
    assert len(sent) == 2 and sum("TERSE" in r.text for r in sent) == 1
    assert side_by_side(at)
    shown = " ".join(m.value for m in at.markdown)
    assert "Short" in shown and "A long answer citing" in shown and "generated by" in shown
    diff = next(df.value for df in at.dataframe if {"field", "A", "B", "kind"} <= set(df.value.columns))
    assert "answer" in set(diff["field"])


def test_an_answerer_edit_is_saved_in_a_version_and_loads_back(env):
    at = playground("answerer")
    edited = load_default_prompts().answerer + TERSE
    at.text_area(key="pg_b_answerer").set_value(edited).run()
    at.text_input(key="pg_save_name").set_value("terse-answers").run()
    at.button(key="pg_save").click().run()
    assert not problems(at), problems(at)
    saved = json.loads((env / "prompt_versions" / "terse-answers.json").read_text("utf-8"))
    assert "\n".join(saved["templates"]["answerer"]) == edited
    at.button(key="pg_reset_b").click().run()
    assert at.text_area(key="pg_b_answerer").value == load_default_prompts().answerer
    at.selectbox(key="pg_version").set_value("terse-answers").run()
    at.button(key="pg_load").click().run()
    assert at.text_area(key="pg_b_answerer").value == edited
