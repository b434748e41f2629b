"""The Knowledge bases page under AppTest: create (a bad name is refused with the rule), upload
documents and a zip, the progress and per-file results (skipped and refused files with the reason),
switch the debugger to the knowledge base (seen on Settings and in the sidebar), ask it a question,
delete a file. The ingestion runs in the server's background thread; the test waits for the job."""
from __future__ import annotations

import io
import zipfile

import pytest

from rag import kb_jobs
from tests.support.apptest import inspector_text, press
from tests.support.browser import ROOT

ZORBLAX = (b"# Zorblax reactor\n\nThe Zorblax reactor cooldown is forty seconds.\n\n"
           b"## Fuel\n\nThe reactor burns blue crystals only.\n")


def new_app():
    from streamlit.testing.v1 import AppTest

    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)


@pytest.fixture
def kb_env(env, monkeypatch):
    monkeypatch.setenv("RAG_CACHE_DIR", str(env / "cache"))
    monkeypatch.setenv("RAG_DENSE_ENABLED", "false")  # sparse-only keeps the page test fast; the browser test embeds
    return env


def kb_page(at):
    return at.switch_page("pages/knowledge_bases.py")


def problems(at) -> list:
    return [e.value for e in at.exception] + [e.body for e in at.error]


def shown(at) -> str:
    return "\n".join([m.body for m in [*at.success, *at.info, *at.warning]] + [c.value for c in at.caption]
                     + [m.value for m in at.markdown])


def files_table(at):
    for df in at.dataframe:
        if "status" in df.value.columns:
            return df.value.set_index("file")
    raise AssertionError("no files table on the page")


