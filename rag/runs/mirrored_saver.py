"""A checkpointer that keeps live runs in memory and copies them to the shared database, best effort.

Why: with a PostgreSQL history, the live run's checkpoints lived only in the database, so a database
that went down mid-run took the run with it (every Step waited for the pool, then failed, and time
travel had nothing to read). Here every checkpoint a run writes goes to memory first and then to the
database; a database write that fails marks the database lost (`on_lost`, once) and from then on only
memory is written, so Step, Continue and time travel go on without waiting. Reads of a thread this
process wrote come from memory; any other thread (a recorded run opened for replay) from the database.

`forget(thread_id)` drops a thread's memory copy once its run is replaced, so a long-lived server does
not keep every run it ever stepped.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Iterator, Optional, Sequence

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver, ChannelVersions, Checkpoint, CheckpointMetadata, CheckpointTuple
from langgraph.checkpoint.memory import InMemorySaver

log = logging.getLogger(__name__)


class MirroredSaver(BaseCheckpointSaver):
    """Memory first, then `primary` (best effort). `lost` is True once a write to `primary` failed."""

    def __init__(self, primary: BaseCheckpointSaver, *, on_lost: Optional[Callable[[BaseException], None]] = None):
        super().__init__(serde=primary.serde)
        self.primary = primary
        self.memory = InMemorySaver(serde=primary.serde)
        self.on_lost = on_lost
        self.lost = False
        self._lock = threading.Lock()

    # ----- where a thread lives ------------------------------------------------------------
    def _thread(self, config: Optional[RunnableConfig]) -> Optional[str]:
        return ((config or {}).get("configurable") or {}).get("thread_id")

    def _in_memory(self, config: Optional[RunnableConfig]) -> bool:
        thread_id = self._thread(config)
        return thread_id is not None and thread_id in self.memory.storage

    def _copy(self, write: Callable[[], Any]) -> None:
        """Write to the database unless it is lost; a failure loses it (reported once), never raises."""
        with self._lock:  # one at a time (the saver has its own lock anyway): LangGraph writes from a background
            if self.lost:  # thread, and writes queued behind a failing one must not each wait the timeout
                return
            try:
                write()
                return
            except Exception as exc:  # noqa: BLE001 - the database is a record; the live run goes on in memory
                self.lost = True
                error = exc
        log.error("the run history database stopped answering; live runs go on in memory: %s", type(error).__name__)
        if self.on_lost is not None:
            self.on_lost(error)

    # ----- the checkpointer surface ---------------------------------------------------------
    def get_tuple(self, config: RunnableConfig) -> Optional[CheckpointTuple]:
        if self._in_memory(config) or self.lost:
            return self.memory.get_tuple(config)
        return self.primary.get_tuple(config)

    def list(self, config: Optional[RunnableConfig], *, filter: Optional[dict[str, Any]] = None,
             before: Optional[RunnableConfig] = None,
             limit: Optional[int] = None) -> Iterator[CheckpointTuple]:
        saver = self.memory if (self._in_memory(config) or self.lost) else self.primary
        return saver.list(config, filter=filter, before=before, limit=limit)

    def put(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata,
            new_versions: ChannelVersions) -> RunnableConfig:
        saved = self.memory.put(config, checkpoint, metadata, new_versions)
        self._copy(lambda: self.primary.put(config, checkpoint, metadata, new_versions))
        return saved

    def put_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = "") -> None:
        self.memory.put_writes(config, writes, task_id, task_path)
        self._copy(lambda: self.primary.put_writes(config, writes, task_id, task_path))

    def delete_thread(self, thread_id: str) -> None:
        self.memory.delete_thread(thread_id)
        self.primary.delete_thread(thread_id)

    def forget(self, thread_id: str) -> None:
        """Drop the memory copy of a thread (the database keeps its own)."""
        self.memory.delete_thread(thread_id)

    def get_next_version(self, current: Any, channel: Any) -> Any:
        return self.memory.get_next_version(current, channel)
