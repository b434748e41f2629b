"""The trace explorer page in Chinese under AppTest: headings, captions, group titles, column headings and
field states in Chinese, the field names (data) as they are, and no string the catalogue lacks."""
from __future__ import annotations

import re

from rag import i18n
from tests.support.apptest import press

CJK = re.compile(r"[\u3400-\u9fff]")


def test_the_trace_explorer_reads_in_chinese(app_test, env):
    i18n.forget_missing_keys()
    at = app_test
    at.query_params["lang"] = "zh"
    at.switch_page("pages/trace.py").run()
    assert any("还没有运行" in i.body for i in at.info)
    at.switch_page("pages/debugger.py").run()
    at.button(key="demo_zh_complex_two_characters").click().run()
    press(at, "continue")
    at.switch_page("pages/trace.py").run()
    assert not at.exception
    assert "追踪浏览器" in at.title[0].value
    assert any("59 个协议字段中" in c.value for c in at.caption)
    assert any(c.value.startswith("问题：") and "已完成" in c.value for c in at.caption)
    labels = [e.label for e in at.expander]
    assert any(label.startswith("工具与检索") for label in labels)
    assert any(label.startswith("评分与路由") for label in labels)
    assert at.toggle[0].label == "只看存在的字段"
    tables = [t.value for t in at.table]
    assert all(list(t.columns) == ["字段", "状态", "值", "含义"] for t in tables)
    rows = {f: (s, m) for t in tables for f, s, m in zip(t["字段"], t["状态"], t["含义"], strict=False)}
    assert len(rows) == 59  # every protocol field, under its own (untranslated) name
    assert rows["retrieval_stage"][0] == "存在" and rows["evidence_confidence"][0] == "空值"
    assert rows["rewrite_method"][0] == "缺失"
    assert all(CJK.search(meaning) for _state, meaning in rows.values())
    assert at.get("download_button")[0].proto.label == "下载规范化后的追踪（JSON）"
    assert sorted(m for lang, m in i18n.missing_keys() if lang == "zh") == []


def test_the_trace_explorer_stays_english_by_default(app_test, env):
    at = app_test
    at.switch_page("pages/debugger.py").run()
    at.button(key="demo_zh_complex_two_characters").click().run()
    press(at, "continue")
    at.switch_page("pages/trace.py").run()
    tables = [t.value for t in at.table]
    assert all(list(t.columns) == ["field", "state", "value", "meaning"] for t in tables)
    assert at.toggle[0].label == "Only fields that are present"


def test_the_debugger_graph_describes_its_nodes_in_chinese(app_test, env):
    """The graph's node tooltips come from the engine in the reader's language. (The inspector's "What does
    each node do?" list uses the same descriptions; it is cached by rag_debugger/views/inspector_html.py.)"""
    from tests.support.apptest import inspector_sections

    at = app_test
    at.query_params["lang"] = "zh"
    at.switch_page("pages/debugger.py").run()
    at.button(key="demo_zh_complex_two_characters").click().run()
    dot = inspector_sections(at)["dot"]
    assert "为证据评分并决定路由" in dot
    assert "Grades the evidence" not in dot
