"""Opening a user's SQLite checkpointer read-only leaves nothing in their folder where SQLite allows it: a
cleanly closed WAL file is read `immutable`, with no -wal/-shm side files made; a file another process has
open is read from a copy (with its newest commits), and the store says so for the page."""
from __future__ import annotations

import os
import sqlite3

from langgraph.checkpoint.sqlite import SqliteSaver

from rag_debugger.debugger.threads import on_store, open_store, parse_checkpointer_url, read_window
from tests.debugger.thread_graphs import builder, write_threads


def test_a_cleanly_closed_wal_file_is_read_with_no_side_files_left(tmp_path):
    path = str(tmp_path / "app.db")
    with SqliteSaver.from_conn_string(path) as saver:
        write_threads(saver)
    assert open(path, "rb").read(20)[18:20] == b"\x02\x02"  # the header says WAL
    assert sorted(os.listdir(tmp_path)) == ["app.db"]
    store = open_store(parse_checkpointer_url("sqlite:///" + path))
    assert store.note is None
    graph = on_store(builder().compile(), store)
    assert store.list_threads(graph=graph).total == 3
    read_window(graph, "t-finished")
    store.close()
    assert sorted(os.listdir(tmp_path)) == ["app.db"]


def test_a_file_open_in_a_writer_is_read_from_a_copy_with_its_newest_commits(tmp_path):
    path = str(tmp_path / "app.db")
    conn = sqlite3.connect(path, check_same_thread=False)
    writer = SqliteSaver(conn)
    writer.setup()
    conn.execute("PRAGMA wal_autocheckpoint=0")  # commits stay in the -wal while the writer lives
    write_threads(writer)
    assert os.path.getsize(path + "-wal") > 0
    before = sorted(os.listdir(tmp_path))
    store = open_store(parse_checkpointer_url("sqlite:///" + path))
    assert store.note and "copy" in store.note
    graph = on_store(builder().compile(), store)
    assert store.list_threads(graph=graph).total == 3  # the commits only in the -wal are there
    store.close()
    assert sorted(os.listdir(tmp_path)) == before  # nothing of ours beside the user's file
    assert store.copy_dir and not os.path.exists(store.copy_dir)
    conn.close()
