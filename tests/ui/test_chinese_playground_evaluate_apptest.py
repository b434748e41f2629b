"""The prompt playground and the Evaluate page in Chinese (`?lang=zh`) under AppTest: labels, messages
and table headings come from the catalogue (no key without a translation is looked up), while the data
(role and node names, routes, case ids, questions) stays as it is, and the English keys the code reads
still work."""
from __future__ import annotations

import pytest

from rag import i18n
from rag.demo import load_demo_questions
from rag.prompts.templates import load_default_prompts
from tests.support.browser import ROOT
from tests.ui.test_evaluate_apptest import CASES


def chinese_app():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["lang"] = "zh"
    return at


def missing_chinese() -> list[str]:
    return sorted(m for lang, m in i18n.missing_keys() if lang == "zh")


def answer_demo():
    return next(d for d in load_demo_questions() if d.expected_route == "answer")


@pytest.fixture
def small_set(eval_sets):
    return eval_sets(CASES)


def test_the_playground_in_chinese_runs_an_ab_fork(env):
    i18n.forget_missing_keys()
    at = chinese_app().run()
    at.switch_page("pages/playground.py").run()
    assert [t.value for t in at.title][0].endswith("提示词调试场")
    assert at.radio(key="pg_role").label == "角色"
    # role and node names are data: the same in every language; the fourth role is there
    assert "answerer (answer_step)" in at.radio(key="pg_role").options
    at.radio(key="pg_role").set_value("grader").run()
    assert any("为检索到的证据评分" in m.value and "`grade_documents`" in m.value for m in at.markdown)
    at.button(key=f"pg_demo_{answer_demo().id}").click().run()
    at.text_area(key="pg_b_grader").set_value(load_default_prompts().grader + "\nBE STRICT.").run()
    assert any(s.body.startswith("模板有效") for s in at.success)
    at.button(key="pg_run").click().run()
    assert not at.exception
    headings = [m.value for m in at.markdown]
    assert "### A — 当前" in headings and "### B — 已编辑" in headings and "### A/B 结果" in headings
    assert any("离线的规则提供方会忽略提示词文本" in w.body for w in at.warning)
    assert any("最终 **`answer`**" in m.value for m in at.markdown)  # the route itself stays as it is
    at.radio(key="pg_role").set_value("answerer").run()
    at.button(key="pg_run").click().run()
    assert not at.exception
    assert sum("**抽取式回答**" in m.value for m in at.markdown) == 2
    assert any("离线时回答是抽取式的" in w.body for w in at.warning)
    assert missing_chinese() == []


def test_the_evaluate_page_in_chinese_shows_chinese_headings_over_the_same_data(small_set):
    i18n.forget_missing_keys()
    at = chinese_app().run()
    at.switch_page("pages/evaluate.py").run()
    assert [t.value for t in at.title][0].endswith("评估")
    assert at.button(key="eval_run").label == "运行评估"
    at.toggle(key="eval_compare").set_value(True).run()
    at.number_input(key="eval_b_top_k").set_value(2).run()
    at.button(key="eval_run").click().run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["已退步"] == "2" and metrics["已修复"] == "0"
    assert [e.value for e in at.error] == ["已退步（A 下正确，B 下错误）：lantern, firmware"]
    matrix = next(df.value for df in at.dataframe if "变化" in df.value.columns).set_index("ID")
    assert matrix.loc["lantern", "变化"] == "已退步" and matrix.loc["temp", "变化"] == "不变"
    assert matrix.loc["lantern", "B: top_k 2"] == "no_knowledge · 错误"  # the route stays; the mark is Chinese
    confusion = next(t.value for t in at.table if t.value.index.name == "预期 ↓ / 实际 →")
    assert confusion.loc["answer", "正确"] == "4/5"
    cases = next(df.value for df in at.dataframe if "首次追问" in df.value.columns)
    assert {"ID", "结果", "问题", "预期", "实际"} <= set(cases.columns)
    assert missing_chinese() == []
