"""Every page opened by its own URL (a bookmark, a link someone sent) makes no failing request but the two
Streamlit's front end makes on purpose (streamlit issue 7074, docs/decisions.md "Two 404s on a page's own URL"):
it probes `<page>/_stcore/health` and `<page>/_stcore/host-config` before the app's root. Any other failing
request (a missing asset, a 500, a refused connection) fails the test, and `/` makes none at all."""
from __future__ import annotations

from urllib.parse import urlsplit

from rag_debugger.ui.navigation import PAGES
from tests.support.browser import ROOT, chromium_page, streamlit_server, wait_idle

UPSTREAM_PROBES = ("_stcore/health", "_stcore/host-config")


def known_upstream(path: str, page: str) -> bool:
    """A probe Streamlit 1.67 makes under a page's own path before it finds the app's root."""
    return bool(page) and path in {f"/{page}/{probe}" for probe in UPSTREAM_PROBES}


def watch_failures(page) -> list[tuple[str, str]]:
    """(what failed, path) of every response of 400 or more and every request that got no response."""
    failures: list[tuple[str, str]] = []
    page.on("response", lambda r: failures.append((str(r.status), urlsplit(r.url).path)) if r.status >= 400 else None)
    page.on("requestfailed", lambda r: failures.append((r.failure or "failed", urlsplit(r.url).path)))
    return failures


def test_the_known_probe_rule_names_only_the_two_probes_under_the_page_opened():
    assert known_upstream("/settings/_stcore/health", "settings")
    assert known_upstream("/settings/_stcore/host-config", "settings")
    assert not known_upstream("/settings/_stcore/stream", "settings")
    assert not known_upstream("/history/_stcore/health", "settings")  # another page's probe is not expected here
    assert not known_upstream("/_stcore/health", "")  # the root's own health check must answer


def test_pages_opened_by_their_url_make_no_failing_request_but_streamlits_two_probes():
    names = ["", *(p.path.removeprefix("pages/").removesuffix(".py") for p in PAGES)]
    unexpected: dict[str, list[tuple[str, str]]] = {}
    probed: list[str] = []
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        failures = watch_failures(page)
        for name in names:
            failures.clear()
            page.goto(f"{url}/{name}")
            wait_idle(page)
            page.wait_for_timeout(500)  # late assets, the favicon
            page.locator("h1").first.wait_for()  # the page drew (a failed connection would not)
            seen = list(failures)
            probed += [name for _, path in seen if known_upstream(path, name)]
            bad = [f for f in seen if not known_upstream(f[1], name)]
            if bad:
                unexpected[name or "/"] = bad
    assert not unexpected, f"failing requests besides Streamlit's page-path probes: {unexpected}"
    # the probes are what the decision is about: if Streamlit stops making them, the note in docs/decisions.md
    # (and this exception) can go
    assert set(probed) == set(names) - {""}, f"the probes were seen on {sorted(set(probed))} only"
