"""In a real browser: the retrieved chunks of a step are cards whose text expands, the grade is badges
with its reason (typed views, rag_debugger/views/values_html.py), and the retrieval table says why each candidate
is in or out (rag_debugger/views/evidence_html.py)."""
from __future__ import annotations

from pathlib import Path

from rag.demo import load_demo_questions
from tests.support.browser import ROOT, chromium_page, load_demo, open_demo, settle, streamlit_server, wait_idle

SHOTS = Path(__file__).resolve().parent / "screenshots"


def step(page, n: int) -> None:
    page.get_by_role("button", name="Step", exact=True).first.click()
    page.get_by_text(f"Step {n}:").first.wait_for(timeout=30_000)
    wait_idle(page)


def test_chunk_cards_and_grade_badges_in_the_diff():
    demo = next(d for d in load_demo_questions() if d.expected_route == "answer")
    SHOTS.mkdir(exist_ok=True)
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        open_demo(page, url, demo.id)
        step(page, 1)
        step(page, 2)  # retrieve_initial: docs changed
        card = page.locator('#diff tr[data-field="docs"] .rdi-chunk:has(details)').first  # a long chunk
        card.wait_for(timeout=15_000)
        assert card.locator(".rdi-chunk-file").inner_text().endswith(".md")
        assert "rrf #" in card.inner_text()
        full = card.locator(".rdi-longtext")
        assert not full.is_visible()
        card.locator("summary").first.click()
        full.wait_for(state="visible", timeout=5_000)
        card.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "typed_values_1280.png"))
        step(page, 3)  # grade_documents
        badges = page.locator('#diff tr[data-field="grade"] [data-badge="route"]')
        badges.first.wait_for(timeout=15_000)
        assert "answer" in badges.first.inner_text()
        # the run ended in `answer`: the answer the answering agent would give, with its citations
        answer = page.locator('.rdi-answer[data-mode="extractive"]')
        answer.wait_for(timeout=15_000)
        assert "Extractive answer" in answer.inner_text() and "no model wrote this" in answer.inner_text()
        assert answer.locator("sup.rdi-cite").count() >= 1
        assert answer.locator("ol.rdi-sources li").first.inner_text().endswith(".md") or ".md" in answer.inner_text()
        answer.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "extractive_answer_1280.png"))
        # the retrieval explained: why each recalled chunk is in or out
        why = page.locator('details[data-id="retrieval_explain"] > summary')
        why.first.wait_for(timeout=15_000)
        why.first.click()
        kept = page.locator("#retrieval_explain tr.rdi-outcome-kept")
        kept.first.wait_for(state="visible", timeout=5_000)
        assert page.locator("#retrieval_explain tbody tr:not(.rdi-outcome-kept)").count() >= 1  # some were cut or merged
        assert "kept" in kept.first.inner_text()
        kept.first.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "retrieval_explain_1280.png"))
        assert not page.get_by_text("Traceback").count()


def test_the_waterfall_shows_steps_and_parallel_lanes():
    demo = next(d for d in load_demo_questions() if d.id.startswith("en_complex"))
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        open_demo(page, url, demo.id)
        page.get_by_role("button", name="Continue to end", exact=True).first.click()
        page.locator(".rdi-result").first.wait_for(timeout=60_000)
        wait_idle(page)
        summary = page.locator('details[data-id="waterfall"] > summary')
        summary.first.wait_for(timeout=15_000)
        summary.first.click()
        lanes = page.locator('#waterfall [data-kind="lane"]')
        lanes.first.wait_for(state="visible", timeout=5_000)
        assert lanes.count() >= 2  # the sub-questions ran side by side
        assert page.locator('#waterfall [data-kind="step"]').count() >= 4
        assert "lane 1: rag_sub_agent" in lanes.first.inner_text()
        lanes.first.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "waterfall_1280.png"))


