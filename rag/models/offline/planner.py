"""The offline planner: a conjunction or comparison splits into 2-4 self-contained sub-questions.

A comparison's sub-questions name the other items and keep the asked dimension; anything else is one
intent. A pure function of (question, rules), so it is tested as a table (tests/offline/test_planner.py).
"""
from __future__ import annotations

import re
from typing import Optional

from rag.models.offline_rules import (
    OfflineRules,
    _jieba_cut,
    content_terms,
    default_offline_rules,
    is_chinese,
)
from rag.schemas import ComplexityResult

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
