"""The offline grader: lexical coverage, competing candidates, condition variants. Never absolute
retrieval scores; only the order of the evidence."""
from __future__ import annotations

import re

import pytest

from rag.models.offline.grader import grade_evidence
from rag.rules.routing import resolve_route
from tests.offline.helpers import doc, grader_input

ATTR = doc("丹瑾的属性是霜。她使用的武器是链刃，定位为副输出。", "char_danjin.md")
STORY = doc("丹瑾幼年随祖父学医，独自经营上城药铺。", "char_danjin.md")
ULT = doc("丹瑾的终结技“千山暮雪”召唤持续六秒的暴雪领域。", "char_danjin.md")
QT = doc("青棠的属性是风，使用的武器是长弓。", "char_qingtang.md")
ALLY = doc("白鸦（可招募角色）的属性是雷，使用的武器是短杖。", "char_baiya_ally.md")
BOSS = doc("白鸦（第三章首领）的属性是蚀，使用的武器是骨翼镰刀。", "char_baiya_boss.md")
PRICE = doc("月卡的价格因服务器（国服、国际服、日服）而异：国服三十元；国际服四点九九美元；日服六百一十日元。", "shop.md")
THERMO = doc("To reset the Nova Thermostat, hold the display ring for ten seconds.", "nova_thermostat.md")
SPEAKER = doc("To reset the Nova Speaker, hold the power button for eight seconds.", "nova_speaker.md")
FW = doc("The Lumen X2 firmware update procedure depends on your platform (iOS, Android or Windows).", "lumen.md")
FW_ANDROID = doc("Android: open the Trailglow app and tap Update under the device card.", "lumen.md")
SPEC = doc("The operating temperature range of the Lumen X2 is -10 °C to 45 °C.", "lumen.md")
MODES = doc("Press the mode button of the Lumen X2 to cycle through High, Medium and Eco.", "lumen.md")
DRAIN = doc("Battery drains quickly? Use Eco mode and lower the brightness.", "lumen.md")
POLICY = doc("Trailglow supports each Lumen X2 firmware version for two years after its release date.", "notes.md")


def _route(grade, *, sub=False, rewrites=0, has_docs=True):
    return resolve_route(grade, has_docs=has_docs, is_sub_agent=sub, rewrite_count=rewrites)


def test_full_coverage_near_the_top_is_an_answer():
    g = grade_evidence(grader_input("丹瑾是什么属性？", ATTR, QT))
    assert (g.relevance, g.answerability, g.ambiguity, g.route) == ("strong", "sufficient", "none", "answer")
    assert _route(g) == "answer"


def test_english_full_coverage_is_an_answer():
    g = grade_evidence(grader_input("What is the operating temperature range of the Lumen X2?", SPEC, MODES))
    assert (g.relevance, g.answerability, g.route) == ("strong", "sufficient", "answer")


def test_covering_chunk_below_the_top_means_rewrite_not_answer():
    # the chunk that covers "大招" (via 终结技) is ranked third: a reader of the top chunks misses it
    g = grade_evidence(grader_input("丹瑾的大招叫什么？", STORY, ATTR, ULT))
    assert g.answerability == "partial" and g.route == "rewrite"
    assert _route(g) == "rewrite"
    assert "大招" in g.reason
    # the same evidence with the covering chunk on top answers (synonym table: 大招 -> 终结技)
    g2 = grade_evidence(grader_input("丹瑾的大招叫什么？", ULT, STORY, ATTR))
    assert g2.route == "answer" and _route(g2) == "answer"


def test_synonyms_bridge_vocabulary_in_english():
    lantern = doc("The Lumen X2 is a rechargeable camping lantern.", "lumen.md")
    g = grade_evidence(grader_input("My lantern dies too fast, any tips?", DRAIN, lantern))
    assert g.answerability == "sufficient" and _route(g) == "answer"


