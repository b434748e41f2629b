"""How the app server leaves, and how runs of closed tabs are let go: one daemon thread per process.

Why a watcher thread and not a signal handler: Streamlit owns SIGTERM (it stops its server, then the
interpreter exits), and a page script cannot install a handler (it runs outside the main thread).
Streamlit's exit used to hang now and then: the interpreter joins every non-daemon thread before it
exits (a thread pool worker mid model call, a script run mid step), for as long as they take. So the
watcher looks at Streamlit's runtime state; once it is stopping, it marks this server's unfinished runs
abandoned (bounded by the history's connect timeout) and ends the process `EXIT_GRACE_S` seconds after
it saw the stop if it is still there (`os._exit`: the runs are marked and the histories closed by then).
A clean exit that comes before the watcher sees the stop marks them from `atexit`.

Closed tabs: every `SWEEP_S` seconds it sweeps the runs whose browser tab is no longer connected
(`rag_debugger.workbench.run_owners.sweep`), so they are marked abandoned within two sweeps of the tab closing,
not only at the next run or the next start. The sweep runs in this thread, never from a finaliser.
"""
from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from typing import Any, Optional

log = logging.getLogger("rag_debugger.shutdown")

#: Seconds between a stop being seen and the process ending, whatever threads are still busy.
EXIT_GRACE_S = float(os.environ.get("RAG_EXIT_GRACE_S", "") or 3.5)
#: Seconds between two sweeps for runs of tabs that are gone.
SWEEP_S = float(os.environ.get("RAG_ABANDON_SWEEP_S", "") or 5)
_POLL_S = 0.1

_lock = threading.Lock()
_thread: Optional[threading.Thread] = None


def watch() -> None:
    """Start the watcher once per process (a no-op outside a Streamlit server: AppTest, scripts)."""
    global _thread
    try:
        from streamlit import runtime

        if not runtime.exists():
            return
        instance = runtime.get_instance()
    except Exception:  # noqa: BLE001 - no runtime: nothing to watch
        return
    with _lock:
        if _thread is not None and _thread.is_alive():
            return
        _thread = threading.Thread(target=_watch, args=(instance,), name="rag-shutdown-watch", daemon=True)
        _thread.start()
        atexit.register(abandon_unfinished)  # a clean exit can come before the watcher sees the stop


def stopping(state: Any) -> bool:
    """Whether Streamlit's runtime state means the server is going away (pure)."""
    return getattr(state, "name", str(state)) in ("STOPPING", "STOPPED")


def _watch(instance: Any) -> None:
    next_sweep = time.monotonic() + SWEEP_S
    while True:
        try:
            if stopping(instance.state):
                break
            if time.monotonic() >= next_sweep:
                next_sweep = time.monotonic() + SWEEP_S
                _sweep()
        except Exception:  # noqa: BLE001 - the watcher must outlive any one failure
            log.debug("shutdown watcher", exc_info=True)
        time.sleep(_POLL_S)
    _leave()


_gone_before: set[str] = set()


def _sweep() -> None:
    """A tab counts as closed when two sweeps in a row found it disconnected: a reload reconnects within
    that time and takes its run over (`rag_debugger.workbench.run_owners.adoptable`), which must not see it abandoned."""
    global _gone_before
    from rag_debugger.ui.history_store import open_histories
    from rag_debugger.workbench import run_owners

    gone: set[str] = set()

    def is_active(client_id: str) -> bool:
        if run_owners._is_active(client_id):  # noqa: SLF001 - the same test the safe points use
            return True
        gone.add(client_id)
        return client_id not in _gone_before

    for found in open_histories():
        run_owners.sweep(found, is_active)
    _gone_before = gone


def _leave() -> None:
    """The server is stopping: end the process within `EXIT_GRACE_S`, after marking the runs."""
    deadline = time.monotonic() + EXIT_GRACE_S
    killer = threading.Timer(EXIT_GRACE_S, _exit_now)
    killer.daemon = True
    killer.start()
    abandon_unfinished()
    left = deadline - time.monotonic()
    if left > 0:
        time.sleep(min(left, 0.5))  # Streamlit's own clean exit usually comes first
    _exit_now()


def abandon_unfinished() -> list[str]:
    """Mark every unfinished run of this server abandoned and close the histories; never raises."""
    from rag_debugger.ui import history_store

    marked: list[str] = []
    for found in history_store.open_histories():
        try:
            marked += found.mark_abandoned(server_id=found.server_id)
        except Exception:  # noqa: BLE001 - leaving anyway; the next start marks them
            log.warning("could not mark the unfinished runs abandoned on the way out", exc_info=True)
    if marked:
        log.info("marked %d unfinished run(s) abandoned on the way out", len(marked))
    try:
        history_store.close_all()
    except Exception:  # noqa: BLE001
        log.debug("closing the histories", exc_info=True)
    return marked


def _exit_now() -> None:
    logging.shutdown()
    os._exit(0)
