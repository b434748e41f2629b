"""The offline provider's reasons follow the question's language, as its HITL prompts do: a Chinese
question gets Chinese reasons, an English one English, whatever language the app is read in. Only the
words change: the judgement (route, grades, confidence) is the same."""
from __future__ import annotations

import json
import re

import pytest
from pydantic import ValidationError

from rag.i18n import use_language
from rag.models.offline.grader import grade_evidence
from rag.models.offline.planner import plan_question
from rag.models.offline_rules import RULES_PATH, ReasonTexts, default_offline_rules, load_offline_rules
from rag.retrieval.retriever import CorpusStats
from tests.offline.helpers import doc, grader_input

CJK = re.compile(r"[\u3400-\u9fff]")
ZH, EN = "[离线规则] ", "[offline rules] "

ATTR = doc("丹瑾的属性是霜。她使用的武器是链刃，定位为副输出。", "char_danjin.md")
STORY = doc("丹瑾幼年随祖父学医，独自经营上城药铺。", "char_danjin.md")
ULT = doc("丹瑾的终结技“千山暮雪”召唤持续六秒的暴雪领域。", "char_danjin.md")
ALLY = doc("白鸦（可招募角色）的属性是雷，使用的武器是短杖。", "char_baiya_ally.md")
BOSS = doc("白鸦（第三章首领）的属性是蚀，使用的武器是骨翼镰刀。", "char_baiya_boss.md")
PRICE = doc("月卡的价格因服务器（国服、国际服、日服）而异：国服三十元；国际服四点九九美元；日服六百一十日元。", "shop.md")
THERMO = doc("To reset the Nova Thermostat, hold the display ring for ten seconds.", "nova_thermostat.md")
SPEAKER = doc("To reset the Nova Speaker, hold the power button for eight seconds.", "nova_speaker.md")
SPEC = doc("The operating temperature range of the Lumen X2 is -10 °C to 45 °C.", "lumen.md")
REFERENT = doc("A method may return a value; raise names an exception. 技能的冷却时间为十秒。")


def _words(reason: str, question: str) -> str:
    """The reason without its prefix and without the words it quotes from the question or evidence."""
    text = reason.split(" ", 1)[1]
    quoted = re.findall(r"[\u3400-\u9fff]+", question) + ["白鸦", "可招募角色", "第三章首领", "国服", "国际服", "日服"]
    for word in quoted:
        text = text.replace(word, "")
    return text


@pytest.mark.parametrize("question, docs, kind", [
    ("丹瑾是什么属性？", [ATTR], "answer"),
    ("丹瑾的大招叫什么？", [STORY, ATTR, ULT], "not near the top"),
    ("丹瑾是什么属性？", [], "no evidence"),
    ("白鸦用什么武器？", [ALLY, BOSS], "several candidates"),
    ("月卡的价格是多少？", [PRICE], "missing slot"),
    ("这个技能的冷却时间是多少？", [REFERENT], "unnamed referent"),
    ("丹瑾是什么属性？", [THERMO], "low coverage"),
])
def test_a_chinese_question_gets_chinese_reasons(question, docs, kind):
    for reader in ("en", "zh"):
        with use_language(reader):
            g = grade_evidence(grader_input(question, *docs))
        assert g.reason.startswith(ZH), (kind, g.reason)
        rest = _words(g.reason, question)
        assert CJK.search(rest) and not re.search(r"[A-Za-z]{3,}", rest), (kind, g.reason)


@pytest.mark.parametrize("question, docs, kind", [
    ("What is the operating temperature of the Lumen X2?", [SPEC], "answer"),
    ("How do I reset the Nova?", [THERMO, SPEAKER], "several candidates"),
    ("What does this method return?", [REFERENT], "unnamed referent"),
    ("What is the warranty of the Lumen X2?", [], "no evidence"),
])
def test_an_english_question_gets_english_reasons_in_a_chinese_app(question, docs, kind):
    with use_language("zh"):
        g = grade_evidence(grader_input(question, *docs))
    assert g.reason.startswith(EN) and not CJK.search(g.reason.replace("技能的冷却时间为十秒", "")), (kind, g.reason)