def test_partial_after_a_rewrite_becomes_clarify_and_in_a_sub_question_an_answer():
    g = grade_evidence(grader_input("What is the warranty of the Lumen X2?", SPEC, MODES))
    assert g.answerability == "partial" and "warranty" in g.reason
    assert _route(g, rewrites=0) == "rewrite"
    assert _route(g, rewrites=1) == "clarify"
    assert _route(g, sub=True) == "answer"


def test_numbers_and_dates_are_not_required_terms():
    g = grade_evidence(grader_input("Is Lumen X2 firmware 2.1 from 2023-11-02 still supported in 2026?", POLICY))
    assert g.answerability == "sufficient" and g.route == "answer"


@pytest.mark.parametrize(
    "question, docs",
    [
        ("What is the capital of Australia?", [SPEC, THERMO]),
        ("今天北京的天气怎么样？", [ATTR, PRICE]),
    ],
)
def test_off_topic_evidence_has_relevance_none(question, docs):
    g = grade_evidence(grader_input(question, *docs))
    assert (g.relevance, g.answerability, g.route) == ("none", "none", "no_knowledge")
    assert _route(g) == "no_knowledge"


def test_no_docs_and_no_context_is_no_knowledge():
    g = grade_evidence(grader_input("丹瑾是什么属性？"))
    assert g.relevance == "none" and g.route == "no_knowledge"


def test_context_only_input_is_graded_from_the_context_text():
    from rag.models.base import GraderInput

    g = grade_evidence(GraderInput(question="丹瑾是什么属性？", context="[1] (a.md)\n丹瑾的属性是霜。"))
    assert g.route == "answer"


def test_question_of_stop_words_only_is_no_knowledge():
    g = grade_evidence(grader_input("是什么？", ATTR))
    assert g.relevance == "none" and g.route == "no_knowledge"


@pytest.mark.parametrize(
    "question, docs, options",
    [
        ("白鸦用什么武器？", [ALLY, BOSS], ["白鸦（可招募角色）", "白鸦（第三章首领）"]),
        ("白鸦用什么武器？", [BOSS, ALLY], ["白鸦（第三章首领）", "白鸦（可招募角色）"]),
        ("How do I reset the Nova?", [THERMO, SPEAKER], ["Nova Thermostat", "Nova Speaker"]),
    ],
)
def test_two_things_with_one_name_ask_the_user_to_choose(question, docs, options):
    g = grade_evidence(grader_input(question, *docs))
    assert g.ambiguity == "multiple_candidates"
    assert g.hitl_options == options  # in rank order
    assert g.hitl_prompt
    assert _route(g) == "scope_select"


@pytest.mark.parametrize(
    "question, docs",
    [
        ("白鸦用什么武器？（补充：白鸦（第三章首领））", [BOSS, ALLY]),
        ("How do I reset the Nova? (clarification: Nova Thermostat)", [THERMO, SPEAKER]),
        ("How do I reset the Nova Speaker?", [SPEAKER, THERMO]),
    ],
)
def test_a_question_naming_the_qualifier_is_not_ambiguous(question, docs):
    g = grade_evidence(grader_input(question, *docs))
    assert g.ambiguity == "none"
    assert _route(g) == "answer"


def test_one_candidate_with_the_name_is_not_ambiguous():
    g = grade_evidence(grader_input("白鸦用什么武器？", BOSS))
    assert g.ambiguity == "none"


def test_a_candidate_that_does_not_match_the_question_is_not_offered():
    unrelated_speaker = doc("The Nova Speaker is waterproof to IPX7.", "nova_speaker.md")
    g = grade_evidence(grader_input("How do I reset the Nova?", THERMO, unrelated_speaker))
    assert g.ambiguity == "none"


