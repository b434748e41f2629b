"""At 1024x768, in the state a projector demo spends most time in (a HITL question, the step's diff beside
the graph), nothing is cut or broken: the folded demos' and breakpoints' buttons beside the question box show
their whole labels (the demos' was cut to "Demo questions — one pe…"), and the diff's kind column keeps each
word on one line (it broke "changed" into "chang / ed")."""
from __future__ import annotations

from tests.support.browser import ROOT, chromium_page, load_demo, press_control, settle, streamlit_server, wait_idle

CUT = """sel => [...document.querySelectorAll(sel)].filter(e => e.offsetParent !== null)
           .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)"""
BROKEN = """sel => [...document.querySelectorAll(sel)].filter(e => e.offsetParent !== null).filter(e => {
  const r = document.createRange(); r.selectNodeContents(e);
  return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size > 1;
}).map(e => e.textContent)"""


def test_labels_beside_the_box_and_the_diffs_kinds_are_whole_at_1024(tmp_path):
    with streamlit_server(ROOT / "app.py", env={"RAG_HISTORY_DB": str(tmp_path / "h.db")}) as url, \
            chromium_page() as page:
        page.set_viewport_size({"width": 1024, "height": 768})
        page.goto(url)
        wait_idle(page)
        load_demo(page, "en_clarify_platform")
        press_control(page, "continue")
        settle(page)
        page.get_by_text("The workflow asks you (clarify)").first.wait_for(timeout=30_000)
        wait_idle(page)
        folded = ".st-key-demos_folded button p, .st-key-breakpoints_folded button p"
        assert page.locator(folded).count() >= 2
        assert page.evaluate(CUT, folded) == []
        kinds = ".rdi-diff tr:not(.rdi-kind-unchanged) > td:last-child"
        assert page.locator(kinds).count() >= 3  # docs, context, grade, route ... changed
        assert page.evaluate(BROKEN, kinds) == []
        assert page.evaluate(CUT, kinds) == []  # and not spilling out of its column

