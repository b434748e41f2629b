"""The local fast path of complexity classification (docs/workflow.md §3.1, §5.4).

An obviously simple question costs no model call. The rule is deliberately conservative: anything
that smells of comparison, several parts, or "why / how" goes to the planning model. The markers
are data (`FastPathConfig`), not literals scattered through the code, so a deployment can tune them.

Faithful to the reference: "how " is a complex marker, which also catches "how many"; the simple
marker "how many" therefore never fires on its own. Kept as the reference codes it.
"""
from __future__ import annotations

import re
from typing import Optional

from pydantic import BaseModel, ConfigDict

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_WS = re.compile(r"\s+")
_TRAILING_PUNCT = re.compile(r"[\s?？!！。.,，;；:：]+$")


class FastPathConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    max_chars: int = 48
    short_question_chars: int = 18
    complex_markers: tuple[str, ...] = (
        # Chinese: compare / contrast / difference / pros and cons / advantage / analysis / summary /
        # cause / influence / plan / steps / how / why, and the conjunctions.
        "比较", "对比", "区别", "差异", "不同", "优缺点", "优劣", "优势", "分析", "总结", "原因", "影响",
        "方案", "步骤", "如何", "怎么", "怎样", "为什么", "为何",
        "以及", "同时", "并且", "和", "与", "谁更",
        # English (word-ish markers; "why " and "how " keep their trailing space on purpose).
        "compare", "comparison", "versus", " vs ", " vs.", "difference", "different", "analyze", "analyse",
        "summarize", "summarise", "trade-off", "tradeoff", "pros and cons", "why ", "how ", "complex",
    )
    forbidden_chars: tuple[str, ...] = ("、",)
    max_spaces_with_cjk: int = 1
    dimension_words_zh: tuple[str, ...] = (
        "属性", "武器", "角色", "技能", "机制", "参数", "规格", "性能", "价格", "优点", "缺点", "功能",
    )
    dimension_words_en: tuple[str, ...] = (
        "attribute", "weapon", "role", "skill", "mechanism", "parameter", "spec", "performance", "price",
        "pro", "con", "function",
    )
    max_dimension_words: int = 1
    question_separators: tuple[str, ...] = ("?", "？", ";", "；")
    simple_markers: tuple[str, ...] = (
        "是什么", "是谁", "哪里", "何时", "多少", "是否", "哪个", "哪种", "属性", "参数", "规格", "定义", "含义",
        "what is", "what's", "who is", "where is", "when is", "how many", "which",
    )


DEFAULT_FAST_PATH = FastPathConfig()


def normalize_question(question: str) -> str:
    """Collapse whitespace, trim, lowercase: the form every fast-path rule looks at."""
    return _WS.sub(" ", question or "").strip().lower()


def _count_dimension_words(text: str, config: FastPathConfig) -> int:
    count = sum(text.count(w) for w in config.dimension_words_zh)
    for word in config.dimension_words_en:
        # Whole words and simple plurals only: "pro" must not match "product", "spec" not "special".
        count += len(re.findall(rf"\b{re.escape(word)}s?\b", text))
    return count


def fast_path_reason(question: str, config: FastPathConfig = DEFAULT_FAST_PATH) -> Optional[str]:
    """`obvious_simple_fast_path:<rule>` when the question is obviously simple, else None."""
    text = normalize_question(question)
    if not text or len(text) > config.max_chars:
        return None
    padded = f" {text} "
    if any(marker in padded for marker in config.complex_markers):
        return None
    if any(ch in text for ch in config.forbidden_chars):
        return None
    if _CJK.search(text) and text.count(" ") > config.max_spaces_with_cjk:
        return None
    if _count_dimension_words(text, config) > config.max_dimension_words:
        return None
    if sum(text.count(sep) for sep in config.question_separators) > 1:
        return None
    if any(marker in text for marker in config.simple_markers):
        return "obvious_simple_fast_path:single_fact_marker"
    if len(_TRAILING_PUNCT.sub("", text)) <= config.short_question_chars:
        return "obvious_simple_fast_path:short_single_intent"
    return None
