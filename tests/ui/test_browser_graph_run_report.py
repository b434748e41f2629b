"""A Your-graph run whose graph the allow-list refuses, written as a file by `python -m rag_debugger.run_to_html`:
opened from disk in Chromium with every request blocked and counted, it makes no request, says why its
drawing is the recording's, and time travel moves the graph over the recorded nodes; the graph's module
is never imported."""
from __future__ import annotations

import json
import sys

from rag.runs.graph_runs import graph_document
from rag.runs.history import RunHistory
from rag_debugger.debugger.session import GraphSession
from rag_debugger.run_to_html import main as report_main
from tests.support.browser import chromium_page
from tests.ui.test_browser_report import graph_src, open_file


def test_a_refused_graphs_run_opens_from_disk_drawn_from_its_recording(tmp_path):
    sys.modules.pop("this", None)
    s = GraphSession.open("rag_debugger.examples.chain:graph")
    s.start({"text": "a b"})
    s.run_to_end()
    checkpoints, head = s.recording()
    with RunHistory(tmp_path / "h.db") as history:
        info = history.record_start("{}", kind="graph", graph_spec="this:s")
        history.record_finish(info.run_id, status="done")
        doc = graph_document(history.get_run(info.run_id), checkpoints, head, {"text": "a b"})
    export = tmp_path / "run.json"
    export.write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "run.html"
    assert report_main([str(export), "-o", str(out)]) == 0
    assert "this" not in sys.modules
    with chromium_page() as page:
        asked = open_file(page, out)
        assert "this:s is not on this server's list of graphs" in page.locator(".rdr-head").inner_text()
        end = graph_src(page)
        page.locator('tr[data-travel="0"]').click()
        assert page.evaluate("document.body.dataset.position") == "0"
        assert graph_src(page) != end
        assert "clean" in page.locator('[data-sec="step"]').inner_text()
        page.locator('button[data-lang="zh"]').click()
        assert "this:s 不在此服务器的图列表中" in page.locator(".rdr-head").inner_text()
        footer = page.locator('[data-rdr-lang="zh"]').last
        assert footer.is_visible() and "no network" not in footer.inner_text()  # the file's own words switch too
        assert not page.get_by_text("opens with no server and no network").is_visible()
        assert asked == [out.as_uri()]
