"""The threads a user's own application wrote into its checkpointer (SQLite or PostgreSQL), opened read-only.

Why this exists: a thread that went wrong in production lives in the application's checkpointer, not in
the debugger's. This module opens that store without writing to it, lists its threads by SQL (one query
per page; `saver.list` would decode every checkpoint), reads a thread's history a window at a time
(`get_state_history(limit=, before=)`: only `limit` keeps a long thread cheap), and copies a thread into
another saver exactly (a fork) so it can run on without touching the user's database.

Read-only is enforced by the connection, not by care: SQLite opens `file:…?mode=ro` (a missing file is an
error, never created) and SqliteSaver's `setup()` is skipped; PostgreSQL sessions start with
`default_transaction_read_only=on` (a role with SELECT only is the real guarantee, as the README says).
Streamlit-free: the page and tests drive it. Every failure a person can fix is a `CheckpointerError` whose
message never holds a password.
"""
from __future__ import annotations

import copy
import os
import sqlite3
import tempfile
from collections import defaultdict
from datetime import datetime, timezone
from typing import Any, Literal, Optional
from urllib.parse import quote, urlsplit, urlunsplit

from pydantic import BaseModel

from rag_debugger.debugger.errors import DebuggerUserError
from rag_debugger.debugger.i18n import _
from rag_debugger.debugger.replay import RecordedCheckpoint, RecordedTask
from rag_debugger.debugger.state_diff import state_values
from rag_debugger.debugger.strict_serde import StrictSerializer, graph_allowlist

PAGE_SIZE = 20
WINDOW = 20
"""Checkpoints read when a thread opens (its newest ones); older ones come a window at a time. Reading one
costs LangGraph's task preparation for it (~0.15 ms), so a window, not the thread, is what opening costs."""
INTERRUPT_CHANNEL = "__interrupt__"
SPECIAL_NODES = frozenset({"__start__", "__end__", "__input__", "__interrupt__", "__pregel_pull", "__pregel_push"})


class CheckpointerError(DebuggerUserError):
    """A checkpointer that cannot be opened or read; the message says why, without a password."""


class CheckpointerSource(BaseModel):
    """Where the user's checkpointer is: `sqlite:///path` or `postgresql://user:pass@host/db`."""

    kind: Literal["sqlite", "postgres"]
    target: str
    """The SQLite file's path, or the PostgreSQL connection URL."""
    writable: bool = False

    @property
    def shown(self) -> str:
        """The URL fit to show or log: a PostgreSQL password is replaced by `***`."""
        return f"sqlite:///{self.target}" if self.kind == "sqlite" else redact(self.target)


def redact(url: str) -> str:
    """`url` with its password (if any) replaced by `***`."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "***"
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit((parts.scheme, f"{user}:***@{host}{port}", parts.path, parts.query, parts.fragment))


def _scrub(text: str, source: CheckpointerSource) -> str:
    """An error text with the password taken out wherever a driver might have echoed it."""
    if source.kind == "postgres":
        try:
            password = urlsplit(source.target).password
        except ValueError:
            password = None
        text = text.replace(source.target, source.shown)
        if password:
            text = text.replace(password, "***")
    return text


def parse_checkpointer_url(url: str, *, writable: bool = False) -> CheckpointerSource:
    """A `CheckpointerSource` from a launch URL; a bad URL is a `CheckpointerError`."""
    text = (url or "").strip()
    if text.startswith("sqlite:///"):
        path = text[len("sqlite:///"):]
        # sqlite:////abs/path and sqlite:///rel/path, as SQLAlchemy writes them
        if not path:
            raise CheckpointerError(_("the checkpointer URL {url} names no file").format(url=repr(text)))
        return CheckpointerSource(kind="sqlite", target=os.path.abspath(path), writable=writable)
    if text.startswith(("postgresql://", "postgres://")):
        return CheckpointerSource(kind="postgres", target=text, writable=writable)
    raise CheckpointerError(_("a checkpointer URL starts with sqlite:/// or postgresql://, got {url}").format(
        url=repr(redact(text))))


class SubgraphThread(BaseModel):
    """A subgraph's checkpoints inside a thread (`checkpoint_ns` = `node:<task id>`)."""

    namespace: str
    checkpoints: int


