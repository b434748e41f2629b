"""A real browser (Debian's chromium via Playwright) on `streamlit run app.py`: create a knowledge
base, upload a small Markdown file, watch the ingestion finish, switch the debugger to it, and see a
question answered from the uploaded file. Waits on page state only."""
from __future__ import annotations

from pathlib import Path

from tests.support.browser import ROOT, chromium_page, settle, streamlit_server, wait_idle

SHOTS = Path(__file__).resolve().parent / "screenshots"
ZORBLAX = ("# Zorblax reactor\n\nThe Zorblax reactor cooldown is forty seconds.\n\n"
           "## Fuel\n\nThe reactor burns blue crystals only.\n")


def test_upload_ingest_switch_and_answer_from_the_uploaded_file(tmp_path):
    doc = tmp_path / "zorblax.md"
    doc.write_text(ZORBLAX, "utf-8")
    SHOTS.mkdir(exist_ok=True)
    env = {"RAG_CACHE_DIR": str(tmp_path / "cache")}
    with streamlit_server(ROOT / "app.py", env=env) as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(url + "/knowledge_bases", wait_until="domcontentloaded")
        wait_idle(page)
        page.get_by_text("No knowledge base yet").first.wait_for(timeout=30_000)

        page.locator(".st-key-kb_new_name input").first.fill("reactors")
        page.get_by_role("button", name="Create", exact=True).click()
        page.get_by_text("Knowledge base reactors created").first.wait_for(timeout=30_000)
        wait_idle(page)

        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(doc))
        page.get_by_text("zorblax.md").first.wait_for(timeout=15_000)  # the uploader lists the file
        page.get_by_role("button", name="Upload and ingest").click()
        # the fragment polls the background job until the bar is full
        page.get_by_text("Ingestion finished: 1 ingested").first.wait_for(timeout=120_000)
        wait_idle(page)
        page.screenshot(path=str(SHOTS / "knowledge_bases.png"))

        page.get_by_role("button", name="Use in the debugger").click()
        page.get_by_text("The debugger now searches reactors").first.wait_for(timeout=30_000)
        wait_idle(page)
        assert page.locator('[data-testid="stSidebar"]').get_by_text("Knowledge base: reactors").count() == 1

        page.get_by_role("link", name="Ask it a question in the step debugger").click()
        question = page.locator(".st-key-question textarea").first
        question.wait_for(timeout=30_000)
        wait_idle(page)
        question.fill("What is the cooldown of the Zorblax reactor?")
        question.press("Control+Enter")  # commit the text area
        settle(page)
        page.get_by_role("button", name="Run", exact=True).first.click()
        page.locator(".rdi-result", has_text="Result: answer").first.wait_for(timeout=60_000)
        wait_idle(page)
        assert page.get_by_text("zorblax.md").count() > 0, "the evidence comes from the uploaded file"
        assert page.get_by_text("forty seconds").count() > 0
        page.screenshot(path=str(SHOTS / "knowledge_base_answer.png"))
        assert not page.get_by_text("Traceback").count()
