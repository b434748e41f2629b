"""The step debugger page in Chinese (`?lang=zh`) under AppTest: the controls, the inspector's
headings, tables and captions, the question box, the HITL answer and the time-travel note speak
Chinese, the data (node names, field names, routes, questions) stays as it is, and every string the
page looks up has a translation."""
from __future__ import annotations

import re

from rag import i18n
from rag.demo import load_demo_questions
from tests.support.apptest import inspector_data, inspector_html, inspector_table, inspector_text, press, travel_to_step

ZH_QUESTION = "丹瑾是什么属性？"


def _zh(at):
    at.query_params["lang"] = "zh"
    return at.run()


def _problems(at) -> list:
    return [e.value for e in at.exception] + [e.body for e in at.error]


def _buttons(at) -> dict[str, str]:
    """{action: label} of the inspector's Run / Step / Continue / Restart buttons."""
    return {m.group(1): m.group(2) for m in
            re.finditer(r'<button[^>]*data-action="(\w+)"[^>]*>.*?<span>([^<]*)</span></button>', inspector_html(at))}


def test_the_debugger_opens_in_chinese_with_the_data_unchanged(app_test, env):
    i18n.forget_missing_keys()
    at = _zh(app_test)
    assert not _problems(at)
    assert at.title[0].value.endswith("单步调试器")
    assert [m.value for m in at.main.markdown if "_()" in m.value] == []  # no stray text above it
    assert at.text_area(key="question").label == "问题"
    assert _buttons(at) == {"run": "运行", "step": "单步", "continue": "继续到结束", "restart": "重新开始"}
    text = inspector_text(at)
    assert "即将运行" in text and "已运行" in text  # the graph's legend
    assert "尚无运行" in text and "about to run" not in text
    assert "运行、单步" in text or "在上方输入问题" in text  # the line naming the question the controls act on
    assert inspector_data(at)["texts"]["idle"] == "在上方输入问题或选择一个演示，然后运行或单步。"  # for inspector.js
    assert any("离线模式" in i.body for i in at.sidebar.info)

    at.text_area(key="question").set_value(ZH_QUESTION).run()
    press(at, "step")
    assert not _problems(at)
    text = inspector_text(at)
    assert "第 1 步：classify_complexity" in text
    assert "1 步 · 暂停于 retrieve_initial 之前" in text
    diff = inspector_table(at, "diff")
    assert list(diff.columns) == ["字段", "之前", "之后", "类型"]
    row = diff[diff["字段"] == "complexity"].iloc[0]
    assert (row["之前"], row["之后"], row["类型"]) == ("null", '"simple"', "已修改")  # values stay data

    press(at, "continue")
    text = inspector_text(at)
    assert "结果：answer" in text and "已完成" in text
    timeline = inspector_table(at, "timeline")
    assert list(timeline.columns)[:4] == ["步", "运行", "节点", "并行通道"]
    assert set(timeline["运行"]) == {"主运行"}
    assert list(timeline["节点"]) == ["classify_complexity", "retrieve_initial", "grade_documents"]
    assert "证据" in text and "时间花在哪里（瀑布图）" in text
    chunks = inspector_table(at, "chunks")
    assert list(chunks.columns) == ["#", "文件名", "页", "分数", "RRF 排名", "重排序分", "文本"]

    travel_to_step(at, 0)
    assert "正在查看第 1 步（classify_complexity）之后的状态" in inspector_text(at)
    assert not _problems(at)
    assert sorted(m for lang, m in i18n.missing_keys() if lang == "zh") == []


def test_a_hitl_question_is_answered_in_chinese(app_test, env):
    demo = next(d for d in load_demo_questions() if d.expected_route == "clarify" and d.lang == "zh")
    i18n.forget_missing_keys()
    at = _zh(app_test)
    at.button(key=f"demo_{demo.id}").click().run()
    assert any("演示已加载" in i.body for i in at.info)
    press(at, "continue")
    assert any("工作流向你提问（clarify）" in m.value for m in at.markdown)
    assert at.text_input(key="hitl_text").label == "回答"
    assert any(b.label == "发送回答" for b in at.button)
    at.text_input(key="hitl_text").set_value(demo.hitl_answer)
    at.button(key="hitl_submit").click().run()
    assert not _problems(at)
    assert any("正在用你的回答" in s.body for s in at.success)
    assert "HITL 恢复 #1" in inspector_text(at)
    assert sorted(m for lang, m in i18n.missing_keys() if lang == "zh") == []


def test_english_stays_the_default(app_test, env):
    at = app_test.run()
    assert at.title[0].value.endswith("Step debugger")
    assert "No run yet" in inspector_text(at) and "about to run" in inspector_text(at)