def zipped(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def wait_for_job(name: str) -> None:
    job = kb_jobs.get_job(name)
    assert job is not None, "no ingestion was started"
    assert job.wait(120), "the ingestion did not finish"


def test_create_upload_see_results_switch_ask_and_delete(kb_env):
    at = kb_page(new_app().run()).run()
    assert not problems(at)
    assert any("No knowledge base yet" in i.body for i in at.info)

    at.text_input(key="kb_new_name").input("Bad name!")
    kb_page(at).button(key="kb_create_submit").click().run()
    assert any("lowercase letters, digits" in w.body for w in at.warning)

    at.text_input(key="kb_new_name").input("reactors")
    kb_page(at).button(key="kb_create_submit").click().run()
    assert any("reactors" in s.body and "created" in s.body for s in at.success)
    assert at.selectbox(key="kb_selected").value == "reactors"

    at.file_uploader(key="kb_upload_0").set_value([
        ("zorblax.md", ZORBLAX, "text/markdown"),
        ("broken.pdf", b"%PDF-1.4 this is not a pdf", "application/pdf"),
        ("more.zip", zipped({"luma.txt": b"Luma lamps glow green.", "../escape.md": b"x"}), "application/zip"),
    ])
    kb_page(at).button(key="kb_upload_submit").click().run()
    assert not problems(at)
    wait_for_job("reactors")
    kb_page(at).run()
    assert not problems(at)
    assert any("Ingestion finished: 2 ingested" in s.body for s in at.success), shown(at)
    assert at.progress[0].value == 100
    table = files_table(at)
    assert table.loc["zorblax.md", "status"].endswith("ingested") and table.loc["zorblax.md", "chunks"] >= 2
    assert "skipped" in table.loc["broken.pdf", "status"] and "PDF" in table.loc["broken.pdf", "reason"]
    assert "refused" in table.loc["more.zip:../escape.md", "status"]
    assert "climbs out" in table.loc["more.zip:../escape.md", "reason"]
    assert table.loc["luma.txt", "status"].endswith("ingested")

    # the job is found again by name: a new browser session (a reload) sees the same results
    fresh = kb_page(new_app().run()).run()
    fresh.selectbox(key="kb_selected").set_value("reactors")
    kb_page(fresh).run()
    assert any("Ingestion finished: 2 ingested" in s.body for s in fresh.success)

    kb_page(at).button(key="kb_use").click().run()
    assert any("now searches **reactors**" in s.body for s in at.success)
    assert "Knowledge base: **reactors**" in "\n".join(c.value for c in at.sidebar.caption)
    at.switch_page("pages/settings.py").run()
    assert at.selectbox(key="set_kb_label").value == "Knowledge base: reactors"

    at.switch_page("pages/debugger.py").run()
    at.text_area(key="question").set_value("What is the cooldown of the Zorblax reactor?").run()
    press(at, "run")
    assert not problems(at)
    text = inspector_text(at)
    assert "Result: answer" in text and "zorblax.md" in text

    kb_page(at).run()
    at.selectbox(key="kb_delete_file").set_value("zorblax.md")
    kb_page(at).button(key="kb_delete_button").click().run()
    wait_for_job("reactors")
    kb_page(at).run()
    assert "zorblax.md" not in files_table(at).index
    assert any("1 removed" in s.body for s in at.success), shown(at)

    kb_page(at).button(key="kb_delete_kb").click().run()  # not confirmed: nothing happens
    assert any("Tick the box first" in w.body for w in at.warning)
    at.checkbox(key="kb_delete_confirm").check()
    kb_page(at).button(key="kb_delete_kb").click().run()
    assert not problems(at)
    assert any("No knowledge base yet" in i.body for i in at.info)
    assert "Knowledge base: **bundled demo" in "\n".join(c.value for c in at.sidebar.caption)


def test_a_page_opened_mid_ingestion_shows_the_running_job(kb_env):
    """A reload (here: a new browser session) while a job runs finds it by the knowledge base's name:
    the bar, the files' stages, uploads and deletes held back; then the result once it ends."""
    import threading

    import numpy as np

    from rag.ingest.kbs import create_kb
    from rag.ingest.uploads import save_document
    from rag.settings import RagSettings

    gate, entered = threading.Event(), threading.Event()

    class GatedEmbedder:
        model_id = "gated-4"

        def embed_passages(self, texts):
            entered.set()
            gate.wait(60)
            return np.ones((len(texts), 4), dtype=np.float32)

    folders = create_kb("slow")
    save_document(folders.docs, "zorblax.md", ZORBLAX)
    job = kb_jobs.start_ingest("slow", RagSettings(), embedder=GatedEmbedder())
    try:
        assert entered.wait(60)
        at = kb_page(new_app().run()).run()
        assert not problems(at)
        assert at.progress and at.progress[0].value < 100
        assert "Ingesting: embedding chunks 0/" in at.progress[0].proto.text
        assert "embedding" in files_table(at).loc["zorblax.md", "status"]
        assert at.button(key="kb_upload_submit").disabled and at.button(key="kb_delete_button").disabled
    finally:
        gate.set()
    assert job.wait(60)
    kb_page(at).run()
    assert any("Ingestion finished: 1 ingested" in s.body for s in at.success), shown(at)
    assert not at.button(key="kb_upload_submit").disabled


def test_with_milvus_the_page_writes_to_the_knowledge_bases_collection(kb_env, monkeypatch):
    from tests.retrieval.conftest import milvus_missing_reason

    if milvus_missing_reason():
        pytest.skip(milvus_missing_reason())
    monkeypatch.setenv("RAG_RETRIEVER", "milvus")
    monkeypatch.setenv("MILVUS_URI", str(kb_env / "lite" / "kb.db"))
    at = kb_page(new_app().run()).run()
    assert any("Milvus" in c.value for c in at.caption)
    at.text_input(key="kb_new_name").input("team")
    kb_page(at).button(key="kb_create_submit").click().run()
    at.file_uploader(key="kb_upload_0").set_value(("zorblax.md", ZORBLAX, "text/markdown"))
    kb_page(at).button(key="kb_upload_submit").click().run()
    wait_for_job("team")
    kb_page(at).run()
    assert not problems(at)
    assert any("Milvus: 2 rows written" in s.body for s in at.success), shown(at)
    assert "retriever `milvus`" in "\n".join(c.value for c in at.sidebar.caption)
