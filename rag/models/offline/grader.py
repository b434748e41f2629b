"""The offline grader: IDF-weighted lexical coverage of the question's content terms in the evidence.

The weights and the words the knowledge base never uses come from the retriever's corpus statistics
(`GraderInput.corpus`; every word weighs 1 without them), plus, with a dense leg, whether both recall
legs found the graded chunks. Absolute retrieval scores are deliberately ignored (BM25, RRF ~0.016 and
rerank scores are not comparable); only the ORDER of the evidence matters: answerability looks at the
top `answer_top_n` chunks, because that is what a reader sees first, while relevance looks at all of
them. `clarify` / `scope_select` are proposed only on evidence (a condition the answering chunks vary
by, competing qualified names, an unnamed referent), never because nothing matched; after one rewrite
the judge settles on answer or no_knowledge.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from typing import Optional

from rag.models.base import GraderInput
from rag.models.offline_rules import (
    EvidenceText,
    OfflineRules,
    content_terms,
    coverage,
    default_offline_rules,
    is_chinese,
    is_numeric,
    term_covered,
)
from rag.retrieval.retriever import CorpusStats
from rag.schemas import EvidenceGrade


def _file_key(doc: dict, index: int) -> str:
    return str(doc.get("filename") or f"doc{index}")


def _scope_candidates(
    question: str, terms: list[str], docs: list[dict], evs: list[EvidenceText], r: OfflineRules
) -> tuple[Optional[str], list[str]]:
    """Two or more documents that match the question's key term but name different things with it
    ("Nova Thermostat" / "Nova Speaker", "白鸦（可招募角色）" / "白鸦（第三章首领）").

    The label of a document is the most frequent qualified form of the term in its chunks; a
    question that already names one of the qualifiers is not ambiguous."""
    g = r.grader
    q_low = question.lower()
    for term in terms:
        if is_numeric(term):
            continue
        pattern = (g.zh_qualifier_pattern if is_chinese(term) else g.en_qualifier_pattern).format(term=re.escape(term))
        by_file: dict[str, Counter] = {}
        file_docs: dict[str, list[int]] = {}
        for i, (doc, ev) in enumerate(zip(docs, evs, strict=False)):
            if not term_covered(term, [ev], r):
                continue
            key = _file_key(doc, i)
            file_docs.setdefault(key, []).append(i)
            counter = by_file.setdefault(key, Counter())
            for m in re.finditer(pattern, ev.raw):
                counter[(m.group(0).strip(), m.group(1).strip())] += 1
        labels: dict[str, tuple[str, list[int]]] = {}
        for key, counter in by_file.items():
            if not counter:
                continue
            (label, qualifier), _ = counter.most_common(1)[0]
            entry = labels.setdefault(label, (qualifier, []))
            entry[1].extend(file_docs[key])
        if len(labels) < 2:
            continue
        if any(qualifier.lower() in q_low for qualifier, _ in labels.values()):
            continue
        kept = [
            (min(idx), label) for label, (_, idx) in labels.items()
            if coverage(terms, [evs[i] for i in idx], r) >= g.candidate_min_coverage
        ]
        if len(kept) >= 2:
            shown = re.search(re.escape(term), question, flags=re.IGNORECASE)
            return (shown.group(0) if shown else term), [label for _, label in sorted(kept)]
    return None, []


def _missing_slot(
    question: str, terms: list[str], evs: list[EvidenceText], r: OfflineRules
) -> tuple[Optional[str], list[str]]:
    """The best-matching evidence lists variants of one condition (platform, server region ...)
    and the question fixes none of them: the answer depends on a slot the user has to fill."""
    scores = [coverage(terms, [ev], r) for ev in evs]
    if not scores or max(scores) < max(r.grader.slot_min_coverage, 1e-9):
        return None, []  # only chunks that answer the question can show that the answer varies
    best = [ev for ev, s in zip(evs, scores, strict=False) if s >= max(scores) - 1e-9]
    text = " ".join(ev.raw for ev in best)
    zh = is_chinese(question)

    def present(value: str, haystack: str) -> bool:
        if is_chinese(value):
            return value in haystack
        return re.search(rf"(?<![A-Za-z]){re.escape(value)}(?![A-Za-z])", haystack, flags=re.IGNORECASE) is not None

    for slot in r.grader.slots:
        if any(present(v, question) for v in slot.values):
            continue
        found = [v for v in slot.values if present(v, text)]
        if len(found) >= r.grader.min_slot_values:
            return (slot.name_zh if zh else slot.name_en), found
    return None, []


def _term_weights(terms: list[str], corpus: Optional[CorpusStats], r: OfflineRules) -> tuple[dict[str, float], list[str]]:
    """(weight of each term the knowledge base knows, the terms it never uses).

    The weight is the term's BM25 IDF in the knowledge base, so a word every chunk holds (object,
    method) counts less than the word that names the topic; without statistics every term weighs
    1. A term with a synonym in the rules file is known (the KB says it in other words), and a
    term the statistics do not list is unknown, not absent: it takes the mean weight."""
    if corpus is None or corpus.documents <= 0 or not r.grader.idf_weighting:
        return {t: 1.0 for t in terms}, []
    n = corpus.documents
    weights: dict[str, float] = {}
    absent: list[str] = []
    for t in terms:
        df = corpus.df.get(t.lower())
        if df is None or (df == 0 and r.synonyms.get(t)):
            continue
        if df == 0:
            absent.append(t)
        else:
            weights[t] = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
    mean = sum(weights.values()) / len(weights) if weights else 1.0
    for t in terms:
        if t not in weights and t not in absent:
            weights[t] = mean
    return weights, absent


def _weighted(weights: dict[str, float], evs: list[EvidenceText], r: OfflineRules) -> float:
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    return sum(w for t, w in weights.items() if term_covered(t, evs, r)) / total


def _unnamed_referent(question: str, r: OfflineRules) -> Optional[str]:
    """What the question points at without naming it ("this method", "does it"), or None."""
    for pattern in (r.grader.zh_referent_patterns if is_chinese(question) else r.grader.en_referent_patterns):
        m = re.search(pattern, question, flags=re.IGNORECASE)
        if m:
            return m.group(m.lastindex or 0)
    return None


def grade_evidence(inp: GraderInput, rules: Optional[OfflineRules] = None) -> EvidenceGrade:
    """Relevance and answerability from IDF-weighted lexical coverage, out-of-vocabulary words from
    the knowledge base's statistics; ambiguity from competing candidates, condition variants and
    an unnamed referent. The route is a proposal; the graph's route correction has the last word."""
    r = rules or default_offline_rules()
    g = r.grader
    question = inp.question
    zh = is_chinese(question)
    docs = list(inp.docs or [])
    if not docs and inp.context.strip():
        docs = [{"filename": "context", "text": inp.context}]
    evs = [EvidenceText(str(d.get("text") or ""), r) for d in docs]
    terms = content_terms(question, r)
    key_terms = [t for t in terms if not is_numeric(t)] or terms
    if not evs or not key_terms:
        why = "no_evidence" if not evs else "no_content_words"
        return EvidenceGrade(relevance="none", answerability="none", confidence=0.9, route="no_knowledge",
                             reason=r.tag(r.say(why, zh), zh))
    weights, absent = _term_weights(key_terms, inp.corpus, r)
    if absent and len(absent) / len(key_terms) >= g.max_absent_share:
        return EvidenceGrade(
            relevance="none", answerability="none", confidence=0.9, route="no_knowledge",
            reason=r.tag(r.say("off_topic", zh, absent=len(absent), total=len(key_terms), words=r.join(absent, zh)),
                         zh),
        )
    rel_cov = _weighted(weights, evs, r)
    if rel_cov < g.min_relevant_coverage:
        found = [t for t in weights if term_covered(t, evs, r)]
        return EvidenceGrade(
            relevance="none", answerability="none", confidence=0.8, route="no_knowledge",
            reason=r.tag(r.say("low_coverage", zh, coverage=f"{rel_cov:.0%}",
                               found=r.say("only_found", zh, words=r.join(found, zh)) if found else ""), zh),
        )
    relevance = "strong" if rel_cov >= g.strong_relevance else "weak"
    # with a dense leg: did the two independent recall legs (words, meaning) find the same chunks?
    both = inp.corpus.both_legs if inp.corpus is not None and g.leg_agreement else {}
    agree = [bool(both.get(str(d.get("chunk_id")))) for d in docs] if both else []
    if agree and not any(agree) and relevance != "strong":
        return EvidenceGrade(
            relevance="none", answerability="none", confidence=0.8, route="no_knowledge",
            reason=r.tag(r.say("legs_disagree", zh, coverage=f"{rel_cov:.0%}"), zh),
        )
    key_terms = [t for t in key_terms if t in weights]  # question order: the first key term names the topic

    referent = _unnamed_referent(question, r)
    if referent:
        prompt = (g.zh_referent_prompt if zh else g.en_referent_prompt).format(referent=referent)
        return EvidenceGrade(
            relevance=relevance, answerability="partial", ambiguity="missing_slot", confidence=0.7,
            route="clarify", missing_slots=[referent], hitl_prompt=prompt,
            reason=r.tag(r.say("unnamed_referent", zh, referent=referent), zh),
        )
    term, options = _scope_candidates(question, key_terms, docs, evs, r)
    if term:
        prompt = (g.zh_scope_prompt if zh else g.en_scope_prompt).format(term=term)
        return EvidenceGrade(
            relevance=relevance, answerability="partial", ambiguity="multiple_candidates", confidence=0.8,
            route="scope_select", hitl_options=options, hitl_prompt=prompt,
            reason=r.tag(r.say("several_candidates", zh, term=term, n=len(options), options=r.join(options, zh)), zh),
        )
    slot, values = _missing_slot(question, key_terms, evs, r)
    if slot:
        sep = "、" if zh else ", "
        prompt = (g.zh_slot_prompt if zh else g.en_slot_prompt).format(slot=slot, values=sep.join(values))
        return EvidenceGrade(
            relevance=relevance, answerability="partial", ambiguity="missing_slot", confidence=0.8,
            route="clarify", missing_slots=[slot], hitl_options=values, hitl_prompt=prompt,
            reason=r.tag(r.say("missing_slot", zh, slot=slot, values=r.join(values, zh)), zh),
        )

    top = evs[: g.answer_top_n]
    ans_cov = _weighted(weights, top, r)
    missing = [t for t in key_terms if not term_covered(t, top, r)]
    settled = inp.rewrite_count >= 1 and not inp.is_sub_agent
    need = g.sufficient_after_rewrite if settled else g.sufficient_coverage
    if ans_cov >= need:
        answerability, route = "sufficient", ("answer" if relevance == "strong" else "rewrite")
        if settled:
            relevance, route = "strong", "answer"
    elif settled:
        # the rewrite was the chance to find better wording; partial now would only ask the user
        answerability, route = "none", "no_knowledge"
    else:
        answerability, route = ("partial" if ans_cov > 0 else "none"), "rewrite"
    detail = (
        r.say("coverage", zh, n=len(top), top=f"{ans_cov:.0%}", whole=f"{rel_cov:.0%}")
        + (r.say("not_near_top", zh, terms=r.join(missing, zh)) if missing else "")
        + (r.say("never_in_kb", zh, terms=r.join(absent, zh)) if absent else "")
        + (r.say("after_rewrite", zh) if settled else "")
    )
    confidence = round(0.4 + 0.5 * ans_cov, 2)
    return EvidenceGrade(relevance=relevance, answerability=answerability, confidence=confidence, route=route,
                         reason=r.tag(detail, zh))