def test_breakpoint_and_keyboard():
    demo = next(d for d in load_demo_questions() if d.id == "en_answer_temperature")
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.goto(url, wait_until="domcontentloaded")
        wait_idle(page)
        page.get_by_role("button", name="Breakpoints: none").click()
        picker = page.locator(".st-key-breakpoint_pick")
        picker.wait_for(timeout=15_000)
        picker.locator("input").first.click()
        page.get_by_role("option", name="grade_documents").first.click()
        settle(page)  # the run this started, not an idle page before it
        page.get_by_role("button", name="Breakpoints: grade_documents").first.wait_for(timeout=15_000)
        # every control has a name of its own: one button named Continue, no two buttons named alike
        assert page.get_by_role("button", name="Continue").count() == 1
        names = [n.strip() for n in page.get_by_role("button").all_inner_texts() if n.strip()]
        assert len(names) == len(set(names)), names
        page.keyboard.press("Escape")
        load_demo(page, demo.id)
        page.locator(".rdi-position").first.click()  # focus on the page, not on a field
        page.keyboard.press("s")
        page.get_by_text("Step 1:").first.wait_for(timeout=30_000)
        wait_idle(page)
        page.keyboard.press("c")
        page.get_by_text("Breakpoint: paused before").first.wait_for(timeout=30_000)
        wait_idle(page)
        assert "paused before grade_documents" in page.locator(".rdi-position").first.inner_text()
        page.keyboard.press("ArrowLeft")
        page.get_by_text("nothing was re-run").first.wait_for(timeout=15_000)
        wait_idle(page)
        assert page.locator(".rdi-step-title").first.inner_text().startswith("Step 1:")
        page.keyboard.press("ArrowRight")
        page.get_by_text("nothing was re-run").first.wait_for(state="detached", timeout=15_000)
        wait_idle(page)
        page.keyboard.press("c")
        page.locator(".rdi-result").first.wait_for(timeout=30_000)


def test_a_what_if_fork_changes_the_route_and_the_branches_are_compared():
    demo = next(d for d in load_demo_questions() if d.id == "zh_answer_attribute")
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.set_viewport_size({"width": 1280, "height": 720})
        open_demo(page, url, demo.id)
        page.get_by_role("button", name="Continue to end", exact=True).first.click()
        page.locator(".rdi-result", has_text="Result: answer").first.wait_for(timeout=30_000)
        wait_idle(page)
        page.get_by_text("What if…").first.click()
        step = page.locator(".st-key-what_if_step input")
        step.wait_for(timeout=15_000)
        step.fill("2")  # after retrieve_initial
        step.press("Enter")
        settle(page)  # the run this started, not an idle page before it
        field = page.locator(".st-key-what_if_field input").first
        field.click()
        field.fill("docs")
        page.get_by_role("option", name="docs", exact=True).first.click()
        settle(page)  # the run this started, not an idle page before it
        value = page.locator(".st-key-what_if_value_1_docs textarea")
        value.wait_for(timeout=15_000)
        value.fill("[]")  # what if retrieval had found nothing?
        page.get_by_role("button", name="Run the fork").first.click()
        fork = page.locator(".rdi-fork")
        fork.wait_for(timeout=30_000)
        wait_idle(page)
        assert "what-if #1" in fork.inner_text()
        route_row = page.locator('#fork_diff tr[data-field="route"]')
        assert '"answer"' in route_row.inner_text() and '"no_knowledge"' in route_row.inner_text()
        assert page.locator(".rdi-result", has_text="Result: no_knowledge").count() == 1
        # said in words a stakeholder reads, not only as route / status codes
        assert "No answer: the knowledge base has nothing that answers this" in page.locator(".rdi-result h3").inner_text()
        assert "0 steps" not in page.locator(".rdi-position").first.inner_text() or "finished:" in \
            page.locator(".rdi-position").first.inner_text()
        assert "what-if #1" in page.locator("#timeline").inner_text()  # the fork beside the original steps
        assert "main run" in page.locator("#timeline").inner_text()
        fork.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "what_if_fork_1280.png"))
