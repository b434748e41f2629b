"""Three-level chunking: L1 ⊃ L2 ⊃ L3, pure functions.

Why three levels: small leaves (L3) make recall precise; when several leaves of one parent are
recalled, auto-merge swaps them for the parent (L2, then L1) so the grader and the answer see the
surrounding text. Chunks never cross a page, so every chunk has one page number.
Markdown headings start a new L1 section and the heading path travels with every leaf.
"""
from __future__ import annotations

import hashlib
import re
from typing import Iterable, Optional

from pydantic import BaseModel, Field

from rag.ingest.models import ChunkRecord

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_SEPARATORS = ("\n\n", "\n", "。", "！", "？", "；", ". ", "! ", "? ", "; ", "，", ", ", " ")


class ChunkingConfig(BaseModel):
    """Maximum characters per level. CJK text is dense, so these are characters, not tokens."""

    l1_chars: int = Field(1500, ge=50)
    l2_chars: int = Field(500, ge=20)
    l3_chars: int = Field(160, ge=10)


def _split(text: str, max_chars: int, seps: tuple[str, ...] = _SEPARATORS) -> list[str]:
    """Split on the coarsest separator that works, then pack pieces greedily up to max_chars."""
    text = text.strip()
    if len(text) <= max_chars:
        return [text] if text else []
    for i, sep in enumerate(seps):
        if sep not in text:
            continue
        parts = text.split(sep)
        pieces = [p + (sep if j < len(parts) - 1 and sep.strip() else "") for j, p in enumerate(parts)]
        units: list[str] = []
        for p in pieces:
            units.extend(_split(p, max_chars, seps[i + 1:]) if len(p.strip()) > max_chars else [p])
        return _pack(units, max_chars, sep if not sep.strip() else "")
    return [text[i:i + max_chars] for i in range(0, len(text), max_chars)]


def _pack(units: list[str], max_chars: int, joiner: str) -> list[str]:
    out: list[str] = []
    cur = ""
    for u in units:
        u = u.strip() if joiner else u
        if not u.strip():
            continue
        cand = f"{cur}{joiner}{u}" if cur else u
        if len(cand.strip()) <= max_chars:
            cur = cand
        else:
            if cur.strip():
                out.append(cur.strip())
            cur = u
    if cur.strip():
        out.append(cur.strip())
    return out


def markdown_sections(text: str) -> list[tuple[str, str]]:
    """(heading path, body) per section. A heading path like "丹瑾 > 技能" keeps the topic with
    every leaf below it."""
    sections: list[tuple[str, list[str]]] = []
    path: list[tuple[int, str]] = []
    body: list[str] = []
    heading = ""
    for line in text.splitlines():
        m = _HEADING.match(line)
        if m:
            if "".join(body).strip():
                sections.append((heading, body))
            level, title = len(m.group(1)), m.group(2).strip()
            path = [p for p in path if p[0] < level] + [(level, title)]
            heading = " > ".join(t for _, t in path)
            body = []  # the heading travels in `heading` (and so in the search text), not as a chunk
        else:
            body.append(line)
    if "".join(body).strip():
        sections.append((heading, body))
    return [(h, "\n".join(b).strip()) for h, b in sections]


def file_key(filename: str) -> str:
    return hashlib.sha1(filename.encode("utf-8")).hexdigest()[:10]


def chunk_pages(
    filename: str,
    pages: Iterable[tuple[Optional[int], str]],
    *,
    markdown: bool = False,
    config: Optional[ChunkingConfig] = None,
) -> list[ChunkRecord]:
    """All chunks of one document, parents before children. Ids are stable for the same input
    (file key, page, position), so re-ingesting an unchanged file yields the same ids."""
    cfg = config or ChunkingConfig()
    key = file_key(filename)
    out: list[ChunkRecord] = []
    for page_no, page_text in pages:
        sections = markdown_sections(page_text) if markdown else [("", page_text)]
        page_tag = f"p{page_no}" if page_no is not None else "p0"
        n1 = 0
        for heading, body in sections:
            for l1_text in _split(body, cfg.l1_chars):
                l1_id = f"{key}-{page_tag}-{n1}"
                n1 += 1
                out.append(ChunkRecord(chunk_id=l1_id, level=1, filename=filename, page_number=page_no,
                                       heading=heading, text=l1_text))
                for j, l2_text in enumerate(_split(l1_text, cfg.l2_chars)):
                    l2_id = f"{l1_id}.{j}"
                    out.append(ChunkRecord(chunk_id=l2_id, parent_id=l1_id, level=2, filename=filename,
                                           page_number=page_no, heading=heading, text=l2_text))
                    for k, l3_text in enumerate(_split(l2_text, cfg.l3_chars)):
                        out.append(ChunkRecord(chunk_id=f"{l2_id}.{k}", parent_id=l2_id, level=3,
                                               filename=filename, page_number=page_no, heading=heading,
                                               text=l3_text))
    return out
