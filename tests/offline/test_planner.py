"""The offline planner: conjunctions and comparisons split into 2-4 self-contained sub-questions."""
from __future__ import annotations

import pytest

from rag.models.offline.planner import plan_question

PREFIX = ("[offline rules]", "[离线规则]")  # in the question's language (tests/offline/test_reasons.py)


@pytest.mark.parametrize(
    "question, expected",
    [
        # Chinese: shared subject distributed over items, shared predicate distributed over subjects
        ("丹瑾的属性、武器和定位是什么？", ["丹瑾的属性是什么？", "丹瑾的武器是什么？", "丹瑾的定位是什么？"]),
        ("丹瑾的属性和武器是什么？", ["丹瑾的属性是什么？", "丹瑾的武器是什么？"]),
        ("丹瑾和青棠分别使用什么武器？", ["丹瑾使用什么武器？", "青棠使用什么武器？"]),
        ("丹瑾用什么武器和技能？", ["丹瑾用什么武器？", "丹瑾用什么技能？"]),
        ("丹瑾是什么属性，并且青棠用什么武器？", ["丹瑾是什么属性？", "青棠用什么武器？"]),
        ("丹瑾是什么属性？青棠用什么武器？", ["丹瑾是什么属性？", "青棠用什么武器？"]),
        # comparison without a dimension -> one question per item that still names the other item
        ("丹瑾与青棠的区别是什么？", ["丹瑾与青棠相比有什么不同？", "青棠与丹瑾相比有什么不同？"]),
        # comparison with a dimension keeps the dimension
        ("对比丹瑾与青棠的定位", ["丹瑾的定位？", "青棠的定位？"]),
        # English
        ("What weapons do Danjin and Qingtang use?", ["What weapons do Danjin use?", "What weapons do Qingtang use?"]),
        (
            "What is the battery capacity of the Lumen X2 and the Nova Speaker?",
            ["What is the battery capacity of the Lumen X2?", "What is the battery capacity of the Nova Speaker?"],
        ),
        (
            "What is the weight, battery capacity and operating temperature of the Lumen X2?",
            ["What is the weight of the Lumen X2?", "What is the battery capacity of the Lumen X2?",
             "What is the operating temperature of the Lumen X2?"],
        ),
        (
            "How do I reset the Nova Thermostat, and what is the battery life of the Lumen X2?",
            ["How do I reset the Nova Thermostat?", "What is the battery life of the Lumen X2?"],
        ),
        (
            "What is the difference between the Nova Speaker and the Nova Thermostat?",
            ["What distinguishes the Nova Speaker from the Nova Thermostat?",
             "What distinguishes the Nova Thermostat from the Nova Speaker?"],
        ),
        ("Compare the Lumen X2 and the Nova Speaker",
         ["What distinguishes the Lumen X2 from the Nova Speaker?", "What distinguishes the Nova Speaker from the Lumen X2?"]),
        # comparisons on text the rules were not written for keep both entities and the dimension
        ("What is the difference between break and continue?",
         ["What distinguishes break from continue?", "What distinguishes continue from break?"]),
        ("Compare the global and nonlocal statements.",
         ["What distinguishes the global statements from nonlocal statements?",
          "What distinguishes nonlocal statements from the global statements?"]),
        ("How do integers and floats differ in precision?",
         ["What distinguishes integers from floats in precision?", "What distinguishes floats from integers in precision?"]),
        ("Compare lists and tuples in terms of mutability",
         ["What distinguishes lists from tuples in terms of mutability?",
          "What distinguishes tuples from lists in terms of mutability?"]),
        ("Compare the battery life of the Nova Speaker and the Lumen X2",
         ["What is the battery life of the Nova Speaker?", "What is the battery life of the Lumen X2?"]),
    ],
)
def test_complex_questions_split_into_self_contained_sub_questions(question, expected):
    plan = plan_question(question)
    assert plan.complexity == "complex"
    assert plan.sub_questions == expected
    assert plan.complexity_reason.startswith(PREFIX)


@pytest.mark.parametrize(
    "question",
    [
        "丹瑾是什么属性？",
        "月卡怎么退款？",
        "How do I update the firmware of the Lumen X2?",
        "My lantern dies too fast, any tips?",  # a comma alone is not a list
        "Why does the Nova Thermostat show error E3?",
        "",
    ],
)
def test_single_intent_questions_stay_simple(question):
    plan = plan_question(question)
    assert plan.complexity == "simple"
    assert plan.sub_questions == []
    assert plan.complexity_reason.startswith(PREFIX)


def test_at_most_four_sub_questions():
    plan = plan_question("丹瑾的属性、武器、定位、技能和故事是什么？")
    assert plan.complexity == "complex"
    assert len(plan.sub_questions) == 4


def test_duplicate_parts_do_not_make_a_complex_question():
    plan = plan_question("丹瑾是什么属性？丹瑾是什么属性？")
    assert plan.complexity == "simple"


@pytest.mark.parametrize("question", [
    "What is the difference between break and continue?",
    "Compare the global and nonlocal statements.",
    "Compare yield and return in a function.",
    "What is the difference between a lambda expression and a def statement?",
])
def test_no_comparison_sub_question_loses_an_entity(question):
    """Each sub-question names every compared item (no "key facts about statement")."""
    plan = plan_question(question)
    subs = plan.sub_questions
    assert plan.complexity == "complex" and len(subs) == 2
    assert subs[0] != subs[1]
    # both items appear in both sub-questions
    items = [s.split("distinguishes ", 1)[1].split(" from ")[0] for s in subs]
    assert all(item in sub for item in items for sub in subs)


@pytest.mark.parametrize("question", [
    "How does the import statement find and load a module?",
    "Which string method removes leading and trailing whitespace?",
])
def test_a_conjunction_of_common_words_is_one_phrase(question):
    """No names and no shared tail: "find and load", "leading and trailing" are one intent."""
    assert plan_question(question).complexity == "simple"
