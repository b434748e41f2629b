"""The offline provider: deterministic rules in place of the planner, grader and rewriter models.

Why it exists: the app, the demos and the tests must run with no key and no network, and still
take every route of the spec. Each role is a pure function of (input, rules) wrapped in a
`RunnableLambda`, so it satisfies the same contracts as a real model. Judgements come from the
question, the evidence and the knowledge base's own statistics, never from knowing the corpus:

- planner: a conjunction or comparison splits into 2-4 self-contained sub-questions; a comparison's
  sub-questions name the other items and keep the asked dimension;
- grader: IDF-WEIGHTED LEXICAL COVERAGE of the question's content terms in the evidence texts, the
  weights and the words the knowledge base never uses taken from the retriever's corpus statistics
  (`GraderInput.corpus`; every word weighs 1 without them), plus, with a dense leg, whether both
  recall legs found the graded chunks. Absolute retrieval scores are deliberately ignored (BM25,
  RRF ~0.016 and rerank scores are not comparable); only the ORDER of the evidence matters:
  answerability looks at the top `answer_top_n` chunks, because that is what a reader sees first,
  while relevance looks at all of them. `clarify` / `scope_select` are proposed only on evidence
  (a condition the answering chunks vary by, competing qualified names, an unnamed referent),
  never because nothing matched; after one rewrite the judge settles on answer or no_knowledge;
- rewriter: step-back for a question full of specifics (numbers, versions, dates), HyDE for a
  question in words the knowledge base does not use (the synonym table of the rules file).

The rules are measured on a corpus they were not written for: `python -m rag.eval
rag/data/eval/pydoc.jsonl --kb pydoc` (README, "How good is the offline judge?").

Every reason starts with "[offline rules]" ("[离线规则]" for a Chinese question) so a user never
mistakes it for a model's judgement. Reasons follow the question's language, as the HITL prompts the
grader writes do (the same `is_chinese` test decides both); their words are data in the rules file.
"""
from __future__ import annotations

import math
import re
from collections import Counter
from typing import Optional

from langchain_core.runnables import RunnableLambda

from rag.models.base import GraderInput, ModelRoles, PlannerInput, RewriterInput
from rag.models.offline_rules import (
    EvidenceText,
    OfflineRules,
    _jieba_cut,
    content_terms,
    coverage,
    default_offline_rules,
    is_chinese,
    is_numeric,
    term_covered,
)
from rag.retrieval.base import CorpusStats
from rag.schemas import MAX_HYDE_CHARS, MAX_STEP_BACK_CHARS, ComplexityResult, EvidenceGrade, RewritePlan

_END_PUNCT = re.compile(r"[\s?？!！。.,，;；:：]+$")
_LEAD_PUNCT = re.compile(r"^[\s,，、;；:：]+")
_Q_SPLIT = re.compile(r"[？?；;]")


def _clean(text: str) -> str:
    return _LEAD_PUNCT.sub("", _END_PUNCT.sub("", text.strip())).strip()


def _as_question(text: str, zh: bool) -> str:
    text = _clean(text)
    return f"{text}？" if zh else f"{text[:1].upper()}{text[1:]}?"


# =============================================================================================
# planner
# =============================================================================================

def _strip_lead(text: str, leads: tuple[str, ...]) -> str:
    low = text.lower()
    for lead in sorted(leads, key=len, reverse=True):
        if low.startswith(lead.lower()):
            return text[len(lead):].strip()
    return text


def _split_on(text: str, separators: tuple[str, ...]) -> list[str]:
    pattern = "|".join(re.escape(s) for s in sorted(separators, key=len, reverse=True))
    return [p.strip() for p in re.split(pattern, text, flags=re.IGNORECASE) if _clean(p)]


def _zh_sub_questions(q: str, r: OfflineRules) -> list[str]:
    p = r.planner
    comparison = any(m in q for m in p.zh_comparison_markers)
    body = _strip_lead(_clean(q), p.zh_lead_words)
    segs = [_clean(s) for s in _split_on(body, p.zh_conjunctions)]
    segs = [s for s in segs if s]
    if len(segs) < 2:
        return []
    is_clause = [any(m in s for m in p.zh_clause_markers) for s in segs]
    if all(is_clause) and not comparison:
        return [_as_question(s, True) for s in segs]
    first, last = segs[0], segs[-1]
    # head + first item: "丹瑾的属性" -> ("丹瑾的", "属性"); "丹瑾用什么武器" -> ("丹瑾用什么", "武器")
    if "的" in first:
        cut = first.rindex("的") + 1
        head, item1 = first[:cut], first[cut:]
    elif is_clause[0]:
        words = _jieba_cut(first)
        head, item1 = "".join(words[:-1]), words[-1]
    else:
        head, item1 = "", first
    # last item + tail: "青棠分别使用什么武器" -> ("青棠", "分别使用什么武器")
    words = _jieba_cut(last)
    k = next((i for i, w in enumerate(words) if i > 0 and w in p.zh_predicate_markers), len(words))
    item_n, tail = "".join(words[:k]), "".join(words[k:])
    for filler in p.zh_filler_words:
        tail = tail.replace(filler, "")
    items = [i for i in [item1, *segs[1:-1], item_n] if i]
    if comparison:
        for marker in p.zh_comparison_markers:
            tail = tail.replace(marker, "")
        if not [t for t in content_terms(f"{head}{tail}", r) if t not in items]:
            return [p.zh_compare_template.format(item=i, others="、".join(o for o in items if o != i)) for i in items]
    return [_as_question(f"{head}{i}{tail}", True) for i in items]