def test_the_language_changes_the_words_not_the_judgement():
    """The same evidence graded for a question in each language: one off-topic verdict, in two languages."""
    stats = CorpusStats(documents=4000, df={"capital": 4, "australia": 0, "首都": 0, "澳大利亚": 0})
    en = grade_evidence(grader_input("What is the capital of Australia?", SPEC, corpus=stats))
    zh = grade_evidence(grader_input("澳大利亚的首都是什么？", SPEC, corpus=stats))
    assert en.model_dump(exclude={"reason"}) == zh.model_dump(exclude={"reason"})
    assert en.reason.startswith(EN) and "never occur in the knowledge base" in en.reason
    assert zh.reason.startswith(ZH) and "从未在知识库中出现" in zh.reason and "澳大利亚、首都" in zh.reason


@pytest.mark.parametrize("question, zh", [
    ("丹瑾和青棠分别使用什么武器？", True),
    ("丹瑾是什么属性？月卡多少钱？", True),
    ("丹瑾是什么属性？", True),
    ("Compare the battery life of the Nova Speaker and the Lumen X2", False),
    ("How do I update the firmware of the Lumen X2?", False),
])
def test_the_planner_reasons_follow_the_question(question, zh):
    with use_language("en" if zh else "zh"):
        plan = plan_question(question)
    assert plan.complexity_reason.startswith(ZH if zh else EN)
    assert bool(CJK.search(plan.complexity_reason)) == zh


def test_every_reason_has_both_languages_with_the_same_placeholders():
    reasons = default_offline_rules().reasons
    for name in ReasonTexts.model_fields:
        text = getattr(reasons, name)
        assert CJK.search(text.zh) and not CJK.search(text.en), name
        assert sorted(re.findall(r"\{(\w+)\}", text.zh)) == sorted(re.findall(r"\{(\w+)\}", text.en)), name


def test_a_translation_that_loses_a_placeholder_fails_at_load(tmp_path):
    data = json.loads(RULES_PATH.read_text(encoding="utf-8"))
    data["reasons"]["coverage"]["zh"] = "前 {n} 个文本块覆盖问题权重的 {top}"
    bad = tmp_path / "rules.json"
    bad.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ValidationError, match="coverage"):
        load_offline_rules(bad)


@pytest.mark.parametrize("question, docs, words", [
    ("What is the operating temperature range of the Lumen X2?", [SPEC], "top 1 chunk covers 100% of"),
    ("What is the operating temperature range of the Lumen X2?", [SPEC, THERMO], "top 2 chunks cover 100% of"),
    ("丹瑾是什么属性？", [ATTR], "前 1 个文本块覆盖"),
    ("丹瑾是什么属性？", [ATTR, STORY], "前 2 个文本块覆盖"),
])
def test_the_coverage_reason_counts_its_chunks_in_proper_words(question, docs, words):
    """It said "top 2 chunk(s) cover": English has a singular and a plural, Chinese one form."""
    reason = grade_evidence(grader_input(question, *docs)).reason
    assert words in reason and "(s)" not in reason, reason


def test_a_singular_needs_the_count_and_the_plural_s_placeholders():
    from rag.models.offline_rules import Bilingual

    with pytest.raises(ValidationError, match="en_one"):
        Bilingual(en="{n} chunks", zh="{n} 个文本块", en_one="a chunk")
    with pytest.raises(ValidationError, match="en_one"):
        Bilingual(en="some chunks", zh="一些文本块", en_one="a chunk")
    assert Bilingual(en="{n} chunks", zh="{n} 个", en_one="{n} chunk").say(False, n=1) == "1 chunk"
