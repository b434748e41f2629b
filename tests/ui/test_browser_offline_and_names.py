"""A real browser on a real server started the way a user would from another folder (no usage-stats flag,
so only the app's own settings apply): no page makes a request to any host but the app's own, and every
button on the debugger has a name of its own (a screen reader, or a search for "Continue", finds one)."""
from __future__ import annotations

import collections
from urllib.parse import urlsplit

from rag.demo import load_demo_questions
from rag_debugger.ui.navigation import PAGES
from tests.support.browser import ROOT, chromium_page, load_demo, press_control, settle, streamlit_server, wait_idle


def server_from_elsewhere(cwd, args=()):
    """`streamlit run /path/to/app.py` from `cwd`, with only the flags a user types (the README's command)."""
    return streamlit_server(ROOT / "app.py", cwd=cwd, args=list(args), timeout=90, as_a_user=True)


def watch_requests(page, own: str) -> list[str]:
    """Every request the page makes to another host (and it is stopped there: nothing leaves the machine)."""
    foreign: list[str] = []

    def route(r):
        parts = urlsplit(r.request.url)
        if parts.scheme in ("http", "https", "ws", "wss") and parts.netloc != own:
            foreign.append(r.request.url)
            return r.abort()
        return r.continue_()
    page.context.route("**/*", route)
    page.on("request", lambda req: (urlsplit(req.url).scheme in ("http", "https") and urlsplit(req.url).netloc != own
                                    and req.url not in foreign and foreign.append(req.url)))
    return foreign


def visible_button_names(page) -> list[str]:
    buttons = page.get_by_role("button")
    names = []
    for i in range(buttons.count()):
        b = buttons.nth(i)
        # a select box's arrow is Streamlit's own "Open" toggle, part of the labelled combobox, not a button of ours
        if b.is_visible() and not b.evaluate("e => !!e.closest('[data-testid=\"stSelectbox\"]')"):
            names.append(b.evaluate("e => (e.getAttribute('aria-label') || e.innerText || '').trim()"))
    return names


def test_no_page_requests_another_host_and_debugger_buttons_have_names_of_their_own(tmp_path):
    pages = ["", *(p.path.removeprefix("pages/").removesuffix(".py") for p in PAGES)]
    found: dict[str, list[str]] = {}
    with server_from_elsewhere(tmp_path) as url, chromium_page() as page:
        foreign = watch_requests(page, urlsplit(url).netloc)
        for name in pages:
            page.goto(f"{url}/{name}")
            wait_idle(page)
            page.wait_for_timeout(500)  # the favicon and late assets
            found[name or "/"] = list(foreign)
            foreign.clear()

        page.goto(url)
        wait_idle(page)
        load_demo(page, load_demo_questions()[0].id)
        # the control is "Continue to end"; no other button's name holds "Continue" (the breakpoints one did)
        assert page.get_by_role("button", name="Continue to end", exact=True).count() == 1
        assert page.get_by_role("button", name="Continue").count() == 1
        names = [n for n in visible_button_names(page) if n]
        assert [n for n, c in collections.Counter(names).items() if c > 1] == [], names
    assert not {k: v for k, v in found.items() if v}, found


def test_your_graph_with_a_graph_loaded_requests_no_other_host(tmp_path):
    with server_from_elsewhere(tmp_path, ["--graph", "rag_debugger.examples.fanout:graph"]) as url, chromium_page() as page:
        foreign = watch_requests(page, urlsplit(url).netloc)
        page.goto(url)
        wait_idle(page)
        press_control(page, "step")
        settle(page)
        page.wait_for_timeout(500)
        assert page.get_by_text("Graph lint").count() >= 1
        names = [n for n in visible_button_names(page) if n]
        assert [n for n, c in collections.Counter(names).items() if c > 1] == [], names
    assert foreign == []
