"""A real browser (Debian's chromium via Playwright) on `streamlit run app.py` in Chinese (`?lang=zh`):
the prompt playground runs an A/B fork of the grader, then of the answerer, and the Evaluate page runs
a small question set under two configurations; at each stage no English UI string is left on the page
(the data, questions, route, role and node names, stays as it is). Screenshots at 1280x720."""
from __future__ import annotations

import json
from pathlib import Path

from rag.demo import load_demo_questions
from tests.support.browser import ROOT, chromium_page, settle, streamlit_server, wait_idle, wait_shown
from tests.support.i18n import english_on_page

SHOTS = Path(__file__).resolve().parent / "screenshots"
EDIT = "\nBE STRICT: answer only when a passage names the attribute word for word."
CASES = [
    {"id": "temp", "question": "What is the operating temperature range of the Lumen X2?", "expected_route": "answer"},
    {"id": "capital", "question": "What is the capital of Australia?", "expected_route": "no_knowledge"},
    {"id": "pass_price", "question": "月卡的价格是多少？", "expected_route": "clarify"},
]
#: Data that happens to read like English UI text (questions, prompt templates shown as they are).
DATA: tuple[str, ...] = (
    *(c["question"] for c in CASES),
    *(d.question for d in load_demo_questions()),
)
#: PENDING_OTHER_HELPERS: English on these pages that other helpers' files write (not these pages' own
#: strings); drop each entry once its file is translated:
#: - the sidebar's provider and knowledge-base badges (rag_debugger/ui/streamlit_state.py);
#: - the evaluation's configuration description, written by rag/eval/config.py (`EvalConfig.describe`:
#:   "prompt default · top_k 8 · hybrid") and stored with the record.
PENDING_OTHER_HELPERS: tuple[str, ...] = (
    "Offline mode — the planner, grader and rewriter are deterministic rules, not a model",
    "Knowledge base: bundled demo",
    "prompt default", "sparse only",
)


def prompt_texts(page) -> tuple[str, ...]:
    """The prompt templates shown on the page (variant A's code block, B's text area) are data."""
    codes = page.locator('[data-testid="stCode"]').all_inner_texts()
    areas = [a.input_value() for a in page.locator("textarea").all()]
    return tuple(t for t in (*codes, *areas) if t)


def no_english(page, *extra: str) -> None:
    """The page's text is read before the prompts shown on it: a prompt drawn between the two reads
    (the page still rendering) is then in the allowed data, never flagged as English UI text."""
    wait_idle(page)
    found = english_on_page(page)
    allowed = (*DATA, *PENDING_OTHER_HELPERS, *prompt_texts(page), *extra)
    assert [phrase for phrase in found if not any(phrase in a for a in allowed)] == []


def test_the_playground_in_chinese_forks_the_grader_and_the_answerer(tmp_path):
    demo = next(d for d in load_demo_questions() if d.expected_route == "answer")
    SHOTS.mkdir(exist_ok=True)
    env = {"RAG_HISTORY_DB": str(tmp_path / "history.db"), "RAG_PROMPT_DIR": str(tmp_path / "prompt_versions")}
    with streamlit_server(ROOT / "app.py", env=env) as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(url + "/playground?lang=zh", wait_until="domcontentloaded")
        wait_idle(page)
        page.get_by_role("heading", name="提示词调试场").first.wait_for(timeout=30_000)
        no_english(page)
        page.screenshot(path=str(SHOTS / "zh_playground_top.png"))

        page.get_by_text("grader (grade_documents)").first.click()
        settle(page)
        box = page.locator(".st-key-pg_b_grader textarea").first
        box.wait_for(timeout=15_000)
        box.click()
        page.keyboard.press("Control+End")
        page.keyboard.type(EDIT)
        page.locator(".st-key-pg_question input").first.click()  # blur: Streamlit commits the text area
        settle(page)
        page.get_by_text("模板有效").first.wait_for(timeout=15_000)
        page.locator(f".st-key-pg_demo_{demo.id} button").first.click()
        settle(page)
        page.locator(".st-key-pg_run button").first.click()
        settle(page)
        side_a = page.locator(".st-key-pg_side_a").first
        side_a.wait_for(timeout=60_000)
        assert "A — 当前" in side_a.inner_text()
        assert "B — 已编辑" in page.locator(".st-key-pg_side_b").first.inner_text()
        page.get_by_text("离线的规则提供方会忽略提示词文本").first.wait_for(timeout=10_000)
        no_english(page)
        side_a.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "zh_playground_ab.png"))

        page.get_by_text("answerer (answer_step)").first.click()
        settle(page)
        page.locator(".st-key-pg_b_answerer textarea").first.wait_for(timeout=15_000)
        page.locator(".st-key-pg_run button").first.click()
        settle(page)
        wait_shown(page, ".st-key-pg_side_b", "抽取式回答")
        assert "抽取式回答" in page.locator(".st-key-pg_side_a").first.inner_text()
        no_english(page)
        page.locator(".st-key-pg_side_a").first.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "zh_playground_answerer.png"))
        assert not page.get_by_text("Traceback").count()
    assert (SHOTS / "zh_playground_ab.png").stat().st_size > 10_000


def test_the_evaluate_page_in_chinese_compares_two_configurations(tmp_path):
    set_file = tmp_path / "mine.jsonl"
    set_file.write_text("\n".join(json.dumps(c, ensure_ascii=False) for c in CASES) + "\n", "utf-8")
    SHOTS.mkdir(exist_ok=True)
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(url + "/evaluate?lang=zh")
        wait_idle(page)
        page.get_by_role("heading", name="评估").first.wait_for(timeout=30_000)
        no_english(page)
        wait_shown(page, ".st-key-eval_set")
        page.locator(".st-key-eval_set").click()
        page.get_by_role("option", name="上传文件…").click()
        page.locator('.st-key-eval_upload input[type="file"]').set_input_files(str(set_file))
        wait_shown(page, ".st-key-eval_upload_read", "mine.jsonl：已读取 3 个用例")
        page.locator(".st-key-eval_compare label").first.click()  # compare with a second configuration (B)
        wait_shown(page, ".st-key-eval_b_dense")
        page.locator(".st-key-eval_b_dense label").first.click()  # B: sparse only
        settle(page)
        page.locator(".st-key-eval_run button").click()

        wait_shown(page, ".st-key-eval_matrix")
        matrix = page.locator(".st-key-eval_confusion table").first
        matrix.wait_for(timeout=120_000)
        headers = matrix.locator("thead th").all_inner_texts()
        assert "正确" in headers and "answer" in headers  # headings in Chinese, routes as they are
        assert page.get_by_text("mine.jsonl，知识库 bundled").first.is_visible()
        # route names are the protocol's values, shown as they are (the matrix's headings say so above)
        no_english(page, "mine.jsonl", "answer", "clarify", "scope_select", "no_knowledge")
        page.locator(".st-key-eval_changes").first.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "zh_evaluate_compare.png"))
        matrix.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "zh_evaluate_matrix.png"))
        assert not page.get_by_text("Traceback").count()
    assert (SHOTS / "zh_evaluate_compare.png").stat().st_size > 10_000
