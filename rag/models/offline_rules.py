"""The data of the offline rule-based provider, and the lexical helpers its rules share.

Why a separate module: the rules (`rag.models.offline`) must stay pure functions of (question,
evidence, config); every marker, stop word, synonym and threshold is data in
`offline_rules.json`, loaded once into a frozen pydantic object so a typo fails at load time with
the field's name instead of silently disabling a rule.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Optional

from pydantic import BaseModel, ConfigDict, Field, model_validator

RULES_PATH = Path(__file__).resolve().parent / "offline_rules.json"

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
#: Latin words (with dotted versions such as 2.1 or 3.4.1 and hyphenated model names) or CJK runs.
_WORD = re.compile(r"[0-9A-Za-z\u00c0-\u024f]+(?:[.\-'][0-9A-Za-z]+)*|[\u3400-\u9fff\uf900-\ufaff]+")
_LATIN_WORD = re.compile(r"[0-9a-z\u00c0-\u024f]+(?:[.\-'][0-9a-z]+)*")
_NUMERIC = re.compile(r"^[\d.\-]+$")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class PlannerRules(_Frozen):
    zh_conjunctions: tuple[str, ...]
    en_conjunctions: tuple[str, ...]
    zh_comparison_markers: tuple[str, ...]
    en_comparison_markers: tuple[str, ...]
    zh_lead_words: tuple[str, ...]
    en_lead_words: tuple[str, ...]
    zh_predicate_markers: tuple[str, ...]
    zh_clause_markers: tuple[str, ...]
    en_question_starts: tuple[str, ...]
    en_prepositions: tuple[str, ...]
    zh_filler_words: tuple[str, ...]
    en_filler_words: tuple[str, ...]
    zh_compare_template: str
    en_compare_template: str
    en_comparison_leads: tuple[str, ...] = ()
    en_comparison_verbs: tuple[str, ...] = ()
    max_sub_questions: int = Field(4, ge=2, le=4)


class TermRules(_Frozen):
    en_stop_words: frozenset[str]
    zh_stop_words: frozenset[str]
    strip_suffixes_en: tuple[str, ...]
    min_en_stem_chars: int = 3


class SlotRule(_Frozen):
    name_zh: str
    name_en: str
    values: tuple[str, ...]


class GraderRules(_Frozen):
    answer_top_n: int = Field(3, ge=1)
    strong_relevance: float = Field(0.6, ge=0, le=1)
    sufficient_coverage: float = Field(0.99, ge=0, le=1)
    sufficient_after_rewrite: float = Field(0.5, ge=0, le=1)
    min_relevant_coverage: float = Field(0.5, ge=0, le=1)
    max_absent_share: float = Field(0.5, gt=0, le=1)
    idf_weighting: bool = True
    leg_agreement: bool = True
    slot_min_coverage: float = Field(0.99, ge=0, le=1)
    candidate_min_coverage: float = Field(0.5, ge=0, le=1)
    zh_qualifier_pattern: str
    en_qualifier_pattern: str
    zh_scope_prompt: str
    en_scope_prompt: str
    zh_slot_prompt: str
    en_slot_prompt: str
    zh_referent_patterns: tuple[str, ...] = ()
    en_referent_patterns: tuple[str, ...] = ()
    zh_referent_prompt: str = "你说的“{referent}”指的是什么？"
    en_referent_prompt: str = "Which one do you mean by “{referent}”?"
    slots: tuple[SlotRule, ...]
    min_slot_values: int = Field(2, ge=2)


class RewriterRules(_Frozen):
    specific_patterns: tuple[str, ...]
    zh_step_back_template: str
    en_step_back_template: str
    zh_hyde_template: str
    en_hyde_template: str
    zh_hyde_fallback: str
    en_hyde_fallback: str


_FIELD = re.compile(r"\{(\w*)[^{}]*\}")


class Bilingual(_Frozen):
    """One reason in English and Chinese, with the same `{placeholders}` in both. A reason that counts
    something (`{n}`) has English's singular in `en_one`: Chinese has one form, English two, and
    "top 2 chunk(s)" read as a form that was never filled in. The catalogue's `ngettext` is not used
    because a reason follows the question's language, not the reader's (`ReasonTexts`)."""

    en: str
    zh: str
    en_one: Optional[str] = None
    """The English words when `n` is 1 (`en` is then the plural)."""

    @model_validator(mode="after")
    def _same_placeholders(self) -> "Bilingual":
        if set(_FIELD.findall(self.en)) != set(_FIELD.findall(self.zh)):
            raise ValueError(f"en and zh must have the same placeholders: {self.en!r} / {self.zh!r}")
        if self.en_one is not None and ("n" not in _FIELD.findall(self.en)
                                        or set(_FIELD.findall(self.en_one)) != set(_FIELD.findall(self.en))):
            raise ValueError(f"en_one needs a count {{n}} and the placeholders of en: {self.en_one!r} / {self.en!r}")
        return self

    def say(self, zh: bool, **params: object) -> str:
        if zh:
            return self.zh.format(**params)
        one = self.en_one is not None and params.get("n") == 1
        return (self.en_one if one and self.en_one is not None else self.en).format(**params)


class ReasonTexts(_Frozen):
    """The words of every reason the offline provider gives. Like its HITL prompts, a reason follows
    the QUESTION's language (not the reader's): it is the provider's output, recorded with the run."""

    several_questions: Bilingual
    several_items: Bilingual
    one_intent: Bilingual
    no_evidence: Bilingual
    no_content_words: Bilingual
    off_topic: Bilingual
    low_coverage: Bilingual
    only_found: Bilingual
    legs_disagree: Bilingual
    unnamed_referent: Bilingual
    several_candidates: Bilingual
    missing_slot: Bilingual
    coverage: Bilingual
    not_near_top: Bilingual
    never_in_kb: Bilingual
    after_rewrite: Bilingual


