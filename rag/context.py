"""The per-request context: collaborators and the progress sink (docs/workflow.md §3.14).

It travels as LangGraph's runtime context (`graph.invoke(..., context=ctx)`), not in the state,
because a callable sink and live clients cannot be checkpointed. Parallel `Send` tasks share it,
so its timing bookkeeping is guarded by a lock.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Optional

from rag.schemas import ProgressStep

if TYPE_CHECKING:  # pragma: no cover
    from rag.models.base import ModelRoles
    from rag.retrieval.retriever import Retriever
    from rag.settings import RagSettings

log = logging.getLogger(__name__)

ProgressSink = Callable[[ProgressStep], Any]


@dataclass
class RagContext:
    """Everything a run needs besides its state. Build it with `rag.runtime.make_context`."""

    settings: "RagSettings"
    retriever: "Retriever"
    roles: "ModelRoles"
    progress: Optional[ProgressSink] = None
    started_at: float = field(default_factory=time.perf_counter)
    _last_step_at: Optional[float] = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def reset_clock(self) -> None:
        with self._lock:
            self.started_at = time.perf_counter()
            self._last_step_at = None

    def emit(
        self,
        icon: str,
        label: str,
        detail: str = "",
        *,
        group: Optional[str] = None,
        group_label: Optional[str] = None,
        node: Optional[str] = None,
    ) -> Optional[ProgressStep]:
        """Send one progress step. Never raises: a broken sink must not fail a run."""
        try:
            now = time.perf_counter()
            with self._lock:
                since = self._last_step_at if self._last_step_at is not None else self.started_at
                self._last_step_at = now
            step = ProgressStep(
                icon=icon,
                label=label,
                detail=detail,
                elapsed_ms=int((now - self.started_at) * 1000),
                stage_elapsed_ms=int((now - since) * 1000),
                group=group,
                group_label=group_label,
                node=node,
            )
            if self.progress is not None:
                self.progress(step)
            return step
        except Exception:  # noqa: BLE001 - emitting must never fail a run
            log.warning("progress sink failed; step dropped", exc_info=True)
            return None
