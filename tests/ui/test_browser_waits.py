"""The browser tests' wait follows the app's script-run state: time spent running never fails it (a busy
machine only makes the app work longer), while an app that sits idle without the element does."""
from __future__ import annotations

import pytest

from tests.support.browser import chromium_page, streamlit_server, wait_shown

SLOW_APP = '''
import time
import streamlit as st

if st.button("work", key="work"):
    time.sleep(6)  # a slow script run, twice the grace given to the wait below
    st.success("done working")
'''


def test_wait_shown_waits_through_a_long_script_run_but_not_through_idleness(tmp_path):
    script = tmp_path / "slow_app.py"
    script.write_text(SLOW_APP, encoding="utf-8")
    with streamlit_server(script) as url, chromium_page() as page:
        page.goto(url)
        wait_shown(page, ".st-key-work button")
        page.locator(".st-key-work button").click()
        wait_shown(page, '[data-testid="stAlertContentSuccess"]', "done working", grace_ms=3_000)
        with pytest.raises(AssertionError, match="went idle without showing"):
            wait_shown(page, '[data-testid="stAlertContentSuccess"]', "never shown", grace_ms=1_000)
