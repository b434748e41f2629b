"""Streamlit bindings: the per-browser-session objects and the error guard.

Settings entered in the browser (model endpoint, key) live in this session's memory only: never
written to disk, never logged, never shown back.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable

import streamlit as st
from streamlit.runtime.scriptrunner_utils.exceptions import ScriptControlException

from rag.errors import UserFixableError
from rag.i18n import _
from rag_debugger.debugger.errors import DebuggerUserError
from rag_debugger.views.icons import MATERIAL
from rag_debugger.views.markdown_text import as_text, in_code

if TYPE_CHECKING:
    from rag.access import Permit
    from rag.settings import RagSettings
    from rag_debugger.workbench.session import DebugSession

log = logging.getLogger("rag_debugger.ui")

SESSION_KEY = "debug_session"
OVERRIDES_KEY = "settings_overrides"
PERSON_KEY = "settings_run_by"
"""The name this browser session records its runs under when nobody is signed in (Settings page)."""
FLASH_KEY = "flash_message"


def settings_overrides() -> dict:
    return st.session_state.setdefault(OVERRIDES_KEY, {})


def apply_overrides(changes: dict) -> RagSettings:
    """Add `changes` (field names) to this browser session's overrides and hand the new settings to
    its debug session, if one exists (new runs use them). Raises pydantic's ValidationError and
    keeps the old overrides when the result is not valid."""
    from rag.settings import session_settings  # pydantic-settings: not before the first paint (run_page)

    overrides = {**settings_overrides(), **changes}
    settings = session_settings(overrides)
    st.session_state[OVERRIDES_KEY] = overrides
    session = st.session_state.get(SESSION_KEY)
    if session is not None:
        session.settings = settings
    return settings


def current_settings() -> RagSettings:
    """Environment settings with this browser session's overrides."""
    from rag.settings import RagSettings, session_settings  # pydantic-settings: not before the first paint

    try:
        return session_settings(settings_overrides())
    except Exception as exc:  # noqa: BLE001 - a bad override must not lock the user out
        flash("error", _("Settings were not valid and were reset: {error}").format(error=as_text(friendly(exc))))
        st.session_state[OVERRIDES_KEY] = {}
        return RagSettings()


def signed_in_email() -> str:
    """The signed-in user's e-mail (or name) when Streamlit authentication (`st.login`) is configured and
    someone is logged in; "" otherwise. Never raises: without an `[auth]` section `st.user` may refuse."""
    try:
        user = st.user
        if not user.is_logged_in:
            return ""
        return str(user.get("email") or user.get("name") or "").strip()
    except Exception:  # noqa: BLE001 - auth not configured, no script context, an older Streamlit
        return ""


def login_configured() -> bool:
    """True when the app has a login (Streamlit's `[auth]` secrets), so a visitor has a name that owning
    something can rest on; someone signed in proves it too."""
    if signed_in_email():
        return True
    try:
        return "auth" in st.secrets
    except Exception:  # noqa: BLE001 - no secrets file at all: no login
        return False


def permit() -> "Permit":
    """Who this browser session is, with the server's access settings (rag/access.py): what the stores are
    handed to check a request. A bad access variable is logged and read as the strictest settings."""
    from rag.access import AccessSettings, Actor, Permit, SettingsError, admins, server_settings

    login = login_configured()
    try:
        settings = server_settings(login=login)
    except SettingsError as exc:
        log.error("%s; visitors are read-only and runs private until it is fixed", exc)
        settings = AccessSettings(login=login, admins=admins(), shared_state="read-only", run_visibility="owner")
    return Permit(Actor(identity=signed_in_email()), settings)


def refusal(action: str, owner: str = "") -> str:
    """Why this session may not do `action` to `owner`'s record, in the reader's language; "" when it may."""
    decision = permit().decide(action, owner)
    return "" if decision.allowed else decision.message


def current_person() -> str:
    """Who runs recorded from this browser session are by: the signed-in user, else the name set on the
    Settings page, else ""."""
    return signed_in_email() or str(st.session_state.get(PERSON_KEY) or "").strip()[:200]


def get_session() -> DebugSession:
    session = st.session_state.get(SESSION_KEY)
    if session is None:
        from rag_debugger.workbench.session import DebugSession  # LangGraph and the engine load here, after the first paint

        session = DebugSession(current_settings(), checkpointer=shared_checkpointer(), history=shared_history())
        session.client_id, session.browser_id = _client_id(), browser_id()
        st.session_state[SESSION_KEY] = session
    session.owner = signed_in_email()  # who owns the runs it records (rag/access.py): a login's identity only
    session.run_by = current_person()  # read on every rerun: a sign-in or a new name applies to the next run
    if session.history is None:  # the history was down (at start or mid-run): record again once it answers
        session.attach_history(shared_history())
    return session


