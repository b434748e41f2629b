"""Chinese-aware tokenization for the sparse leg.

`bm25s.tokenize` keeps a run of Chinese characters as ONE token, so a query for 丹瑾 would never
match 丹瑾是衍射属性. jieba segments Chinese; Latin words are lower-cased and kept whole. jieba's
dictionary cache goes to our cache dir (not 9 MB of /tmp litter) and its chatty logger is silenced.
"""
from __future__ import annotations

import logging
import re
import threading
from functools import lru_cache

from rag.ingest.paths import cache_root

_init_lock = threading.Lock()
_ready = False

#: Tokens that carry no meaning for ranking (punctuation, whitespace, a few function words).
_STOP = frozenset(
    {"的", "了", "是", "在", "和", "与", "及", "或", "吗", "呢", "吧", "啊", "a", "an", "the", "of", "to",
     "is", "are", "and", "or", "in", "on", "for", "what", "which", "who", "how", "does", "do"}
)
_WORD = re.compile(r"[0-9a-z\u00c0-\u024f]+(?:[._'][0-9a-z]+)*|[\u3400-\u9fff\uf900-\ufaff]+", re.IGNORECASE)


def _jieba():
    """Import and initialise jieba once (about 0.3–1 s), with a cache dir of ours."""
    global _ready
    import jieba

    if _ready:
        return jieba
    with _init_lock:
        if not _ready:
            logging.getLogger("jieba").setLevel(logging.WARNING)
            jieba.setLogLevel(logging.WARNING)
            tmp = cache_root() / "jieba"
            try:
                tmp.mkdir(parents=True, exist_ok=True)
                jieba.dt.tmp_dir = str(tmp)
            except OSError:  # read-only home: jieba then just skips its cache file
                pass
            jieba.initialize()
            _ready = True
    return jieba


def tokenize(text: str) -> list[str]:
    """Tokens for BM25: jieba words for CJK runs, lower-cased words otherwise, stop words dropped."""
    jieba = _jieba()
    out: list[str] = []
    for match in _WORD.finditer(text or ""):
        piece = match.group(0)
        if "\u3400" <= piece[0] <= "\u9fff" or "\uf900" <= piece[0] <= "\ufaff":
            out.extend(w for w in jieba.lcut(piece) if w.strip() and w not in _STOP)
        else:
            word = piece.lower()
            if word not in _STOP:
                out.append(word)
    return out


@lru_cache(maxsize=2048)
def tokenize_query(text: str) -> tuple[str, ...]:
    """Cached query tokens: the graph re-runs the same query on retries and sub-agents."""
    return tuple(tokenize(text))
