"""The offline rewriter: step-back for a question full of specifics (numbers, versions, dates), HyDE
for a question in words the knowledge base does not use (the synonym table of the rules file)."""
from __future__ import annotations

import re
from typing import Optional

from rag.models.base import RewriterInput
from rag.models.offline_rules import (
    OfflineRules,
    content_terms,
    default_offline_rules,
    is_chinese,
    is_numeric,
)
from rag.schemas import MAX_HYDE_CHARS, MAX_STEP_BACK_CHARS, RewritePlan


def _specifics(question: str, r: OfflineRules) -> list[str]:
    found: list[str] = []
    for pattern in r.rewriter.specific_patterns:
        found.extend(m.group(0) for m in re.finditer(pattern, question))
    return found


def _topic(question: str, r: OfflineRules, drop: list[str]) -> str:
    """The question's content words in their original spelling, specifics removed."""
    text = question
    for s in sorted(drop, key=len, reverse=True):
        text = text.replace(s, " ")
    if is_chinese(text):
        out = ""
        for piece in re.findall(r"[0-9A-Za-z]+(?:[.\-'][0-9A-Za-z]+)*|[\u3400-\u9fff\uf900-\ufaff]+", text):
            if is_chinese(piece):
                out += "".join(t for t in content_terms(piece, r) if not is_numeric(t))
            elif piece.lower() not in r.terms.en_stop_words and not is_numeric(piece):
                out += f" {piece} "
        return re.sub(r"\s+", " ", out).strip()
    words = re.findall(r"[0-9A-Za-z]+(?:[.\-'][0-9A-Za-z]+)*", text)
    return " ".join(w for w in words if w.lower() not in r.terms.en_stop_words and not is_numeric(w))


def rewrite_question(inp: RewriterInput, rules: Optional[OfflineRules] = None) -> RewritePlan:
    """Step-back when specifics (numbers, versions, dates) over-constrain the search; HyDE when the
    question's words are not the knowledge base's words (or it is simply vague)."""
    r = rules or default_offline_rules()
    rw = r.rewriter
    q = inp.question.strip()
    zh = is_chinese(q)
    terms = content_terms(q, r)
    specifics = _specifics(q, r)
    topic = _topic(q, r, specifics) or q
    vocab = list(dict.fromkeys(v for t in terms for v in r.synonyms.get(t, ())))
    sep = "、" if zh else ", "
    if specifics:
        general = (rw.zh_step_back_template if zh else rw.en_step_back_template).format(topic=topic)
        if vocab:
            general += f"（{sep.join(vocab)}）" if zh else f" ({sep.join(vocab)})"
        return RewritePlan(method="step_back", step_back_question=general[:MAX_STEP_BACK_CHARS])
    if vocab:
        doc = (rw.zh_hyde_template if zh else rw.en_hyde_template).format(topic=topic, vocab=sep.join(vocab))
    else:
        doc = (rw.zh_hyde_fallback if zh else rw.en_hyde_fallback).format(topic=topic)
    return RewritePlan(method="hyde", hyde_document=doc[:MAX_HYDE_CHARS])