def _client_id():
    """This browser tab's Streamlit session id (to tell when it is gone: rag_debugger/workbench/run_owners.py)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else None


def browser_id():
    """This browser's token (rag_debugger/workbench/run_owners.py), None when Streamlit sets no XSRF cookie."""
    from rag_debugger.workbench.run_owners import browser_token

    try:
        return browser_token(st.context.cookies.get("_streamlit_xsrf"))
    except Exception:  # noqa: BLE001 - no request context (AppTest): unknown
        return None


def shared_history() -> Any:
    """The process-wide run history (`rag_debugger.ui.history_store`), or None when it cannot be used (the
    debugger still works, in memory, without recording; the store logged the cause once)."""
    try:
        from rag_debugger.ui.history_store import history

        return history()
    except Exception:  # noqa: BLE001 - history is optional; memory still lets people debug
        return None


def history_notice() -> None:
    """The one notice of an unusable history, in the sidebar of every page."""
    from rag_debugger.ui.history_store import is_shared, problem, shown_location

    shared_history()  # the first page of a session may not have tried the file yet
    if problem():
        if is_shared():
            text = _("**Run history off** — `{location}` cannot be reached or refuses the login, so runs are debugged "
                     "in memory and not recorded. The Run history page says how to recover.")
        else:
            text = _("**Run history off** — `{location}` is damaged or unreadable, so runs are debugged in memory and "
                     "not recorded. The Run history page says how to recover.")
        st.sidebar.warning(text.format(location=in_code(shown_location())), icon=":material/warning:")


def shared_checkpointer() -> Any:
    """The process-wide checkpointer: the run history's (its SQLite file or its database) when available
    (runs survive restarts), else memory. Keyed by the history file, so a test that points RAG_HISTORY_DB
    elsewhere gets its own checkpointer even though `st.cache_resource` is process-wide."""
    found = shared_history()
    return found.checkpointer if found is not None else _memory_checkpointer()


@st.cache_resource(show_spinner=False)
def _memory_checkpointer() -> Any:
    from langgraph.checkpoint.memory import InMemorySaver

    return InMemorySaver()


def friendly(exc: BaseException) -> str:
    """A one-line message for people: the exception's own text, never a traceback."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:500]


def flash(kind: str, message: str) -> None:
    """A message that survives the rerun a callback triggers."""
    st.session_state[FLASH_KEY] = (kind, message)


def show_flash() -> None:
    item = st.session_state.pop(FLASH_KEY, None)
    if item:
        kind, message = item
        getattr(st, kind, st.info)(message)


def guarded(fn: Callable, *args, **kwargs) -> Any:
    """Run a UI action; user errors (`rag.errors.UserFixableError`) become a message, anything else
    a short apology with the full traceback in the server log. Never a traceback in the browser."""
    try:
        return fn(*args, **kwargs)
    except ScriptControlException:
        raise
    except (UserFixableError, DebuggerUserError) as exc:  # "you can fix this" errors, and only those
        flash("warning", as_text(friendly(exc)))
    except Exception as exc:  # noqa: BLE001 - a defect (even a ValueError deep in a library): log it
        log.exception("UI action failed")
        flash("error", _("Something went wrong: {error}. The run was kept; you can restart it.").format(
            error=as_text(friendly(exc))))
    return None


def provider_banner(where: Any = None, badge: Any = None) -> None:
    """The model provider and the knowledge base, in `where` (the sidebar when not given). `badge`: the slot
    the model badge goes in (`where` when not given); left alone when a live step's fragment drew it on this
    run (`live_badge`), which owns it while the step runs."""
    where = where if where is not None else st.sidebar
    settings = current_settings()
    if not settings.models_configured():
        # no icon: Streamlit gives an alert's icon a column of its own, and beside it the narrow sidebar left
        # the text one word a line
        where.info(
            _("**Offline mode** (`{provider}`) — the planner, grader and rewriter are deterministic rules, not a "
              "model. Connect an OpenAI-compatible endpoint on the Settings page.").format(
                provider=in_code(settings.provider_label())))
    elif not st.session_state.get(BADGE_LIVE_KEY):
        model_badge(settings, badge if badge is not None else where)
    from rag.ingest.paths import kb_label

    where.caption(f"{MATERIAL['knowledge_bases']} " + _("Knowledge base: **{kb}** · retriever `{retriever}`").format(
        kb=as_text(kb_label(settings.kb_dir)), retriever=in_code(settings.retriever_backend)))


BADGE_STATE_KEY = "model_badge_state"
"""The model health the sidebar badge was last drawn with (see `redraw_if_badge_stale`)."""
BADGE_SLOT_KEY = "_model_badge_slot"
"""The sidebar slot the badge is drawn in, made by `run_page` before the page body on each full run."""
BADGE_LIVE_KEY = "_model_badge_live"
"""Set when a live step's fragment drew the badge on this full run: the fragment owns the slot."""


