"""A real browser walks the step debugger in Chinese: a demo loaded, a Step, Continue to the end,
a timeline row travelled to, a reload of the URL the inspector wrote, and a clarify question
answered with an option button. At every stage no English UI text is left on the page (the data,
such as questions, chunks, node and field names and route values, stays as it is). A browser whose
language is Chinese opens the app in Chinese without any `?lang=`."""
from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from rag.demo import load_demo_questions
from tests.support.browser import ROOT, chromium_page, settle, streamlit_server, wait_idle
from tests.support.i18n import english_on_page

CJK = re.compile(r"[\u3400-\u9fff]")

SHOTS = Path(os.environ.get("RAG_TEST_SHOTS", "")) if os.environ.get("RAG_TEST_SHOTS") else None
"""Set RAG_TEST_SHOTS to a folder to keep the Chinese screenshots (1280x720 and 1024x768) to look at."""


def _allowed(*data: str) -> tuple[str, ...]:
    return tuple(data)


def _demo(demo_id: str):
    return next(d for d in load_demo_questions() if d.id == demo_id)


def _params(page) -> dict:
    return {k: v[-1] for k, v in parse_qs(urlparse(page.url).query).items()}


def _control(page, action: str):
    return page.locator(f'.rdi-controls button[data-action="{action}"]').first


def _press(page, action: str) -> None:
    _control(page, action).click()
    settle(page)


def _open_all_details(page) -> None:
    """Unfold every folded section of the inspector, so the check reads their text too."""
    page.evaluate("() => document.querySelectorAll('.rdi-root details').forEach((d) => { d.open = true; })")


def _no_english(page, *data: str) -> None:
    _open_all_details(page)
    settle(page)  # opening a folded part built on demand reruns the page: read (and click) after that run
    dot = page.locator("pre.rdi-dot")  # the graph's DOT source is code: data, like the node names in it
    source = (dot.first.inner_text(),) if dot.count() else ()
    assert english_on_page(page, allowed=_allowed(*data, *source)) == []


def _progress_labels(page) -> list[str]:
    """The step column of the session's progress table (folded sections opened by `_no_english`)."""
    return [(t or "").strip() for t in page.locator("#all_progress tbody tr td:first-child").all_text_contents()]


def _shot(page, name: str, focus: str = ".rdi-controls") -> None:
    if SHOTS is None:
        return
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, height in ((1280, 720), (1024, 768)):
        page.set_viewport_size({"width": width, "height": height})
        page.locator(focus).first.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"zh_{name}_{width}x{height}.png"))
    page.set_viewport_size({"width": 1280, "height": 720})


def _load_demo(page, demo_id: str) -> None:
    page.locator(f".st-key-demo_{demo_id} button").first.click()
    page.locator(".rdi-position", has_text="0 步 · 暂停于").first.wait_for(timeout=30_000)
    wait_idle(page)


