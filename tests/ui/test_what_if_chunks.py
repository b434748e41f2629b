"""What if: the retrieved chunks as a table with an order column and a keep box, feeding the same fork
as the JSON box: reordering and dropping chunks without editing kilobytes of JSON."""
from __future__ import annotations

import pandas as pd

from rag_debugger.ui.panels.what_if import chunk_table, chunks_from_table, is_chunk_list
from tests.support.apptest import inspector_text, press

CHUNKS = [{"chunk_id": f"c{i}", "filename": f"f{i}.md", "page_number": None, "score": 1.0 / i, "text": f"text {i}"}
          for i in range(1, 5)]


def _ids(chunks: list) -> list[str]:
    return [c["chunk_id"] for c in chunks]


def test_an_untouched_table_gives_the_list_back():
    assert chunks_from_table(CHUNKS, chunk_table(CHUNKS)) == CHUNKS


def test_rows_are_dropped_by_keep_and_sorted_by_order():
    table = chunk_table(CHUNKS)
    table.loc[0, "keep"] = False
    table.loc[3, "order"] = 0  # the last chunk first
    table.loc[1, "order"] = 3  # a tie with chunk 3: the original order decides
    assert _ids(chunks_from_table(CHUNKS, table)) == ["c4", "c2", "c3"]


def test_a_blank_order_goes_last_and_dropping_every_row_gives_an_empty_list():
    table = chunk_table(CHUNKS)
    table["order"] = table["order"].astype("float")
    table.loc[0, "order"] = float("nan")
    assert _ids(chunks_from_table(CHUNKS, table)) == ["c2", "c3", "c4", "c1"]
    table["keep"] = False
    assert chunks_from_table(CHUNKS, table) == []


def test_only_lists_of_chunks_get_a_table():
    assert is_chunk_list(CHUNKS)
    assert not is_chunk_list([]) and not is_chunk_list(["a"]) and not is_chunk_list(CHUNKS + [{"x": 1}])
    assert isinstance(chunk_table(CHUNKS), pd.DataFrame) and list(chunk_table(CHUNKS)["order"]) == [1, 2, 3, 4]


def test_the_table_forks_the_run_with_the_chunks_reordered_and_dropped(app_test, env):
    at = app_test.run()
    at.button(key="demo_zh_answer_attribute").click().run()
    press(at, "continue")
    at.session_state["what_if_folded"] = True  # open the folded what-if panel
    at.run()
    at.number_input(key="what_if_step").set_value(2).run()  # after retrieve_initial
    at.selectbox(key="what_if_field").select("docs").run()
    session = at.session_state["debug_session"]
    docs = session.all_steps()[1][1].values_after["docs"]
    assert len(docs) >= 3
    assert any(b.label == f"Fork with these chunks ({len(docs)} of {len(docs)})" for b in at.button)
    # what the browser sends when the user unticks the first row and gives the second row the last place
    at.session_state["what_if_chunks_1_docs"] = {"edited_rows": {0: {"keep": False}, 1: {"order": len(docs) + 1}},
                                                  "added_rows": [], "deleted_rows": []}
    at.run()
    at.button(key="what_if_run_chunks").click().run()
    assert not at.exception and not at.error
    fork = session.current
    assert fork.fork_of is not None and fork.fork_of[2] == "docs"
    expected = docs[2:] + [docs[1]]
    assert [c["chunk_id"] for c in fork.fork_of[3]] == [c["chunk_id"] for c in expected]
    assert "what-if #1" in inspector_text(at)
    assert any("edited after step 2" in s.body for s in at.success)
