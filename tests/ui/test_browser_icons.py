"""No page draws an emoji: emoji need a colour-emoji font that `pip install -r requirements.txt` does
not bring, and without it Chromium shows empty boxes. (scripts/test.sh installs that font for the
screenshots, so looking at them would not catch this: the test reads the codepoints instead.)"""
from __future__ import annotations

import re

from rag.demo import load_demo_questions
from rag_debugger.views.icons import progress_mark
from tests.support.browser import ROOT, chromium_page, load_demo, press_control, settle, streamlit_server, wait_idle

EMOJI = re.compile(
    "[\u2300-\u23ff"  # ⏩ ⏭ ⏏ ⌛ …
    "\u25a0-\u25ff"  # ▶ ◀ ■ …
    "\u2600-\u27bf"  # ☑ ⚙ ⚖ ✅ ✏ ⚠ …
    "\u2b00-\u2bff"  # ⬇ ⭐ …
    "\ufe0f"  # the "draw me as emoji" selector
    "\U0001f000-\U0001faff]"  # 🪜 🧾 🧪 🗂 🔎 🤖 📼 🙋 🚫 …
)
CHROME = '[data-testid="stSidebar"], [data-testid="stMain"]'


def emoji_in(text: str) -> list[str]:
    return sorted({f"{c} U+{ord(c):04X}" for c in EMOJI.findall(text)})


def page_chrome(page) -> str:
    """What a person sees, plus the tooltips and labels the browser draws for them."""
    return page.evaluate(
        """(sel) => [...document.querySelectorAll(sel)].map(root => root.innerText + ' ' +
             [...root.querySelectorAll('[title], [aria-label], [placeholder]')].map(e =>
               [e.getAttribute('title'), e.getAttribute('aria-label'), e.getAttribute('placeholder')].join(' ')
             ).join(' ')).join('\\n')""", CHROME)


def test_the_emoji_check_catches_what_it_must():
    assert emoji_in("⏭ Step 🪜 ✅ ⚙️ ▶") and not emoji_in("Step · → ‹absent› × 丹瑾是什么属性？ — …")
    assert progress_mark({"icon": "🔎", "label": "Retrieval (initial)"}) == "Retrieval"


def test_no_page_draws_an_emoji():
    demos = {d.expected_route: d for d in load_demo_questions()}
    found: dict[str, list[str]] = {}
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.goto(url)
        wait_idle(page)
        found["debugger, start"] = emoji_in(page_chrome(page))

        # a finished run with progress on every step, then a run that asks the user
        load_demo(page, demos['complex'].id)
        press_control(page, "run")
        page.locator(".rdi-result").first.wait_for(timeout=30_000)
        wait_idle(page)
        page.get_by_text("Show the full state below").first.click()
        settle(page)  # the run this started, not an idle page before it
        found["debugger, result"] = emoji_in(page_chrome(page))
        page.get_by_text("Show the full state below").first.click()
        settle(page)  # the run this started, not an idle page before it
        page.get_by_text("Demo questions").first.click()
        load_demo(page, demos['clarify'].id)
        press_control(page, "continue")
        page.get_by_text("The workflow asks you").first.wait_for(timeout=30_000)
        wait_idle(page)
        found["debugger, question to the user"] = emoji_in(page_chrome(page))

        for name in ("Trace explorer", "Prompt playground", "Run history", "Settings"):
            page.locator('[data-testid="stSidebar"]').get_by_text(name, exact=True).first.click()
            page.get_by_role("heading", name=name).first.wait_for(timeout=30_000)
            wait_idle(page)
            found[name] = emoji_in(page_chrome(page))
    assert not {k: v for k, v in found.items() if v}, found