@pytest.mark.parametrize(
    "question, docs, slot, values",
    [
        ("月卡的价格是多少？", [PRICE], "服务器", ["国服", "国际服", "日服"]),
        ("How do I update the firmware of the Lumen X2?", [FW, FW_ANDROID], "platform", ["iOS", "Android", "Windows"]),
    ],
)
def test_evidence_that_varies_by_an_unnamed_condition_asks_for_it(question, docs, slot, values):
    g = grade_evidence(grader_input(question, *docs))
    assert g.ambiguity == "missing_slot"
    assert g.missing_slots == [slot]
    assert g.hitl_options == values
    assert slot in g.hitl_prompt
    assert _route(g) == "clarify"


@pytest.mark.parametrize(
    "question, docs",
    [
        ("月卡的价格是多少？（补充：国服）", [PRICE]),
        ("How do I update the firmware of the Lumen X2? (clarification: Android)", [FW_ANDROID, FW]),
    ],
)
def test_a_named_condition_fills_the_slot(question, docs):
    g = grade_evidence(grader_input(question, *docs))
    assert g.ambiguity == "none"
    assert _route(g) == "answer"


def test_variants_in_a_weaker_chunk_do_not_trigger_clarify():
    # the firmware chunk lists platforms but matches the temperature question worse than SPEC
    g = grade_evidence(grader_input("What is the operating temperature range of the Lumen X2?", SPEC, FW))
    assert g.ambiguity == "none" and g.route == "answer"


@pytest.mark.parametrize("scale", [None, 0.0163, 12.7, 0.99])
def test_absolute_scores_do_not_change_the_grade(scale):
    docs = [dict(d, score=scale) for d in (STORY, ATTR, ULT)]
    base = grade_evidence(grader_input("丹瑾的大招叫什么？", STORY, ATTR, ULT))
    assert grade_evidence(grader_input("丹瑾的大招叫什么？", *docs)) == base


@pytest.mark.parametrize(
    "question, docs",
    [
        ("丹瑾是什么属性？", [ATTR]),
        ("丹瑾的大招叫什么？", [STORY, ATTR, ULT]),
        ("What is the capital of Australia?", [SPEC]),
        ("白鸦用什么武器？", [ALLY, BOSS]),
        ("月卡的价格是多少？", [PRICE]),
        ("丹瑾是什么属性？", []),
    ],
)
def test_every_reason_says_it_comes_from_rules(question, docs):
    g = grade_evidence(grader_input(question, *docs))
    chinese = bool(re.search(r"[\u3400-\u9fff]", question))
    assert g.reason.startswith("[离线规则]" if chinese else "[offline rules]")  # in the question's language
    assert 0.0 <= g.confidence <= 1.0


# --- corpus statistics: judging text the rules were not written for ------------------------------

from rag.retrieval.retriever import CorpusStats  # noqa: E402

WITH = doc("The with statement is used to wrap the execution of a block with methods defined by a "
           "context manager. The context manager's __enter__() method is invoked.", "with.md")
TRY = doc("The try statement specifies exception handlers. An except clause may name several exceptions "
          "in a parenthesized tuple.", "try.md")
OPS = doc("Operator precedence: capital letters are not operators.", "operator-summary.md")
PLATFORM = doc("On Windows the path separator differs from Linux and macOS.", "os.md")


def _stats(n=4000, **df):
    return CorpusStats(documents=n, df=df)


@pytest.mark.parametrize("question, docs, stats, route, why", [
    # most of the question's words never occur in the KB: off-topic, whatever the evidence says
    ("What is the capital of Australia?", [OPS, PLATFORM], _stats(capital=4, australia=0), "no_knowledge",
     "never occur"),
    ("How do I bake sourdough bread at home?", [PLATFORM], _stats(bake=0, sourdough=0, bread=0, home=2),
     "no_knowledge", "never occur"),
    # one paraphrase word absent from the KB does not make a question off-topic
    ("How do I catch several exceptions in one except clause?", [TRY],
     _stats(catch=0, several=5, exceptions=63, one=159, clause=160, **{"except": 154}), "answer", "never in the"),
    # a word every chunk holds weighs little: missing it near the top still answers
    ("What does the with statement do with an object?", [WITH],
     _stats(statement=900, object=3000), "answer", "object"),
])
def test_corpus_statistics_drive_relevance(question, docs, stats, route, why):
    g = grade_evidence(grader_input(question, *docs, corpus=stats))
    assert _route(g) == route
    assert why in g.reason


