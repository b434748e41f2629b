"""A real browser in Chinese (`?lang=zh`) on the Run history, Knowledge bases and Settings pages: after
a recorded run and a what-if fork of it, no English UI text is left on those pages (data stays as it
is), dates read the Chinese way, and a knowledge base is created and filled in Chinese. Screenshots at
1280x720 go to tests/ui/screenshots/ for people to look at."""
from __future__ import annotations

import os
import re
from pathlib import Path

from rag.demo import load_demo_questions
from tests.support.browser import ROOT, chromium_page, settle, streamlit_server, wait_idle, wait_shown
from tests.support.i18n import english_on_page

SHOTS = Path(__file__).resolve().parent / "screenshots"
CHINESE_DATE = re.compile(r"\d{4}年\d{1,2}月\d{1,2}日 \d{2}:\d{2}")

#: Streamlit's own file-uploader text (this version: "Upload", "50MB per file • JSON"; older ones: "Drag and
#: drop file here", "Browse files") is built into Streamlit's front end: Python cannot translate it.
STREAMLIT_BUILT_IN = ("Upload", "per file", "Drag and drop file here", "Drag and drop files here", "Browse files",
                      "Limit 50MB per file")
#: English built in rag/ that these pages can show; the helper translating rag/ wraps it. None of it shows in
#: the states walked here (so the tuple is empty and the check stays strict), but in other states it does:
#: an import refused (rag/runs/document_limits.py RunImportError), a run that cannot be replayed
#: (rag_debugger/workbench/session.py), a knowledge base name refused, a skipped file's reason, the ingestion stage
#: "embedding chunks i/n" (rag/ingest/), a settings validation error (pydantic via rag/settings.py), the
#: connection test's report (rag/models/connection.py).
PENDING_OTHER_HELPERS: tuple[str, ...] = ()
ALLOWED = STREAMLIT_BUILT_IN + PENDING_OTHER_HELPERS


def _record_a_run_and_a_fork() -> tuple[str, str]:
    """A live run of a demo question and a what-if fork of it, recorded in the history the server opens."""
    from rag.runs.history import RunHistory
    from rag.settings import RagSettings
    from rag_debugger.workbench.session import DebugSession

    demo = next(d for d in load_demo_questions() if d.expected_route == "answer")
    with RunHistory(os.environ["RAG_HISTORY_DB"]) as history:
        session = DebugSession(RagSettings(model_provider="offline"), history=history)
        session.start(demo.question)
        session.run_to_end()
        parent = session.current.run_id
        fork = session.fork(1, "docs", []).run_id
        session.exit_replay()
    return parent, fork


def _check(page, name: str) -> None:
    wait_idle(page)
    page.screenshot(path=str(SHOTS / f"zh_{name}.png"))
    assert english_on_page(page, allowed=ALLOWED) == [], name
    assert not page.get_by_text("Traceback").count()


def test_history_knowledge_bases_and_settings_in_chinese(tmp_path):
    parent, fork = _record_a_run_and_a_fork()
    doc = tmp_path / "zorblax.md"
    doc.write_text("# Zorblax reactor\n\nThe Zorblax reactor cooldown is forty seconds.\n", "utf-8")
    SHOTS.mkdir(exist_ok=True)
    env = {"RAG_CACHE_DIR": str(tmp_path / "cache"), "RAG_DENSE_ENABLED": "false", "RAG_MODEL_PROVIDER": "offline"}
    with streamlit_server(ROOT / "app.py", env=env) as url, chromium_page(locale="zh-CN") as page:
        page.set_viewport_size({"width": 1280, "height": 720})

        page.goto(url + "/history?lang=zh", wait_until="domcontentloaded")
        wait_shown(page, ".st-key-history_open button", "在单步调试器中打开")
        wait_shown(page, ".st-key-history_delete button", "删除")
        _check(page, "history")
        body = page.locator("body").inner_text()
        assert CHINESE_DATE.search(body), "no date written the Chinese way on the history page"
        assert "运行历史" in body and "假设分支" in body

        page.locator(".st-key-history_forks").click()  # the what-if fork filter: forks only
        page.get_by_role("option", name="仅假设分支").click()
        settle(page)  # the rerun the filter starts (the fork is the newest run, so it was shown before too)
        wait_shown(page, '[data-testid="stAlert"]', f"运行 {parent} 在第 2 步的假设分支")
        _check(page, "history_fork")

        page.goto(url + "/knowledge_bases?lang=zh", wait_until="domcontentloaded")
        wait_shown(page, '[data-testid="stAlert"]', "还没有知识库")
        _check(page, "knowledge_bases_empty")
        page.locator(".st-key-kb_new_name input").first.fill("reactors")
        page.get_by_role("button", name="创建", exact=True).click()
        wait_shown(page, '[data-testid="stAlert"]', "已创建知识库 reactors")
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(doc))
        page.get_by_text("zorblax.md").first.wait_for(timeout=15_000)  # the uploader lists the file
        page.get_by_role("button", name="上传并入库").click()
        wait_shown(page, '[data-testid="stAlert"]', "入库完成：入库 1 个")
        _check(page, "knowledge_bases")

        page.goto(url + "/settings?lang=zh", wait_until="domcontentloaded")
        wait_shown(page, '[data-testid="stExpander"]', "全部生效设置")  # the page's last element
        wait_shown(page, ".st-key-test_connection button", "测试连接")
        for key, label in (("set_base_url", "基础 URL"), ("set_min_score", "最低分数"), ("set_run_by", "你的名字")):
            wait_shown(page, f".st-key-{key}", label)  # drawn, not a loading placeholder
        _check(page, "settings")
        body = page.locator("body").inner_text()
        assert "离线模式" in body and "模型（OpenAI 兼容）" in body
    assert fork != parent