def _en_starts_question(seg: str, r: OfflineRules) -> bool:
    first = seg.split(" ", 1)[0].lower() if seg else ""
    return first in r.planner.en_question_starts


def _en_comparison(q: str, r: OfflineRules) -> list[str]:
    """One sub-question per compared item that names the other items and keeps the asked
    dimension: "Compare lists and tuples in terms of mutability" -> "What distinguishes lists from
    tuples in terms of mutability?"; "Compare the battery life of A and B" -> "What is the battery
    life of A?". A shared head noun goes to every item ("global and nonlocal statements")."""
    p = r.planner
    body = _clean(q)
    for lead in p.en_comparison_leads:
        body = re.sub(rf"^\s*{lead}\s+", "", body, flags=re.IGNORECASE)
    body = re.sub(rf"\s+\b(?:{'|'.join(p.en_comparison_verbs)})\b", "", body, flags=re.IGNORECASE)
    seps = tuple(s for s in p.en_conjunctions if s.strip() != "," or re.search(r"\s(and|vs\.?|versus)\s", f" {body} "))
    segs = [_clean(re.sub(r"^(?:and|or)\s+", "", s, flags=re.IGNORECASE)) for s in _split_on(body, seps)]
    segs = [s for s in segs if s]
    if len(segs) < 2:
        return []
    preps = "|".join(re.escape(x) for x in p.en_prepositions)
    # the dimension before the items: "the battery life of | A"
    head, first = "", segs[0]
    found = list(re.finditer(rf"\b(?:{preps})\b\s+", first, flags=re.IGNORECASE))
    m = found[-1] if found else None  # the last preposition
    if m is not None and m.start() > 0:
        head, first = first[: m.end()], first[m.end():]
    # the dimension or context after the items: "B | in terms of mutability" (not the item's own first word)
    last, tail = segs[-1], ""
    words = last.split(" ")
    for i in range(1, len(words)):
        if words[i].lower() in p.en_prepositions:
            last, tail = " ".join(words[:i]), " " + " ".join(words[i:])
            break
    items = [first, *segs[1:-1], last]
    # "global and nonlocal statements": single-word modifiers share the last item's head noun
    last_words = [w for w in last.split(" ") if w.lower() not in ("the", "a", "an")]
    if len(last_words) == 2:
        items = [f"{i} {last_words[-1]}" if len([w for w in i.split(" ") if w.lower() not in ("the", "a", "an")]) == 1
                 and i != last else i for i in items]
    items = [i.strip() for i in items if i.strip()]
    if len(items) < 2:
        return []
    if head:
        lead = "" if _en_starts_question(head, r) else "What is "
        return [_as_question(f"{lead}{head}{i}{tail}", False) for i in items]
    return [p.en_compare_template.format(item=i, others=" and ".join(o for o in items if o != i), tail=tail)
            for i in items]