def test_the_debugger_walked_in_chinese_shows_no_english():
    demo = _demo("zh_rewrite_hyde")
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(url + "/?lang=zh", wait_until="domcontentloaded")
        wait_idle(page)
        _control(page, "step").wait_for(timeout=60_000)
        assert _control(page, "step").inner_text().strip() == "单步"
        assert _control(page, "continue").inner_text().strip() == "继续到结束"
        assert page.locator("h1").first.inner_text().strip().endswith("单步调试器")
        above = page.evaluate("""() => { const h = document.querySelector('h1');
          const main = document.querySelector('[data-testid="stMain"]');
          return [...main.querySelectorAll('[data-testid="stMarkdownContainer"]')]
            .filter((m) => !m.contains(h) && (m.compareDocumentPosition(h) & Node.DOCUMENT_POSITION_FOLLOWING))
            .map((m) => m.innerText); }""")
        assert above == [], above  # nothing is drawn above the page's heading
        _no_english(page)
        _shot(page, "start")

        _load_demo(page, demo.id)
        _no_english(page, demo.question)

        _press(page, "step")
        page.locator(".rdi-position", has_text="1 步 · 暂停于").first.wait_for(timeout=30_000)
        assert "第 1 步" in page.locator(".rdi-step-title").first.inner_text()
        _no_english(page, demo.question)
        _shot(page, "step1")

        _press(page, "continue")
        page.locator(".rdi-result", has_text="结果：").first.wait_for(timeout=60_000)
        wait_idle(page)
        assert "已完成" in page.locator(".rdi-position").first.inner_text()
        headings = [t.strip() for t in page.locator("#timeline thead th").all_inner_texts()]
        assert headings[:3] == ["步", "运行", "节点"], headings
        _no_english(page, demo.question)
        steps = _progress_labels(page)  # the engine emits English; the page shows it in Chinese
        assert "检索（initial）" in steps and "改写（hyde）" in steps and "检索（rewritten）" in steps, steps
        assert all(CJK.search(s) for s in steps), steps
        _shot(page, "finished")
        _shot(page, "timeline", "#timeline")

        page.locator("#timeline tbody tr").nth(0).click()
        page.get_by_text("正在查看第 1 步").first.wait_for(timeout=15_000)
        wait_idle(page)
        _no_english(page, demo.question)
        _shot(page, "travel")

        # the URL the inspector wrote names the run and the step, and keeps the language
        page.wait_for_url(re.compile(r"[?&]step=1\b"), timeout=15_000)
        params = _params(page)
        assert params.get("lang") == "zh" and params.get("run", "").startswith("main-"), params
        page.reload(wait_until="domcontentloaded")
        wait_idle(page)
        page.get_by_text("正在查看第 1 步").first.wait_for(timeout=30_000)
        assert _control(page, "step").inner_text().strip() == "单步"
        _no_english(page, demo.question)

        # the folded panels: breakpoints and what-if
        page.locator(".st-key-breakpoints_folded button", has_text="断点").first.click()  # a popover beside the box
        page.get_by_text("在这些节点前暂停").first.wait_for(timeout=15_000)
        wait_idle(page)
        _no_english(page, demo.question)
        page.keyboard.press("Escape")
        page.locator('[data-testid="stExpander"] summary', has_text="假设分支").first.click()
        page.get_by_text("新值（JSON 或纯文本）").first.wait_for(timeout=15_000)
        wait_idle(page)
        _no_english(page, demo.question)

        # while a new question is typed, inspector.js names it with the words the server sent
        page.locator(".st-key-question textarea").fill("丹瑾是什么属性？")
        target = page.locator(".rdi-target").first
        assert target.inner_text().startswith("运行、单步、继续和重新开始将开始输入框中的问题："), target.inner_text()
        assert "已加载的运行是" in target.inner_text()
        _no_english(page, demo.question)


def test_a_clarify_question_answered_with_an_option_in_chinese():
    demo = next(d for d in load_demo_questions() if d.expected_route == "clarify" and d.lang == "en")
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(url + "/?lang=zh", wait_until="domcontentloaded")
        wait_idle(page)
        _load_demo(page, demo.id)
        _press(page, "continue")
        page.get_by_text("工作流向你提问（clarify）").first.wait_for(timeout=30_000)
        wait_idle(page)
        options = page.locator('[class*="st-key-hitl_opt_"] button')
        labels = [t.strip() for t in options.all_inner_texts()]
        assert demo.hitl_answer in labels, labels
        assert page.get_by_role("button", name="发送回答").is_visible()
        prompt = page.locator('[data-testid="stMarkdownContainer"]', has_text="?").first.inner_text()
        _no_english(page, demo.question, prompt, *labels)  # the HITL prompt follows the question's language
        _shot(page, "clarify")

        page.get_by_role("button", name=demo.hitl_answer, exact=True).click()
        page.locator(".rdi-position", has_text="HITL 恢复 #1").first.wait_for(timeout=30_000)
        wait_idle(page)
        assert page.get_by_text("正在用你的回答").first.is_visible()
        _no_english(page, demo.question, prompt, demo.hitl_answer)
        _press(page, "continue")
        page.locator(".rdi-result", has_text="结果：").first.wait_for(timeout=60_000)
        wait_idle(page)
        _no_english(page, demo.question, prompt, demo.hitl_answer)
        assert "HITL 恢复" in _progress_labels(page), _progress_labels(page)
        _shot(page, "resumed")


def test_a_chinese_browser_opens_the_debugger_in_chinese():
    with streamlit_server(ROOT / "app.py") as url, chromium_page(locale="zh-CN") as page:
        page.goto(url, wait_until="domcontentloaded")
        wait_idle(page)
        _control(page, "step").wait_for(timeout=60_000)
        assert _control(page, "step").inner_text().strip() == "单步"
        assert "lang" not in _params(page)
        _no_english(page)
