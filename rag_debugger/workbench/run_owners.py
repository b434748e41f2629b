"""Which browser session drives each unfinished live run of this process, so runs left behind by
a reload or a closed tab are marked abandoned instead of staying "running" forever.

Why not a finalizer on the session: Streamlit keeps a disconnected session for a while and the
garbage collector drops it at any moment, in the middle of any code; work done from a finalizer
(SQLite, logging) at such a moment once broke CPython's AST compiler in the test run. So the
owners are plain weak references (no callback), and `sweep` looks at them at safe points: when a
run starts, when the history page lists runs, when a link is opened.

A run is left behind when its session is gone (collected), or its browser session is no longer
connected (a reload or a closed tab: Streamlit's `Runtime.is_active_session`). A disconnected tab
that reconnects and goes on still records its outcome when the run finishes. After a reload, the
new tab takes the old tab's session over (`adoptable`, `hand_over`): the run goes on live.
"""
from __future__ import annotations

import logging
import threading
import weakref
from typing import Any, Callable, Iterable, Mapping, NamedTuple, Optional

log = logging.getLogger(__name__)


class Owner(NamedTuple):
    session: "weakref.ref[Any]"
    client_id: Optional[str]
    """The Streamlit session id of the browser tab (None outside Streamlit: tests, scripts)."""


_lock = threading.Lock()
_owners: dict[str, Owner] = {}


def claim(run_id: str, session: Any, client_id: Optional[str]) -> None:
    with _lock:
        _owners[run_id] = Owner(weakref.ref(session), client_id)


def release(run_ids: Iterable[str]) -> None:
    with _lock:
        for run_id in run_ids:
            _owners.pop(run_id, None)


def left_behind(owners: Mapping[str, Owner], is_active: Callable[[str], bool]) -> tuple[list[str], list[str]]:
    """(runs to abandon, runs to forget) (pure). A run is abandoned when it is unfinished and its
    session is gone or its browser tab no longer connected; forgotten when its session is gone
    (a disconnected tab's session stays known: a reload may take it over, see `adoptable`)."""
    abandon, forget = [], []
    for run_id, owner in owners.items():
        session = owner.session()
        if session is None:
            abandon.append(run_id)  # finished runs are left alone by RunHistory.mark_abandoned
            forget.append(run_id)
        elif run_id in getattr(session, "open_runs", ()) and owner.client_id is not None \
                and not is_active(owner.client_id):
            abandon.append(run_id)
    return abandon, forget


def browser_token(cookie: Optional[str]) -> Optional[str]:
    """The browser's token from Streamlit's `_streamlit_xsrf` cookie (Tornado's format
    `2|mask|masked token|time`), or None. The cookie is masked anew on every page load; the token
    under it stays the same for one browser, so it tells a reload from another person's browser."""
    try:
        version, mask, masked, _ = str(cookie).split("|")
        if version != "2":
            return None
        key, data = bytes.fromhex(mask), bytes.fromhex(masked)
        return bytes(b ^ key[i % len(key)] for i, b in enumerate(data)).hex() if key and data else None
    except (ValueError, TypeError):
        return None


def adoptable(run_id: str, browser: Optional[str] = None, is_active: Optional[Callable[[str], bool]] = None) -> Any:
    """The session holding `run_id` when the tab that drove it is gone and `browser` is the
    browser that drove it (a reload): the new tab may take it over and go on live. None when
    nobody holds it, its tab is still connected, or another browser asks (a colleague's link must
    not take over someone's run, nor the model key typed into it: that opens a replay)."""
    active = is_active or _is_active
    with _lock:
        owner = _owners.get(run_id)
    session = owner.session() if owner is not None else None
    if owner is None or session is None or owner.client_id is None or active(owner.client_id):
        return None
    if run_id not in {seg.run_id for seg in getattr(session, "segments", ())}:
        return None
    if getattr(session, "browser_id", None) != browser:
        return None
    return session


def hand_over(session: Any, client_id: Optional[str]) -> None:
    """`session` is driven by another tab from now on."""
    session.client_id = client_id
    with _lock:
        for run_id, owner in list(_owners.items()):
            if owner.session() is session:
                _owners[run_id] = Owner(owner.session, client_id)


def _is_active(client_id: str) -> bool:
    """Whether Streamlit still has that browser session connected (True when unknown)."""
    try:
        from streamlit import runtime

        if not runtime.exists():
            return True
        return bool(runtime.get_instance().is_active_session(client_id))
    except Exception:  # noqa: BLE001 - never abandon a run on a doubt
        return True


def sweep(history: Any, is_active: Callable[[str], bool] = _is_active) -> list[str]:
    """Mark the runs left behind abandoned (runs that finished meanwhile are left alone by
    `RunHistory.mark_abandoned`); returns their ids. Never raises."""
    with _lock:
        owners = dict(_owners)
    gone, forget = left_behind(owners, is_active)
    release(forget)
    for run_id in gone:
        session = owners[run_id].session()
        if session is not None:
            session.open_runs.discard(run_id)
    if history is None or not gone:
        return []
    try:
        return history.mark_abandoned(gone)
    except Exception:  # noqa: BLE001 - the history is a record; a failed mark breaks nothing
        log.warning("could not mark %d run(s) left behind abandoned", len(gone), exc_info=True)
        return []