class OfflineRules(_Frozen):
    provider: str = "offline-rules"
    reason_prefix: str = "[offline rules]"
    zh_reason_prefix: str = "[离线规则]"
    planner: PlannerRules
    terms: TermRules
    synonyms: dict[str, tuple[str, ...]]
    grader: GraderRules
    rewriter: RewriterRules
    reasons: ReasonTexts

    def tag(self, text: str, zh: bool = False) -> str:
        """Every reason says plainly that rules, not a model, produced it (in the question's language)."""
        return f"{self.zh_reason_prefix if zh else self.reason_prefix} {text}"

    def say(self, reason: str, zh: bool, **params: object) -> str:
        """The words of `reason` (a field of `ReasonTexts`) in the question's language, untagged."""
        return getattr(self.reasons, reason).say(zh, **params)

    @staticmethod
    def join(items: Iterable[str], zh: bool) -> str:
        """A list inside a reason: 、 between Chinese items, a comma between English ones."""
        return ("、" if zh else ", ").join(items)


def load_offline_rules(path: Optional[Path] = None) -> OfflineRules:
    """Read and validate a rules file (the bundled one by default)."""
    data = json.loads(Path(path or RULES_PATH).read_text(encoding="utf-8"))
    data["synonyms"] = {k: v for k, v in data.get("synonyms", {}).items() if not k.startswith("_")}
    return OfflineRules.model_validate(data)


@lru_cache(maxsize=1)
def default_offline_rules() -> OfflineRules:
    return load_offline_rules()


# ---------------------------------------------------------------------------------------------
# lexical helpers (pure)
# ---------------------------------------------------------------------------------------------

def is_chinese(text: str) -> bool:
    return bool(_CJK.search(text or ""))


def is_numeric(term: str) -> bool:
    return bool(_NUMERIC.match(term))


def _jieba_cut(text: str) -> list[str]:
    """jieba words of a CJK run. The retrieval package already initialises jieba with a cache dir
    of its own; reuse that when present so jieba is set up in one place."""
    try:
        from rag.retrieval.tokenize import _jieba  # noqa: PLC0415 - optional shared initialiser

        jieba = _jieba()
    except Exception:  # noqa: BLE001 - fall back to a plain import
        import logging

        import jieba  # type: ignore[no-redef]

        jieba.setLogLevel(logging.WARNING)
    return jieba.lcut(text)


def stem_en(word: str, rules: OfflineRules) -> str:
    """A tiny suffix stripper: enough for supports/supported/support and drains/drain, no more."""
    w = word.lower()
    for suffix in rules.terms.strip_suffixes_en:
        if w.endswith(suffix) and len(w) - len(suffix) >= rules.terms.min_en_stem_chars and not w.endswith("ss"):
            w = w[: -len(suffix)]
            break
    if w.endswith("e") and len(w) - 1 >= rules.terms.min_en_stem_chars:
        w = w[:-1]
    return w


def content_terms(text: str, rules: OfflineRules) -> list[str]:
    """The question's content terms, in order, without duplicates: jieba words for Chinese, words
    for Latin text (lower-cased), stop words removed. Numbers and versions are kept (they mark a
    too-specific question) and told apart by `is_numeric`."""
    out: list[str] = []
    for match in _WORD.finditer(text or ""):
        piece = match.group(0)
        if is_chinese(piece):
            words = [w for w in _jieba_cut(piece) if w.strip()]
            words = [w for w in words if w not in rules.terms.zh_stop_words]
        else:
            w = piece.lower()
            words = [] if w in rules.terms.en_stop_words else [w]
        for w in words:
            if w not in out:
                out.append(w)
    return out


class EvidenceText:
    """One evidence text prepared for coverage checks (lower-cased text and its English stems)."""

    def __init__(self, text: str, rules: OfflineRules):
        self.raw = text or ""
        self.lower = self.raw.lower()
        self.stems = {stem_en(w, rules) for w in _LATIN_WORD.findall(self.lower)}


def _phrase_in(phrase: str, ev: EvidenceText, rules: OfflineRules) -> bool:
    p = phrase.lower()
    if is_chinese(p):
        return p in ev.lower
    words = _LATIN_WORD.findall(p)
    if len(words) == 1:
        return stem_en(words[0], rules) in ev.stems or (is_numeric(words[0]) and words[0] in ev.lower)
    return p in ev.lower


def term_covered(term: str, evidence: Iterable[EvidenceText], rules: OfflineRules) -> bool:
    """A term is covered when it, or a word the knowledge base uses for it (the synonym table),
    occurs in some evidence text."""
    variants = (term, *rules.synonyms.get(term, ()))
    return any(_phrase_in(v, ev, rules) for ev in evidence for v in variants)


def coverage(terms: list[str], evidence: list[EvidenceText], rules: OfflineRules) -> float:
    if not terms:
        return 0.0
    return sum(1 for t in terms if term_covered(t, evidence, rules)) / len(terms)
