"""The "Your graph" page under AppTest in Chinese (`?lang=zh`): the title, the source fields, lint, the
input form and its errors, the debugger core's load errors and a bad `--input` file all speak Chinese; the
graph's own names (spec, fields, types, node names) stay as they are."""
from __future__ import annotations

import json

import pytest

from rag.i18n import missing_keys
from rag_debugger.ui.graph_page import GRAPH_FIELD
from tests.support.apptest import press


@pytest.fixture
def page(graph_app):
    """The app started with a graph, in Chinese."""
    return lambda spec, **env: graph_app(spec, lang="zh", **env)


def messages(at) -> list[str]:
    return [e.value for e in (*at.error, *at.warning, *at.info, *at.success)]


def test_the_page_and_its_input_form_in_chinese(page):
    at = page("rag_debugger.examples.approval:graph")
    assert at.title[0].value == ":material/account_tree: 你的图"
    assert at.text_input(key=GRAPH_FIELD).label == "图（package.module:attr）"
    assert at.button(key="yg_load").label == "加载图"
    assert any(c.value == "图检查：`rag_debugger.examples.approval:graph` 没有发现问题。" for c in at.caption)
    assert [e.label for e in at.expander][:1] == ["输入（来自图输入模式的 5 个字段）"]
    labels = [w.label for w in (*at.text_input, *at.number_input)]
    assert "request · str" in labels and "priority · int" in labels  # the graph's names stay as declared
    assert at.button(key="yg_start").label == "用此输入开始"
    assert not {m for lang, m in missing_keys() if lang == "zh"}


def test_a_form_error_and_an_answer_in_chinese(page):
    at = page("rag_debugger.examples.approval:graph")
    press(at, "continue")
    assert any("向你提问（中断）" in m.value for m in at.markdown)
    at.button(key="yg_opt_0_0").click().run()  # approve
    assert any(m.startswith("已用 approve 恢复") for m in messages(at)), messages(at)
    press(at, "continue")
    at.number_input(key="yg_ans_0_priority").set_value(9)
    at.button(key="FormSubmitter:yg_answer_form_0-发送回答").click().run()
    assert any(m == "回答不符合问题的模式：priority：不能大于 5" for m in messages(at)), messages(at)
    at.number_input(key="yg_ans_0_priority").set_value(3)
    at.button(key="FormSubmitter:yg_answer_form_0-发送回答").click().run()
    assert "运行已完成。最终状态：" in messages(at)


@pytest.mark.parametrize("spec, message", [
    ("no.such:module", "无法导入 'no.such'：ModuleNotFoundError"),
    ("rag_debugger.examples.approval:route", "rag_debugger.examples.approval:route 是需要参数（state）的函数"),
    ("rag_debugger.examples.chain", "应为 'package.module:attr'，实际为 'rag_debugger.examples.chain'"),
])
def test_a_bad_path_is_explained_in_chinese(page, spec, message):
    at = page(spec)
    assert any(m.startswith(message) for m in messages(at)), messages(at)


def test_a_bad_input_file_is_explained_in_chinese(page, tmp_path):
    broken = tmp_path / "input.json"
    broken.write_text(json.dumps([1, 2]), encoding="utf-8")
    at = page("rag_debugger.examples.chain:graph", RAG_DEBUG_INPUT=str(broken))
    assert any(m == f"输入文件 {str(broken)!r} 必须是 JSON 对象，而不是 list" for m in messages(at)), messages(at)


def test_a_required_json_field_left_wrong_is_named_in_chinese(page):
    at = page("rag_debugger.examples.chain:graph")
    log = next(w for w in at.text_area if w.label.startswith("log"))
    log.input("[not json").run()
    press(at, "step")
    assert any(m.startswith("输入不符合图的模式：log：不是有效的 JSON（第 1 行第 2 列") for m in messages(at)), messages(at)
