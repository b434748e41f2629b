"""Which language the app speaks: the URL, the sidebar picker, the browser's default."""
from __future__ import annotations

from rag import i18n
from rag_debugger.ui.language import LANG_KEY


def _links(at) -> list[str]:
    return [link.proto.label for link in at.sidebar.get("page_link")]


def test_english_is_the_default_without_a_browser_language(app_test, env):
    at = app_test
    at.switch_page("pages/settings.py").run()
    assert "Run history" in _links(at)
    assert at.session_state[LANG_KEY] == "en"


def test_a_lang_link_opens_the_app_in_chinese(app_test, env):
    at = app_test
    at.query_params["lang"] = "zh"
    at.switch_page("pages/settings.py").run()
    assert "运行历史" in _links(at) and "Run history" not in _links(at)
    assert at.session_state[LANG_KEY] == "zh"


def test_a_lang_link_that_names_no_language_of_ours_is_ignored(app_test, env):
    at = app_test
    at.query_params["lang"] = "<script>"
    at.switch_page("pages/settings.py").run()
    assert "Run history" in _links(at)


def test_the_picker_switches_the_language_and_writes_it_into_the_url(app_test, env):
    at = app_test
    at.switch_page("pages/settings.py").run()
    picker = at.sidebar.button_group[0]
    picker.set_value("zh").run()
    assert "运行历史" in _links(at)
    assert at.query_params["lang"] == ["zh"] or at.query_params["lang"] == "zh"
    # a later rerun still carries the old ?lang in Streamlit's copy of the URL: the choice must hold
    at.sidebar.button_group[0].set_value("en").run()
    at.run()
    assert "Run history" in _links(at)


def test_every_page_in_chinese_uses_only_strings_the_catalogue_has(app_test, env):
    """A page that shows a key with no translation records it (rag.i18n.missing_keys)."""
    from rag_debugger.ui.navigation import PAGES

    i18n.forget_missing_keys()
    at = app_test
    at.query_params["lang"] = "zh"
    for page in PAGES:
        at.switch_page(page.path).run()
        assert not at.exception, page.path
    assert sorted(m for lang, m in i18n.missing_keys() if lang == "zh") == []


def test_a_chosen_language_is_put_back_into_the_url_of_the_next_page(app_test, env):
    """Page links drop the query string; a reload of the next page must still open in the chosen language."""
    at = app_test
    at.switch_page("pages/settings.py").run()
    at.sidebar.button_group[0].set_value("zh").run()
    at.query_params.clear()
    at.switch_page("pages/history.py").run()
    assert "运行历史" in _links(at)
    assert at.query_params["lang"] in ("zh", ["zh"])


def test_a_background_thread_reads_english_without_a_streamlit_warning():
    """Ingestion jobs, warm-up and graph workers have no browser session: English, and no
    "missing ScriptRunContext" warning logged for every string they build."""
    import logging
    import threading

    import rag_debugger.ui.language  # noqa: F401 - installs the session source

    class Recorder(logging.Handler):
        records: list[str] = []

        def emit(self, record):
            self.records.append(record.getMessage())

    rag_debugger.ui.language.install()
    streamlit_log = logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context")
    recorder = Recorder(level=logging.WARNING)
    streamlit_log.addHandler(recorder)  # Streamlit's loggers do not propagate to the root logger
    try:
        seen = []
        worker = threading.Thread(target=lambda: seen.append(i18n._("Run history")))
        worker.start()
        worker.join()
    finally:
        streamlit_log.removeHandler(recorder)
    assert seen == ["Run history"]
    assert not [m for m in recorder.records if "ScriptRunContext" in m]
