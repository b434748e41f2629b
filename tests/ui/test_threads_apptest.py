"""The Your graph page started with `--checkpointer` (here `RAG_DEBUG_CHECKPOINTER`) on a SQLite file an
application wrote: the threads are listed with counts and the pending interrupt, subgraph threads under
their parent; opening one shows its steps in the inspector; answering its interrupt runs in a fork and the
page says so; the file is byte-for-byte unchanged; a broken file or URL gets a message, not a traceback."""
from __future__ import annotations

import hashlib

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from rag_debugger.ui.threads_panel import PICK_KEY
from tests.debugger.thread_graphs import write_threads
from tests.support.apptest import inspector_text

SPEC = "tests.debugger.thread_graphs:graph"


@pytest.fixture
def db(tmp_path) -> str:
    path = str(tmp_path / "app.db")
    with SqliteSaver.from_conn_string(path) as saver:
        write_threads(saver)
    return path


def digest(path: str) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def button(at, key: str):
    return next(b for b in at.button if b.key == key)


def test_threads_are_listed_opened_and_answered_in_a_fork_without_writing_the_file(graph_app, db):
    before = digest(db)
    at = graph_app(SPEC, RAG_DEBUG_CHECKPOINTER="sqlite:///" + db)
    table = at.dataframe[0].value
    threads = list(table.iloc[:, 0])
    assert {"t-finished", "t-paused", "t-fanout"} <= set(threads)
    assert sum(str(t).strip().startswith("└ finish:") for t in threads) == 3  # each under its parent
    row = table[table.iloc[:, 0] == "t-paused"].iloc[0]
    assert row.iloc[4] == "waits for an answer" and row.iloc[3] == "review"  # words: every font draws them
    assert any("read-only" in c.value for c in at.caption)

    at.selectbox(key=PICK_KEY).select("t-paused")
    button(at, "yg_open_thread").click()
    at.run()
    assert not at.exception
    assert "work" in inspector_text(at) and "finish" in inspector_text(at)
    assert any("waits at an interrupt() in review" in w.value for w in at.warning)
    # told as the paused thread it is, with its question shown now, and never as a finished run
    assert any("Paused thread t-paused" in i.value for i in at.info)
    assert not any("exported run" in i.value for i in at.info)
    assert any("Publish?" in t.value for t in at.text)
    assert not any("The run finished" in s.value for s in at.success)
    assert "paused here" in inspector_text(at)

    button(at, "yg_go_on").click()
    at.run()
    assert any("as a fork" in i.value and "not written" in i.value for i in at.info)
    yes = next(b for b in at.button if b.label == "yes")
    yes.click()
    at.run()
    assert not at.exception
    assert any("Resumed with yes" in s.value for s in at.success)
    assert digest(db) == before


def test_a_file_that_is_not_a_checkpointer_gets_a_message(graph_app, tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("just text " * 100)
    at = graph_app(SPEC, RAG_DEBUG_CHECKPOINTER=f"sqlite:///{bad}")
    assert any("file is not a database" in e.value for e in at.error)
    assert bad.read_text() == "just text " * 100


def test_a_bad_url_gets_a_message_without_its_password(graph_app):
    at = graph_app(SPEC, RAG_DEBUG_CHECKPOINTER="mysql://me:s3cret@h/db")
    texts = [e.value for e in at.error]
    assert any("sqlite:///" in t for t in texts) and not any("s3cret" in t for t in texts)
