"""The local fast path of complexity classification (docs/workflow.md §3.1, §5.4).

An obviously simple question costs no model call. The rule is deliberately conservative: anything
that smells of comparison, several parts, cause or method goes to the planning model, which decides.

The default `FastPathConfig` is the reference's rule, list for list and in the reference's order:
normalize (collapse whitespace, trim, lowercase, nothing else), give up when empty or over 48
characters, on any complex marker (a plain substring), on 、, on a CJK question with two or more
spaces, on two or more DISTINCT dimension markers, on more than one ? ？ ; ；; then a simple marker
gives `single_fact_marker`, and a short text (trailing ?？。.!！ stripped, at most 18 characters)
gives `short_single_intent`. Quirks kept as the reference has them: "how " is a complex marker and
also catches "how many", so the simple marker "how many" never fires alone; "why " and "how " keep
their trailing space, so a question ending in "why" does not match.

Extra markers are opt-in (`RAG_FAST_PATH_EXTRA`, see `EXTRA_MARKER_SETS`): they only add to the
reference lists, never remove from them.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable, Optional

from pydantic import BaseModel, ConfigDict

#: The reference's CJK test: the CJK Unified Ideographs block only.
_CJK = re.compile(r"[\u4e00-\u9fff]")
_WS = re.compile(r"\s+")
#: What the short-question rule strips from the end before counting (and nothing else).
TRAILING_PUNCTUATION = "?？。.!！"


class FastPathConfig(BaseModel):
    """The fast path's markers and limits. The defaults are the reference's exact lists."""

    model_config = ConfigDict(frozen=True)

    max_chars: int = 48
    short_question_chars: int = 18
    complex_markers: tuple[str, ...] = (
        "比较", "对比", "区别", "差异", "优缺点", "优势", "劣势", "分析", "总结", "综合", "原因", "成因", "影响",
        "方案", "步骤", "如何", "为什么", "以及", "同时", "并且", "和", "与", "谁更",
        "compare", "versus", "difference", "different", "analyze", "summarize", "trade-off", "pros and cons",
        "why ", "how ", "complex",
    )
    forbidden_chars: tuple[str, ...] = ("、",)
    #: A CJK question with at least this many spaces is not obviously simple.
    min_spaces_with_cjk: int = 2
    dimension_markers: tuple[str, ...] = (
        "属性", "武器", "定位", "技能", "机制", "参数", "规格", "性能", "价格", "优点", "缺点", "作用",
    )
    #: At least this many DISTINCT dimension markers present: not obviously simple.
    min_dimension_markers: int = 2
    question_separators: tuple[str, ...] = ("?", "？", ";", "；")
    max_question_separators: int = 1
    simple_markers: tuple[str, ...] = (
        "是什么", "是谁", "哪里", "何时", "多少", "是否", "哪个", "哪种", "属性", "参数", "规格", "定义", "含义",
        "what is", "who is", "where is", "when is", "how many", "which",
    )

    def with_extra(self, names: Iterable[str]) -> "FastPathConfig":
        """This config plus the named extra marker sets (appended, de-duplicated, order kept)."""
        update: dict[str, tuple[str, ...]] = {}
        for name in names:
            try:
                extra = EXTRA_MARKER_SETS[name]
            except KeyError:
                raise ValueError(
                    f"unknown fast-path marker set {name!r}; known: {', '.join(sorted(EXTRA_MARKER_SETS))}"
                ) from None
            for field, markers in extra.items():
                current = update.get(field, getattr(self, field))
                update[field] = tuple(dict.fromkeys((*current, *markers)))
        return self.model_copy(update=update)


#: Opt-in additions to the reference lists, by name. `bilingual` covers everyday wordings the
#: reference lists miss (怎么 / 怎样 / 为何 / 不同, "vs", British spellings, English dimension words).
#: Matching stays the reference's: plain substrings, dimension markers counted once each.
EXTRA_MARKER_SETS: dict[str, dict[str, tuple[str, ...]]] = {
    "bilingual": {
        "complex_markers": (
            "不同", "优劣", "怎么", "怎样", "为何", " vs ", " vs.", "comparison", "analyse", "summarise", "tradeoff",
        ),
        "dimension_markers": (
            "attribute", "weapon", "skill", "mechanism", "parameter", "specification", "performance", "price",
        ),
        "simple_markers": ("what's",),
    },
}

DEFAULT_FAST_PATH = FastPathConfig()


@lru_cache(maxsize=16)
def fast_path_config(extra: Optional[str] = None) -> FastPathConfig:
    """The reference config, plus the comma-separated extra marker sets named in `extra`
    (`RAG_FAST_PATH_EXTRA`). Empty or None: the reference lists alone."""
    names = [n.strip() for n in (extra or "").split(",") if n.strip()]
    return DEFAULT_FAST_PATH.with_extra(names) if names else DEFAULT_FAST_PATH


def normalize_question(question: str) -> str:
    """Collapse runs of whitespace to one space, trim, lowercase. Nothing else."""
    return _WS.sub(" ", question or "").strip().lower()


def fast_path_reason(question: str, config: FastPathConfig = DEFAULT_FAST_PATH) -> Optional[str]:
    """`obvious_simple_fast_path:<rule>` when the question is obviously simple, else None."""
    text = normalize_question(question)
    if not text or len(text) > config.max_chars:
        return None
    if any(marker in text for marker in config.complex_markers):
        return None
    if any(ch in text for ch in config.forbidden_chars):
        return None
    if _CJK.search(text) and text.count(" ") >= config.min_spaces_with_cjk:
        return None
    if sum(marker in text for marker in config.dimension_markers) >= config.min_dimension_markers:
        return None
    if sum(text.count(sep) for sep in config.question_separators) > config.max_question_separators:
        return None
    if any(marker in text for marker in config.simple_markers):
        return "obvious_simple_fast_path:single_fact_marker"
    if len(text.rstrip(TRAILING_PUNCTUATION)) <= config.short_question_chars:
        return "obvious_simple_fast_path:short_single_intent"
    return None
