"""Which language this browser session reads the app in, and the picker in the sidebar.

The choice, in order: a `?lang=` in the URL (so a demo link opens in the right language), what the user
picked in the sidebar (remembered for the browser session, and written into the URL so a reload keeps
it), the browser's `Accept-Language`, English. Strings themselves are looked up in `rag.i18n`.
"""
from __future__ import annotations

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

import rag_debugger.debugger.i18n as debugger_i18n
from rag.i18n import gettext, negotiate, ngettext, normalize, set_language_source
from rag.i18n.languages import DEFAULT_LANGUAGE, LANGUAGES

LANG_PARAM = "lang"
LANG_KEY = "ui_language"
_URL_SEEN_KEY = "_ui_language_from_url"
_PICKER_KEY = "_ui_language_picker"
PICKER_LABEL = "Language · 语言"
"""The same in both languages: whoever cannot read the current one can still find the way back."""


def _session_language() -> str | None:
    """The browser session's language, when this thread runs a script (a background thread has no session:
    asking Streamlit's session state there would log a "missing ScriptRunContext" warning per string)."""
    if get_script_run_ctx(suppress_warning=True) is None:
        return None
    try:
        return st.session_state.get(LANG_KEY)
    except Exception:  # noqa: BLE001 - a session being torn down: the default
        return None


def install() -> None:
    """Make the app's strings (and the debugger core's) follow this browser session's choice. Done on
    every run, not once at import: whatever replaced the source since (a test, a library) is undone."""
    set_language_source(_session_language)
    debugger_i18n.install(gettext, ngettext)


install()


def browser_language() -> str | None:
    """The browser's preferred language among ours: its `Accept-Language` header, else `navigator.language`."""
    try:
        found = negotiate(st.context.headers.get("Accept-Language"))
        return found or normalize(st.context.locale)
    except Exception:  # noqa: BLE001 - no request context (AppTest)
        return None


def resolve_language() -> str:
    """Settle this run's language (see the module docstring). A URL value is followed when it is new to
    this session: Streamlit keeps sending a tab's first query string on later reruns, and that must not
    undo a choice made in the picker since."""
    install()
    from_url = normalize(st.query_params.get(LANG_PARAM))
    if from_url and st.session_state.get(_URL_SEEN_KEY) != from_url:
        st.session_state[_URL_SEEN_KEY] = from_url
        st.session_state[LANG_KEY] = from_url
    if normalize(st.session_state.get(LANG_KEY)) is None:
        st.session_state[LANG_KEY] = browser_language() or DEFAULT_LANGUAGE
    lang = st.session_state[LANG_KEY]
    chosen = st.session_state.get(_URL_SEEN_KEY)
    if chosen == lang and normalize(st.query_params.get(LANG_PARAM)) != lang:
        # A page link drops the query string: put the choice back, so a reload of this page keeps it.
        st.query_params[LANG_PARAM] = lang
    return lang


def _picked() -> None:
    lang = normalize(st.session_state.get(_PICKER_KEY))
    if lang:
        st.session_state[LANG_KEY] = lang
        st.session_state[_URL_SEEN_KEY] = lang
        st.query_params[LANG_PARAM] = lang


def language_picker() -> None:
    """Two buttons, English and 中文, where the caller draws them (the sidebar's foot: rag_debugger.ui.navigation)."""
    current = resolve_language()
    st.session_state[_PICKER_KEY] = current
    st.segmented_control(PICKER_LABEL, options=list(LANGUAGES), format_func=LANGUAGES.__getitem__, key=_PICKER_KEY,
                         on_change=_picked, width="stretch")


def url_language() -> str | None:
    """The language to carry in links this page writes (the URL the debugger keeps), when not the default."""
    lang = _session_language()
    return lang if lang and lang != DEFAULT_LANGUAGE else None


def in_this_language(format_func):
    """`format_func` for a select box or radio, bound to the language of the script run that draws it.

    Streamlit (and AppTest) match the widget's value against its options by calling `format_func`
    again, sometimes outside the script run, where the browser session's language is unknown (so
    English): the Chinese options would then not match and the widget would lose its value."""
    from rag.i18n import current_language, use_language

    lang = current_language()

    def formatted(value):
        with use_language(lang):
            return format_func(value)

    return formatted


def with_headings(frame, headings: dict[str, str]):
    """A copy of a DataFrame with its column headings (and its index name) in the reader's language:
    `headings` maps the frame's data keys, which the code and the tests read, to English headings."""
    out = frame.rename(columns={key: gettext(text) for key, text in headings.items()})
    if out.index.name in headings:
        out.index = out.index.rename(gettext(headings[out.index.name]))
    return out
