"""A real browser on `streamlit run`: shared by the UI tests and the UI benchmark."""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def free_port() -> int:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SERVER_PROCESSES: dict[str, subprocess.Popen] = {}
"""The process of each running `streamlit_server`, by its URL (the shutdown tests signal it)."""


@contextlib.contextmanager
def streamlit_server(script: Path, *, env: dict | None = None, timeout: float = 60.0, poll_s: float = 0.2,
                     args: list[str] | None = None, cwd: Path = ROOT, as_a_user: bool = False):
    """`streamlit run` on a loopback port; yields the base URL; always stops the server. `poll_s` is how
    often health is asked (the startup benchmark polls finely so the poll does not blur its figure).
    `args` go to the script after `--` (`streamlit run app.py -- --graph ...`). `as_a_user`: only the flags
    a user types (no headless or usage-stats flag, no STREAMLIT_* variables), so only the app's own
    settings apply; with `cwd` elsewhere, as started from another folder."""
    port = free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", str(script), "--server.address", "127.0.0.1",
           "--server.port", str(port), "--server.fileWatcherType", "none"]
    if not as_a_user:
        cmd += ["--server.headless", "true", "--browser.gatherUsageStats", "false"]
    if args:
        cmd += ["--", *args]
    base = {k: v for k, v in os.environ.items() if not (as_a_user and k.startswith("STREAMLIT_"))}
    full_env = {**base, "RAG_MODEL_PROVIDER": "offline", **(env or {})}
    proc = subprocess.Popen(cmd, cwd=cwd, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    SERVER_PROCESSES[url] = proc
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=1) as r:
                    if r.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit exited early: {proc.stdout.read().decode(errors='replace')[-2000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError("streamlit did not become healthy in time")
            time.sleep(poll_s)
        yield url
    finally:
        SERVER_PROCESSES.pop(url, None)
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextlib.contextmanager
def chromium_page(*, locale: str | None = None):
    """A page in Debian's Chromium. `locale` (e.g. "zh-CN") sets the browser's language: its
    `Accept-Language` header and `navigator.language`. Set on the browser too (`--accept-lang`), as a
    person's browser has it: Playwright's per-page locale reaches page requests but not, in Chromium 150,
    the WebSocket Streamlit reads its headers from."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise RuntimeError("Debian's chromium is missing: scripts/test.sh installs it with apt")
    with sync_playwright() as p:
        args = [*CHROMIUM_ARGS, *([f"--accept-lang={locale}", f"--lang={locale}"] if locale else [])]
        browser = p.chromium.launch(executable_path=CHROMIUM, args=args)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1100}, **({"locale": locale} if locale else {}))
            page.add_init_script(_TRACK_RUNS)
            yield page
        finally:
            browser.close()


#: Installed in every page: the time of the last click or key press, and of the last time a script run
#: started (Streamlit's `data-test-script-state` turning "running"), so `settle` knows whether the rerun
#: a click causes has happened yet without guessing how long it takes to start.
_TRACK_RUNS = """(() => {
  const mark = () => { window.__ragLastInput = performance.now(); };
  document.addEventListener("click", mark, true);
  document.addEventListener("keydown", mark, true);
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.target.getAttribute && r.target.getAttribute("data-test-script-state") === "running") {
        window.__ragLastRun = performance.now();
      }
    }
  }).observe(document.documentElement, { attributes: true, subtree: true,
                                         attributeFilter: ["data-test-script-state"] });
})();"""

_SETTLED = """(graceMs) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute("data-test-script-state") !== "notRunning") return false;
  const input = window.__ragLastInput || 0, run = window.__ragLastRun || 0;
  return run >= input || performance.now() - input > graceMs;
}"""


def settle(page, *, grace_ms: float = 3_000) -> None:
    """After a click or a key press: wait until the script run it started has finished. Follows the app's
    state: it waits while a run is going on however long it takes, and gives up waiting for a run to
    START only after `grace_ms` (for an input that causes none)."""
    page.wait_for_function(_SETTLED, arg=grace_ms, polling=50, timeout=HANG_GUARD_MS)


def open_demo(page, url: str, demo_id: str) -> None:
    """Open the debugger at `url` and load the demo `demo_id` with its button: paused before the first node."""
    page.goto(url, wait_until="domcontentloaded")
    wait_idle(page)
    load_demo(page, demo_id)


def load_demo(page, demo_id: str) -> None:
    """Click the demo's button (Streamlit tags a widget with its key) and wait until the run is loaded,
    paused before its first node."""
    page.locator(f".st-key-demo_{demo_id} button").first.click()
    page.get_by_text("0 steps · paused before").first.wait_for(timeout=30_000)
    wait_idle(page)


def press_control(page, action: str) -> None:
    """Click an inspector control (`run`, `step`, `continue`, `restart`) near its left edge, where a person clicks
    what they see: at projector widths an open or still-closing popover (the demo questions, the breakpoints)
    floats over the right half of the controls, and on a loaded machine a click at a button's centre landed on
    the popover's panel instead of the button."""
    page.locator(f'button[data-action="{action}"]').first.click(position={"x": 16, "y": 12})


def wait_idle(page, timeout: float = 60_000) -> None:
    """Wait until Streamlit finished the current script run."""
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout)


#: Resolves "shown" once the app is idle and shows the element, "stuck" once the app has been idle for
#: `graceMs` without showing it. While a script run is going on (or the page is not up yet) nothing
#: counts: a slow machine makes the app work longer, which never fails the wait.
_SHOWN_WHEN_IDLE = """([selector, text, graceMs]) => {
  const app = document.querySelector('[data-testid="stApp"]');
  const busy = !app || app.getAttribute("data-test-script-state") !== "notRunning";
  const now = performance.now();
  if (busy) { window.__ragIdleSince = undefined; return false; }
  const shown = [...document.querySelectorAll(selector)].some(
    el => el.getClientRects().length > 0 && (!text || el.innerText.includes(text)));
  if (shown) return "shown";
  if (window.__ragIdleSince === undefined) window.__ragIdleSince = now;
  return now - window.__ragIdleSince > graceMs ? "stuck" : false;
}"""

#: Only a guard against a hung test run, far beyond any slow machine; the waits follow the app's state.
HANG_GUARD_MS = 15 * 60_000


def wait_shown(page, selector: str, text: str | None = None, *, grace_ms: float = 20_000) -> None:
    """Wait until the app is idle and shows `selector` (containing `text`, when given).

    Follows the app's own state instead of a fixed timeout: it waits as long as a script run is in progress,
    and fails only when the app has sat idle for `grace_ms` (covering the moment between a click and the
    rerun it starts) without showing the element."""
    page.evaluate("() => { window.__ragIdleSince = undefined; }")
    outcome = page.wait_for_function(_SHOWN_WHEN_IDLE, arg=[selector, text, grace_ms], timeout=HANG_GUARD_MS,
                                     polling=100).json_value()
    if outcome != "shown":
        raise AssertionError(f"the app went idle without showing {selector!r}" + (f" with {text!r}" if text else ""))