def _en_sub_questions(q: str, r: OfflineRules) -> list[str]:
    p = r.planner
    comparison = any(m in f" {q.lower()} " for m in p.en_comparison_markers)
    if comparison and len(_Q_SPLIT.split(q.rstrip("?？ "))) == 1:
        subs = _en_comparison(q, r)
        if subs:
            return subs
    body = _strip_lead(_clean(q), p.en_lead_words)
    low = f" {body.lower()} "
    # ", " separates list items only when the list ends in a real conjunction ("a, b and c").
    seps = tuple(s for s in p.en_conjunctions if s.strip() != "," or re.search(r"\s(and|vs\.?|versus)\s", low))
    segs = [_clean(re.sub(r"^(?:and|or)\s+", "", s, flags=re.IGNORECASE)) for s in _split_on(body, seps)]
    segs = [s for s in segs if s]
    if len(segs) < 2:
        return []
    if all(_en_starts_question(s, r) for s in segs) and not comparison:
        return [_as_question(s, False) for s in segs]
    first, last = segs[0], segs[-1]
    preps = "|".join(re.escape(x) for x in p.en_prepositions)
    # head + first item: after the last preposition, else the trailing capitalised run, else last word
    found = list(re.finditer(rf"\b(?:{preps})\b\s+", first, flags=re.IGNORECASE))
    m = found[-1] if found else None  # the last preposition
    if m is not None:
        head, item1 = first[: m.end()], first[m.end():]
    elif _en_starts_question(first, r):
        words = first.split(" ")
        k = len(words)
        while k > 1 and re.match(r"^[A-Z0-9]", words[k - 1]):
            k -= 1
        k = k if k < len(words) else len(words) - 1
        head, item1 = " ".join(words[:k]) + " ", " ".join(words[k:])
    else:
        head, item1 = "", first
    # last item + tail: a leading run of determiners / capitalised words, else up to a preposition
    words = last.split(" ")
    k = 0
    while k < len(words) and (words[k].lower() in ("the", "a", "an", "my") or re.match(r"^[A-Z0-9]", words[k])):
        k += 1
    if k and any(re.match(r"^[A-Z0-9]", w) for w in words[:k]):
        item_n, tail = " ".join(words[:k]), (" " + " ".join(words[k:])) if k < len(words) else ""
    else:
        pm = re.search(rf"\s\b(?:{preps})\b\s", last, flags=re.IGNORECASE)
        item_n, tail = (last[: pm.start()], last[pm.start():]) if pm else (last, "")
    for filler in p.en_filler_words:
        tail = re.sub(rf"\s*\b{re.escape(filler)}\b", "", tail, flags=re.IGNORECASE)
    items = [i.strip() for i in [item1, *segs[1:-1], item_n] if i.strip()]
    if comparison:
        rest = f"{head} {tail}"
        for marker in p.en_comparison_markers:
            rest = re.sub(re.escape(marker.strip()), " ", rest, flags=re.IGNORECASE)
        if not [t for t in content_terms(rest, r) if t not in p.en_prepositions]:
            return [p.en_compare_template.format(item=i, others=" and ".join(o for o in items if o != i), tail="")
                    for i in items]
    elif not tail.strip() and not any(re.match(r"^(?:(?:the|a|an)\s+)?[A-Z0-9]", i) for i in items):
        # "find and load a module", "leading and trailing whitespace": without names or a shared
        # tail ("... of the Lumen X2") a conjunction of common words is one phrase, one intent
        return []
    return [_as_question(f"{head}{i}{tail}", False) for i in items]


def plan_question(question: str, rules: Optional[OfflineRules] = None) -> ComplexityResult:
    """Complex when the question holds several questions, a conjunction of items, or a comparison;
    each sub-question is self-contained (the shared subject / predicate is copied into it)."""
    r = rules or default_offline_rules()
    q = (question or "").strip()
    zh = is_chinese(q)
    parts = [s for s in (_clean(x) for x in _Q_SPLIT.split(q)) if s]
    if len(parts) >= 2:
        subs, why = [_as_question(s, zh) for s in parts], "several_questions"
    else:
        subs = _zh_sub_questions(q, r) if zh else _en_sub_questions(q, r)
        why = "several_items"
    subs = list(dict.fromkeys(s for s in subs if _clean(s)))[: r.planner.max_sub_questions]
    if len(subs) >= 2:
        return ComplexityResult(
            complexity="complex", complexity_reason=r.tag(r.say(why, zh, n=len(subs)), zh), sub_questions=subs,
        )
    return ComplexityResult(complexity="simple", complexity_reason=r.tag(r.say("one_intent", zh), zh), sub_questions=[])


# =============================================================================================
# grader
# =============================================================================================

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


# =============================================================================================
# rewriter
# =============================================================================================

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


# =============================================================================================
# roles
# =============================================================================================

def _as(model, data):
    return data if isinstance(data, model) else model.model_validate(data)


def build_offline_roles(rules: Optional[OfflineRules] = None) -> ModelRoles:
    """The three roles of the offline provider, each a RunnableLambda over a pure function."""
    r = rules or default_offline_rules()
    return ModelRoles(
        planner=RunnableLambda(lambda x: plan_question(_as(PlannerInput, x).question, r), name="offline_planner"),
        grader=RunnableLambda(lambda x: grade_evidence(_as(GraderInput, x), r), name="offline_grader"),
        rewriter=RunnableLambda(lambda x: rewrite_question(_as(RewriterInput, x), r), name="offline_rewriter"),
        provider=r.provider,
        prompt_version=None,
        grader_uses_corpus_stats=True,
    )


__all__ = ["build_offline_roles", "plan_question", "grade_evidence", "rewrite_question"]
