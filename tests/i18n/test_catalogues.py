"""The catalogues match the code, and the language rules read as tables."""
from __future__ import annotations

import pytest

from rag import i18n
from rag.i18n import catalog, formatting, negotiate, ngettext, normalize, use_language
from rag.i18n.languages import LANGUAGES


def test_every_string_the_code_marks_is_in_both_catalogues_and_translated():
    assert catalog.problems() == []


def test_the_catalogues_hold_the_same_keys():
    keys = {lang: {e.id if isinstance(e.id, str) else e.id[0] for e in catalog.read_catalog(lang) if e.id}
            for lang in LANGUAGES}
    assert keys["en"] == keys["zh"] and keys["en"]


def test_the_check_reports_a_string_without_translation(tmp_path, monkeypatch):
    probe = tmp_path / "probe.py"
    probe.write_text('from rag.i18n import _\nLABEL = _("A label nobody has translated yet")\n', encoding="utf-8")
    real = catalog._source_files
    monkeypatch.setattr(catalog, "_source_files", lambda: [*real(), probe])
    found = catalog.problems()
    assert any("missing 'A label nobody has translated yet'" in line for line in found)


def test_the_check_reports_english_that_is_not_the_code_s(monkeypatch):
    """The English catalogue kept "{n} chunk(s) embedded" after the code's plural became "{n} chunks embedded"."""
    real = catalog.read_catalog

    def stale(lang):
        read = real(lang)
        if lang == "en":
            entry = read.get(("{n} chunk embedded", "{n} chunks embedded"))
            entry.string = ("{n} chunk embedded", "{n} chunk(s) embedded")
        return read

    monkeypatch.setattr(catalog, "read_catalog", stale)
    assert catalog.problems() == ["en: the English of '{n} chunk embedded' is not the code's"]


@pytest.mark.parametrize("header, expected", [
    ("zh-CN,zh;q=0.9,en;q=0.8", "zh"),
    ("en-US,en;q=0.9", "en"),
    ("fr-FR,zh-TW;q=0.5", "zh"),
    ("fr-FR, de;q=0.8", None),
    ("en;q=0.2, zh;q=0.9", "zh"),
    ("zh;q=0, en", "en"),
    ("", None),
    (None, None),
    ("en;q=abc, zh-Hans", "zh"),
])
def test_the_browser_language_is_negotiated_from_accept_language(header, expected):
    assert negotiate(header) == expected


@pytest.mark.parametrize("code, expected", [("zh_Hans_CN", "zh"), ("ZH", "zh"), ("en-GB", "en"), ("ja", None),
                                            (None, None), (3, None), (" zh-cn ", "zh")])
def test_language_tags_are_normalized(code, expected):
    assert normalize(code) == expected


def test_a_string_is_looked_up_in_the_active_language_and_english_is_the_default():
    assert i18n._("Run history") == "Run history"
    with use_language("zh"):
        assert i18n._("Run history") == "运行历史"
    with use_language("xx"):
        assert i18n._("Run history") == "Run history"


def test_a_string_missing_from_the_catalogue_shows_in_english_and_is_recorded():
    i18n.forget_missing_keys()
    with use_language("zh"):
        assert i18n._("Not a message of this app") == "Not a message of this app"
    assert ("zh", "Not a message of this app") in i18n.missing_keys()
    i18n.forget_missing_keys()


def test_counted_messages_fall_back_to_english_plural_rules():
    assert ngettext("{n} chunk", "{n} chunks", 1) == "{n} chunk"
    assert ngettext("{n} chunk", "{n} chunks", 3) == "{n} chunks"


def test_the_language_source_is_asked_when_no_block_sets_one():
    before = i18n._source  # the app's source (rag_debugger/ui/language.py installs it once, on import): put it back
    i18n.set_language_source(lambda: "zh-CN")
    try:
        assert i18n.current_language() == "zh"
        with use_language("en"):
            assert i18n.current_language() == "en"
        i18n.set_language_source(None)
        assert i18n.current_language() == "en"
    finally:
        i18n.set_language_source(before)


def test_a_failing_language_source_means_english():
    def broken():
        raise RuntimeError("no session")

    before = i18n._source
    i18n.set_language_source(broken)
    try:
        assert i18n._("Run history") == "Run history"
    finally:
        i18n.set_language_source(before)


@pytest.mark.parametrize("lang, ms, expected", [
    ("en", 119, "119 ms"), ("zh", 119, "119毫秒"),
    ("en", 2345, "2.3 sec"), ("zh", 2345, "2.3秒"),
    ("en", 125_000, "2 min 5 sec"), ("zh", 125_000, "2分钟 5秒"),
    ("en", 0, "0 ms"),
])
def test_durations_read_the_way_the_language_writes_them(lang, ms, expected):
    with use_language(lang):
        assert formatting.duration_ms(ms) == expected


def test_numbers_and_dates_follow_the_language():
    with use_language("en"):
        assert formatting.number(12345.678, 2) == "12,345.68"
        assert formatting.percent(0.875, 1) == "87.5%"
        assert formatting.date_time("2026-12-03T13:05:00") == "2026-12-03 13:05"
    with use_language("zh"):
        assert formatting.date_time("2026-12-03T13:05:00") == "2026年12月3日 13:05"
        assert formatting.date_time("not a date") == "not a date"
        assert formatting.date_time(None) == ""
