"""The run document: one recorded run as JSON (`format` "rag-debugger-run", version 1), what the export
writes and the import, the replay and the comparison read.

It holds everything needed to step through the run "exactly as recorded" with no model and no
knowledge base: every checkpoint of the thread in order (values, next tasks, metadata and each task's
own writes), the progress steps, the normalized trace, the prompt version (and its texts) and the
public settings.

The SHA-256 over the canonical JSON of the content is an INTEGRITY CHECK against accidents (a truncated
download, a stray edit, a damaged disk), not a signature: anyone can recompute it, so it does not prove
who made a file. Exports are meant to travel between machines (the demo pack was recorded elsewhere),
which a per-installation key could not verify; and an import never executes anything, it only
replays what the file says. docs/decisions.md has the reasoning.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any, Literal, Mapping, Optional

from pydantic import BaseModel, Field

from rag.runs.run_info import RunInfo
from rag.schemas import ProgressStep
from rag_debugger.debugger.replay import RecordedCheckpoint

FORMAT = "rag-debugger-run"
FORMAT_VERSION = 1
#: Where a run recorded by the debugger keeps its steps' measured timings (`rag_debugger.debugger.replay.StepTiming`:
#: duration, lanes, model calls) in its result, so a replay draws the same waterfall. Runs recorded before
#: (and runs that failed, which store no result) have none: their replay says so, unless the run used the
#: offline rules (no model calls to show).
STEP_TIMINGS = "step_timings"


class RunDocument(BaseModel):
    """The export format (version 1)."""

    format: Literal["rag-debugger-run"]
    format_version: int
    exported_at: str
    run: RunInfo
    graph: Literal["main", "resume", "graph"]
    """`graph`: a run of a graph of your own (`run.graph_spec`), recorded by `rag.runs.graph_runs`."""
    label: Optional[str] = None
    """A human title (the demo pack sets the demo's label)."""
    head_checkpoint_id: Optional[str] = None
    checkpoints: list[RecordedCheckpoint] = Field(min_length=1)
    progress: list[ProgressStep] = Field(default_factory=list)
    trace: Optional[dict[str, Any]] = None
    result: Optional[dict[str, Any]] = None
    prompt_version: Optional[str] = None
    prompts: Optional[dict[str, str]] = None
    settings: dict[str, Any] = Field(default_factory=dict)
    feedback: list[dict[str, Any]] = Field(default_factory=list)
    """People's feedback on the run (`rag.runs.feedback.Feedback` without its run id); absent in older files."""
    sha256: str


def canonical_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def checksum(doc: Mapping[str, Any]) -> str:
    """SHA-256 of the document without its own `sha256` field."""
    body = {k: v for k, v in doc.items() if k != "sha256"}
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()
