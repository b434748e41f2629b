"""A new user's first clicks, in real Chromium on `streamlit run app.py`: the demo buttons work as soon
as they are shown (before the engine has loaded), and a Step or Continue pressed right after a demo
click is never lost (issue 24, findings 12 and 13).

The race: the demo click reruns the whole page; a control pressed while that run is going on asks
Streamlit to rerun the debugger's fragment under the name it had on the page the browser still shows.
The tests press the control while the demo's run is in progress, which is when it used to be dropped."""
from __future__ import annotations

from rag.demo import load_demo_questions
from tests.support.browser import ROOT, chromium_page, streamlit_server, wait_idle

TRIES = 3
RUNNING_OR_LOADED = """() => document.querySelector('[data-testid="stApp"]')?.getAttribute('data-test-script-state')
  === 'running' || [...document.querySelectorAll('.rdi-position')].some(e => e.textContent.includes('paused before'))"""
"""The demo's run has started (or, on a fast machine, already drawn its run): the moment to press."""


def _demo():
    return next(d for d in load_demo_questions() if d.expected_route == "answer")


def _position(page) -> str:
    return page.locator(".rdi-position").first.inner_text()


def _wait_position(page, text: str) -> None:
    """Until the app is idle and the position line says `text` (a dropped click leaves it at 0 steps)."""
    page.wait_for_function(
        "(want) => document.querySelector('[data-testid=\"stApp\"]')?.getAttribute('data-test-script-state')"
        " === 'notRunning' && [...document.querySelectorAll('.rdi-position')].some(e => e.textContent.includes(want))",
        arg=text, timeout=90_000, polling=100)


def _demo_then(page, url: str, action: str) -> None:
    """A fresh browser session: the page fully drawn, a demo click, and `action` pressed while the
    demo's run is still going on."""
    demo = _demo()
    page.goto(url)
    control = page.locator(f'.rdi-controls button[data-action="{action}"]').first
    control.wait_for(timeout=90_000)
    wait_idle(page, timeout=90_000)
    page.locator(f".st-key-demo_{demo.id} button").first.click()
    page.wait_for_function(RUNNING_OR_LOADED, timeout=30_000, polling="raf")
    control.click()


def test_continue_right_after_a_demo_click_runs_to_the_end_every_time():
    with streamlit_server(ROOT / "app.py") as url:
        for attempt in range(TRIES):  # the first on a cold server (the demo's run is slowest), then warm
            with chromium_page() as page:
                _demo_then(page, url, "continue")
                try:
                    _wait_position(page, "finished")
                except Exception as exc:
                    raise AssertionError(f"try {attempt}: the Continue was lost: {_position(page)!r}") from exc
                assert "0 steps" not in _position(page)


def test_step_right_after_a_demo_click_takes_one_step_every_time():
    with streamlit_server(ROOT / "app.py") as url:
        for attempt in range(TRIES):
            with chromium_page() as page:
                _demo_then(page, url, "step")
                try:
                    _wait_position(page, "· 1 step")  # "1 step" or, offline English, "1 steps"
                except Exception as exc:
                    raise AssertionError(f"try {attempt}: the Step was lost: {_position(page)!r}") from exc


def test_a_demo_clicked_as_soon_as_it_is_shown_loads_its_run():
    """On a cold server the demo buttons are drawn before the debugger's engine has loaded; a click
    then is taken by the next run (it loads the engine itself) and the run is loaded, paused."""
    demo = _demo()
    with streamlit_server(ROOT / "app.py") as url, chromium_page() as page:
        page.goto(url)
        page.locator(f".st-key-demo_{demo.id} button").first.click(timeout=90_000)
        _wait_position(page, "0 steps · paused before")
        assert page.locator(".st-key-question textarea").input_value() == demo.question
