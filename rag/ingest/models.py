"""Boundary models of ingestion: a stored chunk of any level, and the report of an ingest run."""
from __future__ import annotations

from typing import Literal, Optional

from pydantic import BaseModel, Field

LEAF_LEVEL = 3


class ChunkRecord(BaseModel):
    """One chunk in the docstore. All three levels are stored (auto-merge needs the parents' text);
    only level-3 leaves are indexed and searched."""

    chunk_id: str
    parent_id: Optional[str] = None
    level: int = Field(ge=1, le=3)
    filename: str
    page_number: Optional[int] = None
    heading: str = ""
    text: str

    def search_text(self) -> str:
        """What the indexes see: the section heading gives a leaf its topic (a table row under
        "## 丹瑾" does not repeat the name), while the evidence shown stays the leaf's own text."""
        return f"{self.heading}\n{self.text}" if self.heading and self.heading not in self.text else self.text


class SkippedFile(BaseModel):
    filename: str
    reason: str


class IngestReport(BaseModel):
    """What an ingest run did, file by file. Skipped files are named with the reason; nothing
    else is lost when one file is bad."""

    folder: str
    store_dir: str
    ingested: list[str] = Field(default_factory=list)
    unchanged: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    skipped: list[SkippedFile] = Field(default_factory=list)
    chunk_counts: dict[str, int] = Field(default_factory=dict, description="level -> chunks in the store")
    embedded: int = 0
    embedding_error: Optional[str] = None
    cancelled: bool = Field(False, description="stopped by a Cancel: the files not reached keep their old chunks")
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        return bool(self.ingested or self.removed)


class IngestEvent(BaseModel):
    """One step of an ingest run, for a caller that draws progress (the app's knowledge-base page).

    `stage`: "start" (`total` files found), "parsing" / "chunking" a file, "ingested" (with its
    leaf `chunks`), "unchanged", "skipped" (with the `reason`), "removed", then "embedding"
    (`done` of `total` chunks; `filename` is the file of the batch's last chunk) and "finished".
    `index` is the file's 1-based position among the `total` files."""

    stage: Literal["start", "parsing", "chunking", "ingested", "unchanged", "skipped", "removed",
                   "embedding", "finished"]
    filename: Optional[str] = None
    index: int = 0
    total: int = 0
    done: int = 0
    chunks: int = 0
    reason: Optional[str] = None