def test_a_condition_listed_by_chunks_that_do_not_answer_is_not_a_missing_slot():
    # the platform names are in the evidence, but not in a chunk that answers the question
    g = grade_evidence(grader_input("How do I format a float?", PLATFORM, doc("Use a format spec for a float.")))
    assert g.ambiguity == "none" and _route(g) == "answer"


@pytest.mark.parametrize("rewrites, sub, route", [(0, False, "rewrite"), (1, False, "no_knowledge"),
                                                  (0, True, "no_knowledge")])
def test_after_a_rewrite_the_judge_settles_instead_of_asking(rewrites, sub, route):
    # the evidence is about the question, but not near the top: worth one rewrite, then no_knowledge
    # (a sub-question never rewrites: partial evidence is its answer)
    warranty = doc("The Lumen X2 comes with a warranty.", "lumen.md")
    g = grade_evidence(grader_input("What is the warranty period of the Lumen X2?", STORY, THERMO, warranty,
                                    rewrite_count=rewrites, is_sub_agent=sub))
    assert _route(g, rewrites=rewrites, sub=sub) == route


def test_after_a_rewrite_most_of_the_question_near_the_top_answers():
    g = grade_evidence(grader_input("How do I catch several exceptions in one except clause?", TRY, rewrite_count=1))
    assert (g.answerability, _route(g, rewrites=1)) == ("sufficient", "answer")


@pytest.mark.parametrize("question, referent", [
    ("What does this method return?", "this method"),
    ("Which exception does it raise?", "it"),
    ("这个技能的冷却时间是多少？", "这个"),
])
def test_an_unnamed_referent_asks_which_one(question, referent):
    evidence = doc("A method may return a value; raise names an exception. 技能的冷却时间为十秒。")
    g = grade_evidence(grader_input(question, evidence))
    assert g.ambiguity == "missing_slot" and g.missing_slots == [referent]
    assert referent in g.hitl_prompt and _route(g) == "clarify"


def test_a_named_subject_is_not_an_unnamed_referent():
    g = grade_evidence(grader_input("What does the with statement return?", WITH))
    assert g.ambiguity == "none"


def _with_ids(*docs):
    return [{**d, "chunk_id": f"c{i}"} for i, d in enumerate(docs)]


@pytest.mark.parametrize("both_legs, route", [
    ({}, "rewrite"),  # sparse-only: no agreement to look at
    ({"c0": False, "c1": False}, "no_knowledge"),  # weak words, and the meaning search agrees on nothing
    ({"c0": False, "c1": True}, "rewrite"),  # a chunk both legs found: worth a rewrite
])
def test_agreement_of_the_recall_legs_backs_weak_lexical_evidence(both_legs, route):
    # "length" (rare, so heavy) is missing: 53% of the weight covered, weak relevance
    docs = _with_ids(doc("The Lumen X2 has three modes."), doc("A Lumen X2 warranty card is in the box."))
    stats = CorpusStats(documents=100, df={"warranty": 20, "lumen": 20, "x2": 20, "length": 1}, both_legs=both_legs)
    g = grade_evidence(grader_input("Lumen X2 warranty length?", *docs, corpus=stats))
    assert _route(g) == route


def test_strong_lexical_evidence_stands_without_agreement():
    docs = _with_ids(doc("To define a class, use the class statement."))
    stats = CorpusStats(documents=100, df={"define": 5, "class": 30}, both_legs={"c0": False})
    assert _route(grade_evidence(grader_input("How do I define a class?", *docs, corpus=stats))) == "answer"