def model_badge(settings: RagSettings, where: Any = None) -> None:
    """The model badge shows the last call's health, not just the settings: green only after a
    call that worked, red with the failing role and error kind after one that failed."""
    from rag.models.health import last_call

    where = where if where is not None else st.sidebar
    model = settings.provider_label()
    health = last_call(settings.openai_base_url)
    st.session_state[BADGE_STATE_KEY] = health.state if health else None
    if health is None:
        where.info(_("Model: {model} · not called yet").format(model=as_text(model)), icon=MATERIAL["model"])
    elif health.ok:
        where.success(_("Model: {model} · last call OK ({role}, {time})").format(
            model=as_text(model), role=as_text(health.role), time=as_text(_clock(health.at))), icon=MATERIAL["model"])
    else:
        where.error(_("Model: {model} · last call FAILED ({role}: {kind}, {time}); runs degrade until it "
                      "answers").format(model=as_text(model), role=as_text(health.role), kind=as_text(health.kind),
                                        time=as_text(_clock(health.at))),
                    icon=MATERIAL["model"])


def redraw_if_badge_stale(settings: RagSettings) -> None:
    """Rerun the whole page when a call since the sidebar was drawn changed the model's health. The
    sidebar is outside the debugger's fragment, so a Step cannot redraw the badge itself. Only a
    change of health (ok / error kind, or from the connection test to a run's own calls) reruns, and only
    once per change: the role and time shown are those of the call that changed it."""
    if not settings.models_configured():
        return
    from rag.models.health import last_call

    health = last_call(settings.openai_base_url)
    state = health.state if health else None
    if state != st.session_state.get(BADGE_STATE_KEY):
        st.session_state[BADGE_STATE_KEY] = state
        st.rerun(scope="app")


def live_badge(settings: RagSettings) -> None:
    """The badge redrawn by the live step's fragment (`live_workbench` in rag_debugger/ui/step_controller.py) on each poll, so it
    follows every call of a running Step / Continue in place. Why from that fragment: the sidebar is outside
    the page's fragments, and Streamlit lets a fragment redraw an outside slot only if the fragment drew it on
    the full run too; the live fragment is drawn on the full run that starts the job, and polls anyway."""
    slot = st.session_state.get(BADGE_SLOT_KEY)
    if slot is None or not settings.models_configured():
        return
    model_badge(settings, slot)
    st.session_state[BADGE_LIVE_KEY] = True


def _clock(at: float) -> str:
    from rag.i18n.formatting import clock

    return clock(at)


def guarded_page(render: Callable[[], Any]) -> None:
    """Last line of defence for a whole page: a readable message instead of a traceback."""
    try:
        render()
    except ScriptControlException:
        raise
    except Exception as exc:  # noqa: BLE001
        log.exception("page failed")
        st.error(_("This page hit an unexpected error: {error}. Your session is kept; try again or restart the run.")
                 .format(error=as_text(friendly(exc))))


def run_page(render: Callable[[], Any]) -> None:
    """What every page does: the provider banner, then its body behind the error guard. Pages call
    it themselves (not app.py) so a page renders the same when opened directly.

    The page's own body comes before the sidebar's foot (the language picker, the tab's icon, the
    provider banner): a page draws its heading first, and what the foot imports (Streamlit's emoji
    catalogue, numpy and PIL for the icon, pydantic-settings, the ingest package) loads after the
    first paint. The foot's place in the sidebar is kept by `page_frame`, so nothing moves."""
    from rag_debugger.ui.navigation import page_frame, sidebar_footer

    footer = page_frame(footer_later=True)
    head, badge, tail = footer.container(), footer.empty(), footer.container()
    st.session_state[BADGE_SLOT_KEY], st.session_state[BADGE_LIVE_KEY] = badge, False
    guarded_page(render)
    sidebar_footer(head)
    provider_banner(tail, badge)
    history_notice()
    from rag_debugger.ui.shutdown import watch

    watch()  # leave within seconds on SIGTERM; let go of runs of closed tabs (rag_debugger/ui/shutdown.py)
    warm_up_after_paint()


FIRST_CLICK_MODULES = ("rag_debugger.exports.run_file",)
"""The UI's own modules a first demo click imports (the run's export), warmed with the engine."""


def warm_up_after_paint() -> None:
    """Load the tokenizer, the indexes, the embedder and the graphs in the background once the page
    is drawn, so the first click does not pay for them (`rag.warmup`)."""
    try:
        from rag.warmup import start_warm_up

        start_warm_up(current_settings(), shared_checkpointer(), modules=FIRST_CLICK_MODULES)
    except Exception:  # noqa: BLE001 - an optimisation only
        log.warning("could not start the warm-up", exc_info=True)