class ThreadSummary(BaseModel):
    thread_id: str
    checkpoints: int
    last_update: Optional[str] = None
    next: tuple[str, ...] = ()
    interrupt: bool = False
    subgraphs: list[SubgraphThread] = []
    problem: Optional[str] = None
    """Why this thread cannot be read with the loaded graph (then `next` is unknown)."""


class ThreadPage(BaseModel):
    threads: list[ThreadSummary]
    total: int
    offset: int
    limit: int


def uuid6_time(checkpoint_id: str) -> Optional[str]:
    """When a checkpoint was written, from its id (LangGraph's ids are UUIDv6: the time is in the id)."""
    try:
        h = checkpoint_id.replace("-", "")
        if len(h) != 32 or h[12] != "6":
            return None
        ticks = (int(h[:12], 16) << 12) | int(h[13:16], 16)  # 100 ns since 1582-10-15
        seconds = (ticks - 0x01B21DD213814000) / 1e7
        return datetime.fromtimestamp(seconds, tz=timezone.utc).isoformat()
    except (ValueError, OverflowError, OSError):
        return None


def _like(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


class ThreadStore:
    """An opened checkpointer: its saver, and SQL over its tables for what the saver cannot list cheaply."""

    def __init__(self, source: CheckpointerSource, saver: Any, conn: Any) -> None:
        self.source = source
        self.saver = saver
        self._conn = conn
        self._mark = "?" if source.kind == "sqlite" else "%s"
        self._savers: dict[frozenset, Any] = {}
        self.copy_dir: Optional[str] = None
        """The temporary folder of the copy a live SQLite file is read from (removed on close)."""
        self.note: Optional[str] = None
        """What the page must say about how the store was opened (a live SQLite file is read from a copy)."""

    def saver_for(self, graph: Any) -> Any:
        """The store's saver, decoding the types `graph`'s schemas name too (a shallow copy sharing the
        connection and lock), kept per graph."""
        allowed = graph_allowlist(graph)
        held = self._savers.get(allowed)
        if held is None:
            held = copy.copy(self.saver)
            held.serde = StrictSerializer(allowed)
            self._savers = {allowed: held}
        return held

    def _rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        sql = sql.replace("?", self._mark)
        try:
            if self.source.kind == "sqlite":
                with self.saver.lock:  # the saver's own calls share this connection
                    return [tuple(r) for r in self._conn.execute(sql, params).fetchall()]
            with self._conn.cursor() as cur:
                cur.execute(sql, params)
                return [tuple(r.values()) if isinstance(r, dict) else tuple(r) for r in cur.fetchall()]
        except Exception as exc:  # noqa: BLE001 - a locked/corrupt file or a server gone: say which
            raise CheckpointerError(_("could not read {url}: {error}").format(
                url=self.source.shown, error=_scrub(str(exc), self.source))) from None

    def list_threads(self, filter_text: str = "", *, offset: int = 0, limit: int = PAGE_SIZE,
                     graph: Any = None) -> ThreadPage:
        """One page of threads, newest first, whose id contains `filter_text`. With `graph` (compiled on this
        store's saver) each row also gets its next nodes; a thread the graph cannot read gets a `problem`."""
        where = "checkpoint_ns = '' AND thread_id LIKE ? ESCAPE '\\'"
        like = _like(filter_text.strip())
        total = int(self._rows(f"SELECT COUNT(DISTINCT thread_id) FROM checkpoints WHERE {where}", (like,))[0][0])
        rows = self._rows(
            f"SELECT thread_id, COUNT(*), MAX(checkpoint_id) FROM checkpoints WHERE {where} "
            "GROUP BY thread_id ORDER BY MAX(checkpoint_id) DESC, thread_id LIMIT ? OFFSET ?",
            (like, max(1, limit), max(0, offset)))
        ids = [str(r[0]) for r in rows]
        subs: dict[str, list[SubgraphThread]] = defaultdict(list)
        waiting: set[str] = set()
        if ids:
            marks = ",".join("?" * len(ids))
            for tid, ns, n in self._rows(
                    f"SELECT thread_id, checkpoint_ns, COUNT(*) FROM checkpoints WHERE checkpoint_ns != '' "
                    f"AND thread_id IN ({marks}) GROUP BY thread_id, checkpoint_ns ORDER BY checkpoint_ns", tuple(ids)):
                subs[str(tid)].append(SubgraphThread(namespace=str(ns), checkpoints=int(n)))
            heads = {str(r[0]): str(r[2]) for r in rows}
            table = "writes" if self.source.kind == "sqlite" else "checkpoint_writes"
            for tid, cid in self._rows(
                    f"SELECT DISTINCT thread_id, checkpoint_id FROM {table} WHERE checkpoint_ns = '' "
                    f"AND channel = '{INTERRUPT_CHANNEL}' AND thread_id IN ({marks})", tuple(ids)):
                if heads.get(str(tid)) == str(cid):
                    waiting.add(str(tid))
        out = []
        for tid, count, head in rows:
            summary = ThreadSummary(thread_id=str(tid), checkpoints=int(count), last_update=uuid6_time(str(head)),
                                    interrupt=str(tid) in waiting, subgraphs=subs.get(str(tid), []))
            if graph is not None:
                try:
                    snap = graph.get_state({"configurable": {"thread_id": str(tid)}})
                    summary.next = tuple(t.name for t in snap.tasks) or tuple(snap.next)
                    summary.problem = foreign_nodes(graph, [*summary.next, *stored_nodes(self.saver, str(tid))])
                except Exception as exc:  # noqa: BLE001 - one unreadable thread must not hide the others
                    summary.problem = unreadable(exc)
            out.append(summary)
        return ThreadPage(threads=out, total=total, offset=offset, limit=limit)

    def count(self, thread_id: str) -> int:
        return int(self._rows("SELECT COUNT(*) FROM checkpoints WHERE checkpoint_ns = '' AND thread_id = ?",
                              (thread_id,))[0][0])

    def close(self) -> None:
        try:
            self._conn.close()
        except Exception:  # noqa: BLE001,S110 - closing a connection that is already gone
            pass
        if self.copy_dir:
            import shutil

            shutil.rmtree(self.copy_dir, ignore_errors=True)


def unreadable(exc: BaseException) -> str:
    import importlib.metadata as md

    try:
        version = md.version("langgraph-checkpoint")
    except md.PackageNotFoundError:
        version = "?"
    return _("the installed langgraph-checkpoint {version} cannot read this checkpoint: {error}").format(
        version=version, error=f"{type(exc).__name__}: {exc}"[:300])


def graph_nodes(graph: Any) -> set[str]:
    return set(getattr(graph, "nodes", None) or ()) - SPECIAL_NODES


def stored_nodes(saver: Any, thread_id: str) -> set[str]:
    """The nodes a thread's newest checkpoint knows of, from the checkpoint itself (`versions_seen` is keyed by
    node, `branch:to:<node>` channels name the nodes edges lead to). A graph reading another graph's thread sees
    no tasks and no next nodes, so this is what tells the two apart."""
    try:
        tup = saver.get_tuple({"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}})
    except Exception as exc:  # noqa: BLE001
        raise CheckpointerError(unreadable(exc)) from None
    if tup is None:
        return set()
    cp = tup.checkpoint
    names = set(cp.get("versions_seen") or ())
    names |= {c[len("branch:to:"):] for c in (cp.get("channel_versions") or ()) if c.startswith("branch:to:")}
    return names


def foreign_nodes(graph: Any, names: Any) -> Optional[str]:
    """A message when `names` holds nodes the loaded graph does not have (the thread is another graph's)."""
    known = graph_nodes(graph)
    unknown = sorted({str(n) for n in names} - known - SPECIAL_NODES)
    if not unknown:
        return None
    return _("this thread runs nodes the loaded graph does not have ({nodes}): was it written by another graph?").format(
        nodes=", ".join(unknown))


def _sqlite_store(source: CheckpointerSource) -> ThreadStore:
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = source.target
    if not os.path.isfile(path):
        raise CheckpointerError(_("no SQLite file at {path}").format(path=path))
    note = copy_dir = None
    try:
        if source.writable:
            uri = "file:" + quote(path) + "?mode=rw"
        else:
            uri, note, copy_dir = _read_only_uri(path)
        conn = sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=2.0)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except (sqlite3.Error, OSError) as exc:
        raise CheckpointerError(_("could not open {path}: {error}").format(path=path, error=exc)) from None
    if not {"checkpoints", "writes"} <= tables:
        conn.close()
        raise CheckpointerError(_("{path} is an SQLite file but not a LangGraph checkpointer (no checkpoints and writes "
                                  "tables)").format(path=path))
    saver = SqliteSaver(conn, serde=StrictSerializer())
    saver.is_setup = True  # setup() writes (it switches the file to WAL): the tables are there already
    store = ThreadStore(source, saver, conn)
    store.note, store.copy_dir = note, copy_dir
    return store


def _read_only_uri(path: str) -> tuple[str, Optional[str], Optional[str]]:
    """How to open `path` read-only leaving nothing in the user's folder, and what the page must say when it
    cannot. A cleanly closed file (no `-wal` or `-shm` beside it) opens `immutable=1`: SQLite then
    creates no `-wal`/`-shm` side files (`mode=ro` alone leaves them for a WAL file). A file with a
    `-wal` is open in another process (or was not closed cleanly): its newest commits are only in the `-wal`,
    which `immutable=1` would miss, so a copy of both is opened in a temporary folder instead (after a probe
    that reports a lock). Returns the URI, the note, and the copy's folder (the store removes it on close)."""
    wal = path + "-wal"
    if not os.path.exists(wal) and not os.path.exists(path + "-shm"):
        return "file:" + quote(path) + "?mode=ro&immutable=1", None, None
    import shutil

    # open (side files there already are the writer's): a lock says so now, not as an odd copy later
    probe = sqlite3.connect("file:" + quote(path) + "?mode=ro", uri=True, timeout=2.0)
    try:
        probe.execute("SELECT name FROM sqlite_master").fetchall()
    finally:
        probe.close()
    folder = tempfile.mkdtemp(prefix="yg-threads-")
    copy_path = os.path.join(folder, os.path.basename(path))
    shutil.copyfile(path, copy_path)
    if os.path.exists(wal):
        shutil.copyfile(wal, copy_path + "-wal")
    note = _("{path} is being written (its -wal file holds commits): a copy taken now is shown, so nothing is "
             "left beside your file; open the thread list again to see newer checkpoints.").format(path=path)
    return "file:" + quote(copy_path) + "?mode=ro", note, folder


def _postgres_store(source: CheckpointerSource) -> ThreadStore:
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver
    from psycopg.rows import dict_row

    kwargs: dict[str, Any] = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row, "connect_timeout": 5}
    try:
        if not source.writable:  # added to the URL's own options (a search_path, say), not in their place
            from psycopg.conninfo import conninfo_to_dict

            own = str(conninfo_to_dict(source.target).get("options") or "")
            kwargs["options"] = f"{own} -c default_transaction_read_only=on".strip()
        conn = psycopg.connect(source.target, **kwargs)
    except Exception as exc:  # noqa: BLE001 - server down, bad credentials, bad URL
        raise CheckpointerError(_("could not connect to {url}: {error}").format(
            url=source.shown, error=_scrub(str(exc).strip(), source))) from None
    store = ThreadStore(source, PostgresSaver(conn, serde=StrictSerializer()), conn)
    tables = {r[0] for r in store._rows("SELECT table_name FROM information_schema.tables WHERE table_schema = "
                                        "ANY(current_schemas(false))")}
    if not {"checkpoints", "checkpoint_writes", "checkpoint_blobs"} <= tables:
        store.close()
        raise CheckpointerError(_("{url} holds no LangGraph checkpointer tables (checkpoints, checkpoint_writes, "
                                  "checkpoint_blobs)").format(url=source.shown))
    return store


def open_store(source: CheckpointerSource) -> ThreadStore:
    """Open the user's checkpointer (read-only unless `source.writable`); a `CheckpointerError` says why not."""
    return _sqlite_store(source) if source.kind == "sqlite" else _postgres_store(source)


def on_store(graph: Any, store: ThreadStore) -> Any:
    """A copy of `graph` that reads (and, if writable, writes) the store's saver; the user's object is unchanged.
    The saver decodes strictly (`debugger.strict_serde`): the safe types and the ones the graph's schemas name."""
    return graph.copy(update={"checkpointer": store.saver_for(graph)})


class HistoryWindow(BaseModel):
    """Some of a thread's newest checkpoints, oldest first; `more` when older ones were not read."""

    checkpoints: list[RecordedCheckpoint]
    more: bool


def _recorded(snap: Any) -> RecordedCheckpoint:
    meta = dict(snap.metadata or {})
    cfg = snap.config.get("configurable", {})
    parent = (snap.parent_config or {}).get("configurable", {}).get("checkpoint_id")
    return RecordedCheckpoint(
        checkpoint_id=cfg.get("checkpoint_id") or "", parent_checkpoint_id=parent, step=meta.get("step"),
        source=meta.get("source"), created_at=snap.created_at, next=tuple(snap.next), values=state_values(snap.values),
        metadata=meta,
        tasks=[RecordedTask(id=str(t.id), name=str(t.name),
                            writes=t.result if isinstance(t.result, dict) or t.result is None else {"__return__": t.result},
                            error=None if getattr(t, "error", None) is None else str(t.error))
               for t in snap.tasks])


def read_window(graph: Any, thread_id: str, *, limit: int = WINDOW, before: Optional[str] = None) -> HistoryWindow:
    """The newest `limit` checkpoints of `thread_id` (older than checkpoint `before`), oldest first.
    `graph` is compiled on the store's saver (`on_store`). One more is asked for to know whether there are more."""
    config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    before_cfg = {"configurable": {"thread_id": thread_id, "checkpoint_ns": "", "checkpoint_id": before}} if before else None
    try:
        snaps = list(graph.get_state_history(config, limit=limit + 1, before=before_cfg))
    except CheckpointerError:
        raise
    except Exception as exc:  # noqa: BLE001 - a checkpoint this langgraph-checkpoint cannot decode
        raise CheckpointerError(unreadable(exc)) from None
    if not snaps and before is None:
        raise CheckpointerError(_("no thread {id} in this checkpointer").format(id=repr(thread_id)))
    items = [_recorded(s) for s in snaps[:limit]]
    problem = foreign_nodes(graph, [*stored_nodes(graph.checkpointer, thread_id),
                                    *(n for c in items for n in (*c.next, *(t.name for t in c.tasks)))])
    if problem:
        raise CheckpointerError(problem)
    items.reverse()
    return HistoryWindow(checkpoints=items, more=len(snaps) > limit)


def fork_thread(store: ThreadStore, thread_id: str, target: Any, new_thread_id: str, *, graph: Any = None) -> int:
    """Copy every checkpoint of `thread_id` (all namespaces, oldest first, with its pending writes) into the
    saver `target` as `new_thread_id`; returns how many. The ids are kept (task ids derive from them) and the
    channel versions are passed (a saver given `{}` drops the values), so `Command(resume=...)` continues in the
    copy exactly as it would in the original; copying only the newest checkpoint would restart a subgraph."""
    saver = store.saver if graph is None else store.saver_for(graph)  # decodes the graph's own types too
    try:
        tuples = list(saver.list({"configurable": {"thread_id": thread_id}}))
    except Exception as exc:  # noqa: BLE001
        raise CheckpointerError(unreadable(exc)) from None
    if not tuples:
        raise CheckpointerError(_("no thread {id} in this checkpointer").format(id=repr(thread_id)))
    tuples.sort(key=lambda t: t.config["configurable"]["checkpoint_id"])
    for tup in tuples:
        ns = tup.config["configurable"].get("checkpoint_ns", "")
        parent = (tup.parent_config or {}).get("configurable", {}).get("checkpoint_id")
        cfg: dict[str, Any] = {"configurable": {"thread_id": new_thread_id, "checkpoint_ns": ns}}
        if parent:
            cfg["configurable"]["checkpoint_id"] = parent
        saved = target.put(cfg, tup.checkpoint, tup.metadata, dict(tup.checkpoint.get("channel_versions") or {}))
        by_task: dict[str, list[tuple[str, Any]]] = defaultdict(list)
        for task_id, channel, value in tup.pending_writes or ():
            by_task[task_id].append((channel, value))
        for task_id, writes in by_task.items():
            target.put_writes(saved, writes, task_id)
    return len(tuples)


def pending_interrupts(graph: Any, thread_id: str) -> tuple[Any, ...]:
    """The `interrupt()` calls a stored thread waits on (`graph` compiled on the store's saver)."""
    from rag_debugger.debugger.records import PendingInterrupt

    try:
        snap = graph.get_state({"configurable": {"thread_id": thread_id}})
    except Exception as exc:  # noqa: BLE001
        raise CheckpointerError(unreadable(exc)) from None
    return tuple(PendingInterrupt(node=str(t.name), task_id=str(t.id), interrupt_id=str(getattr(i, "id", "") or ""),
                                  value=getattr(i, "value", i))
                 for t in snap.tasks for i in (getattr(t, "interrupts", ()) or ()))


def stepper_on_thread(store: ThreadStore, thread_id: str, graph: Any, *, own: Any, fork_id: str,
          context: Any = None, at: Optional[str] = None) -> tuple[Any, bool]:
    """A live `GraphStepper` at the newest checkpoint of a stored thread, and whether it is a fork.

    Writable store: the stepper runs `graph` on the store's saver, on the thread itself (what the user's
    application would do with `Command(resume=...)`). Read-only: the thread is copied into `own` (the
    debugger's checkpointer) as `fork_id` first, and the stepper runs there; the user's database is not written.

    `at`, a past checkpoint id: go on from there instead. LangGraph's own time travel does it: `update_state(
    config at that checkpoint, None, as_node="__copy__")` writes a copy of it as the new head (source `fork`, its
    `Send` tasks kept; without `__copy__` LangGraph applies an empty update as the last node and moves on), in
    the fork or, writable, in the user's thread (the newer checkpoints stay, on another branch)."""
    from rag_debugger.debugger.stepper import GraphStepper

    if store.source.writable:
        bound, tid, forked = on_store(graph, store), thread_id, False
    else:
        fork_thread(store, thread_id, own, fork_id, graph=graph)
        bound, tid, forked = graph.copy(update={"checkpointer": own}), fork_id, True
    if at:
        past = {"configurable": {"thread_id": tid, "checkpoint_ns": "", "checkpoint_id": at}}
        try:
            if bound.checkpointer.get_tuple(past) is None:
                raise LookupError(_("no such checkpoint in this thread"))
            bound.update_state(past, None, as_node="__copy__")
        except Exception as exc:  # noqa: BLE001 - an unknown checkpoint, or one this graph cannot read
            raise CheckpointerError(_("cannot go on from checkpoint {id}: {error}").format(
                id=at, error=_scrub(f"{type(exc).__name__}: {exc}", store.source)[:300])) from None
    stepper = GraphStepper(bound, thread_id=tid, context=context)
    stepper.attach(tid)
    return stepper, forked


__all__ = [
    "CheckpointerError", "CheckpointerSource", "ThreadStore", "ThreadSummary", "ThreadPage", "SubgraphThread",
    "HistoryWindow", "parse_checkpointer_url", "open_store", "on_store", "read_window", "fork_thread", "redact",
    "uuid6_time", "foreign_nodes", "pending_interrupts", "stepper_on_thread", "PAGE_SIZE", "WINDOW",
]
