"""A real browser on `streamlit run app.py`: an ingestion of a zip of 400 documents (the real local
embedder) is cancelled from the Knowledge bases page; the page says how many files were done and the
upload comes back (the store's consistency after a Cancel: tests/retrieval/test_upload_limits.py)."""
from __future__ import annotations

import io
import zipfile

from tests.support.browser import ROOT, chromium_page, streamlit_server, wait_idle


def many_documents(count: int = 400) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for i in range(count):
            body = "\n\n".join(f"Device {i}-{j} resets after {i * 7 + j} seconds of holding the button {j}."
                               for j in range(12))
            zf.writestr(f"doc{i:03d}.md", f"# Device manual {i}\n\n{body}\n")
    return buf.getvalue()


def test_cancel_a_running_ingestion_then_finish_it(tmp_path):
    archive = tmp_path / "many.zip"
    archive.write_bytes(many_documents())
    env = {"RAG_CACHE_DIR": str(tmp_path / "cache")}
    with streamlit_server(ROOT / "app.py", env=env) as url, chromium_page() as page:
        page.goto(url + "/knowledge_bases", wait_until="domcontentloaded")
        wait_idle(page)
        page.get_by_text("No knowledge base yet").first.wait_for(timeout=30_000)
        page.locator(".st-key-kb_new_name input").first.fill("devices")
        page.get_by_role("button", name="Create", exact=True).click()
        page.get_by_text("Knowledge base devices created").first.wait_for(timeout=30_000)
        wait_idle(page)

        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(archive))
        page.get_by_text("many.zip").first.wait_for(timeout=15_000)
        page.get_by_role("button", name="Upload and ingest").click()
        cancel = page.get_by_role("button", name="Cancel ingestion")
        cancel.wait_for(timeout=30_000)
        cancel.click()
        page.get_by_text("Ingestion cancelled:").first.wait_for(timeout=120_000)
        wait_idle(page)
        assert page.get_by_text("Ingestion finished").count() == 0
        assert page.get_by_role("button", name="Upload and ingest").is_enabled()

        assert not page.get_by_text("Traceback").count()
