"""The offline answer: evidence quoted to the question as the workflow understood it.

Why a module of its own: with no model, the only honest answer is the evidence's own words, so all
that can go wrong is WHICH words. The workflow rewrites the question (step-back, HyDE), a person
narrows it (the HITL answer) and the planner splits it (sub-questions); quoting against the
original question alone picked the manual's introduction for "my lantern dies too fast" and the
line that announces a price list instead of the price. The rules here are general:

- the question is read in every form the run gave it ("views"); a word a person typed as a HITL
  answer weighs most, since it is what they chose;
- a word is worth more the rarer it is among the evidence's sentences (idf);
- a sentence is read in its paragraph and under its heading: words they share with the question
  count half, so "She uses a longbow." is found for the character the paragraph is about and
  "Adds the Red light mode" for the version its section is headed by;
- a list item comes with the sentence that introduces it (ending in a colon), an introduction
  with the items that answer the question (or all of them when none stands out), and a question
  written in the evidence ("Battery drains quickly?") with the sentence that answers it;
- a sentence that shares no content word with any view is never quoted.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Sequence

Tokenize = Callable[[str], Sequence[str]]

#: Words that ask rather than say: they never make a sentence relevant. Function words the retrieval
#: tokenizer keeps (it drops only a few) plus question words in both languages.
FUNCTION_WORDS = frozenset("""
a an the of to is are was were be been and or in on at by for with from as into about than then this that these
those it its it's i me my we our you your he she they them their his her what which who whom whose how when where why
does do did can could should would will shall may might must any some much many more most very too also just not no
yes if so there here get got have has had tips tip please tell know want need way ways
什么 怎么 怎样 如何 多少 哪些 哪个 哪里 为什么 是否 请问 一下 吗 呢 吧 啊 的 了 是 在 和 与 及 或 有 没有 都 也 就 还
分别 一个 这个 那个 我 你 他 她 它 我们 他们 可以 能 会 要
""".split())

_LIST_ITEM = re.compile(r"^\s*(?:[-*•·]|\d{1,2}[.)、])\s+")
_HEADING = re.compile(r"^\s*#{1,6}\s")
_LEAD_END = re.compile(r"[:：]\s*$")
_QUESTION_END = re.compile(r"[?？]\s*$")
_SENTENCE = re.compile(r"[^。！？!?；;]+(?:[。！？!?；;]+|$)|[^。！？!?；;]+")

#: How much a view's words weigh: what a person typed to narrow the question counts most.
VIEW_WEIGHTS = {"question": 1.0, "rewrite": 1.0, "hyde": 0.8, "hitl": 3.0, "sub_question": 1.0}
CONTEXT_WEIGHT = 0.5
#: A unit is quoted when its score is at least this share of the best unit's.
KEEP_RATIO = 0.5


@dataclass
class Unit:
    """A quotable piece of one chunk: a sentence, a list item, or an introduction ending in a colon."""

    n: int  # 1-based chunk number (the citation)
    order: int
    text: str
    kind: str  # "sentence" | "lead" | "item" | "faq"
    paragraph: int
    heading: str = ""  # the heading the unit sits under: what its section is about
    group: Optional[int] = None  # the lead an item belongs to (its order), or a lead's own order
    follow: Optional[str] = None  # the answering sentence after an evidence question
    words: set[str] = field(default_factory=set)
    context: set[str] = field(default_factory=set)


def _sentences(line: str) -> list[str]:
    """A line cut at sentence ends (Chinese 。！？；, Latin .!?; a period only before a space)."""
    parts: list[str] = []
    for piece in re.split(r"(?<=[.!?;])\s+", line.strip()):
        parts.extend(m.group(0).strip() for m in _SENTENCE.finditer(piece) if m.group(0).strip())
    return parts


def split_units(text: str, n: int = 1) -> list[Unit]:
    """The quotable units of a chunk, in order. Headings are not quoted; a list item is one unit
    (never cut at its inner periods) tied to the colon sentence before it; an evidence question
    carries the sentence after it."""
    units: list[Unit] = []
    paragraph = 0
    lead: Optional[int] = None
    heading = ""
    for line in (text or "").splitlines():
        if not line.strip():
            paragraph += 1
            if units and units[-1].kind != "lead":
                lead = None
            continue
        if _HEADING.match(line):
            paragraph += 1
            lead = None
            heading = _HEADING.sub("", line).strip()
            continue
        if _LIST_ITEM.match(line):
            body = _LIST_ITEM.sub("", line).strip()
            units.append(Unit(n=n, order=len(units), text=body, kind="item", paragraph=paragraph, group=lead,
                              heading=heading))
            continue
        lead = None
        for sentence in _sentences(line):
            kind = "lead" if _LEAD_END.search(sentence) else "sentence"
            units.append(Unit(n=n, order=len(units), text=sentence, kind=kind, paragraph=paragraph, heading=heading))
            if kind == "lead":
                units[-1].group = units[-1].order
                lead = units[-1].order
    # an evidence question ("Battery drains quickly?") is quoted with the sentence that answers it
    merged: list[Unit] = []
    skip = False
    for i, u in enumerate(units):
        if skip:
            skip = False
            continue
        nxt = units[i + 1] if i + 1 < len(units) else None
        if (u.kind == "sentence" and _QUESTION_END.search(u.text) and nxt is not None and nxt.kind == "sentence"
                and nxt.paragraph == u.paragraph):
            u.kind, u.follow = "faq", nxt.text
            skip = True
        merged.append(u)
    return merged


def content_words(text: str, tokenize: Tokenize) -> set[str]:
    """The words of `text` that can make a sentence relevant: no function words, no lone CJK
    character (mostly particles and pronouns), no punctuation."""
    out = set()
    for w in tokenize(text):
        w = w.lower().strip()
        if not w or w in FUNCTION_WORDS:
            continue
        if len(w) == 1 and not w.isascii():
            continue
        if len(w) == 1 and not w.isdigit():
            continue
        out.add(_stem(w))
    return out


def _stem(word: str) -> str:
    """A plural or third person folded to its stem ("carries" -> "carry", "drains" -> "drain"), so a
    question and the sentence that answers it meet on the same word. English only, deliberately small."""
    if not word.isascii() or not word.isalpha() or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@dataclass
class Views:
    """The question as the workflow understood it: each text with the role that weighs it."""

    texts: list[tuple[str, str]]

    def weights(self, tokenize: Tokenize) -> dict[str, float]:
        weights: dict[str, float] = {}
        for role, text in self.texts:
            for w in content_words(text, tokenize):
                weights[w] = max(weights.get(w, 0.0), VIEW_WEIGHTS.get(role, 1.0))
        return weights

    def focus(self, tokenize: Tokenize) -> set[str]:
        """The words a person chose (the HITL answer): they pick among list items."""
        return set().union(*(content_words(t, tokenize) for r, t in self.texts if r == "hitl")) if self.texts else set()


def _prepare(docs: Sequence[Mapping[str, Any]], tokenize: Tokenize) -> list[Unit]:
    units: list[Unit] = []
    for n, d in enumerate(docs, 1):
        chunk = split_units(str(d.get("text") or ""), n)
        by_paragraph: dict[int, set[str]] = {}
        for u in chunk:
            u.words = content_words(u.text + (" " + u.follow if u.follow else ""), tokenize)
            by_paragraph.setdefault(u.paragraph, set()).update(u.words)
        leads = {u.order: u for u in chunk if u.kind == "lead"}
        for u in chunk:
            u.context = set(by_paragraph.get(u.paragraph, set())) | content_words(u.heading, tokenize)
            if u.kind == "item" and u.group in leads:
                u.context |= leads[u.group].words | by_paragraph.get(leads[u.group].paragraph, set())
            u.context -= u.words
        units.extend(chunk)
    return units


@dataclass
class Quote:
    """Picked units of one chunk, in order, ready to print with their citation."""

    n: int
    texts: list[str]


def select(views: Views, docs: Sequence[Mapping[str, Any]], tokenize: Tokenize, *, max_units: int = 3,
           units: Optional[list[Unit]] = None) -> list[Quote]:
    """The units that answer `views`, in evidence order, each with what must come with it."""
    weights = views.weights(tokenize)
    if units is None:
        units = _prepare(docs, tokenize)
    if not weights or not units:
        return []
    df = {w: sum(1 for u in units if w in u.words) for w in weights}
    idf = {w: weights[w] * math.log(1 + len(units) / df[w]) for w in weights if df[w]}

    def own(u: Unit) -> float:
        return sum(idf.get(w, 0.0) for w in u.words)

    def score(u: Unit) -> float:
        return own(u) + CONTEXT_WEIGHT * sum(idf.get(w, 0.0) for w in u.context)

    ranked = sorted((u for u in units if own(u) > 0), key=lambda u: (-score(u), u.n, u.order))
    if not ranked:
        return []
    best = score(ranked[0])
    picked: list[Unit] = []
    covered: set[str] = set()
    for u in ranked:
        if len(picked) >= max_units or score(u) < KEEP_RATIO * best:
            break
        gives = (u.words | u.context) & set(idf)
        if picked and gives <= covered:  # says nothing the picked units did not: a repetition
            continue
        if any(p.n == u.n and p.text == u.text for p in picked):
            continue
        picked.append(u)
        covered |= gives
    return _expand(picked, units, idf, views.focus(tokenize))


def _expand(picked: list[Unit], units: list[Unit], idf: Mapping[str, float], focus: set[str]) -> list[Quote]:
    """Each picked unit with what must come with it: an item's introduction, an introduction's
    answering items, an evidence question's answer. Ordered as in the evidence, no repeats."""
    chosen: dict[tuple[int, int], str] = {}
    for u in picked:
        if u.kind == "faq":
            chosen[(u.n, u.order)] = f"{u.text} {u.follow}"
            continue
        if u.kind == "sentence":
            chosen[(u.n, u.order)] = u.text
            continue
        lead_order = u.group
        group = [x for x in units if x.n == u.n and x.kind == "item" and x.group is not None and x.group == lead_order]
        lead = next((x for x in units if x.n == u.n and x.order == lead_order and x.kind == "lead"), None)
        if lead is not None:
            chosen[(u.n, lead.order)] = lead.text
        if u.kind == "item":
            chosen[(u.n, u.order)] = u.text
            continue
        for item in _answering_items(group, idf, focus):
            chosen[(item.n, item.order)] = item.text
    quotes: list[Quote] = []
    for (n, _order), text in sorted(chosen.items()):
        if quotes and quotes[-1].n == n:
            quotes[-1].texts.append(text)
        else:
            quotes.append(Quote(n=n, texts=[text]))
    return quotes


def _answering_items(group: list[Unit], idf: Mapping[str, float], focus: set[str]) -> list[Unit]:
    """The items of an introduction that answer: those naming what the person chose, else those
    scoring near the best, else all (the introduction alone answers nothing)."""
    if not group:
        return []
    named = [x for x in group if x.words & focus]
    if named:
        return named
    scores = [sum(idf.get(w, 0.0) for w in x.words) for x in group]
    top = max(scores)
    if top <= 0:
        return group
    return [x for x, s in zip(group, scores, strict=True) if s >= 0.7 * top]


def views_of(state: Mapping[str, Any]) -> Views:
    """Every form of the question a finished state carries: the question, the rewrite (its query,
    the HyDE passage or step-back question) and the HITL answer."""
    trace = state.get("rag_trace") or {}
    texts: list[tuple[str, str]] = [("question", str(state.get("question") or ""))]
    for key, role in (("step_back_question", "rewrite"), ("hyde_document", "hyde"), ("rewritten_query", "rewrite")):
        if trace.get(key):
            texts.append((role, str(trace[key])))
    hitl = state.get("hitl_answer") or trace.get("hitl_answer")
    if hitl:
        texts.append(("hitl", str(hitl)))
    return Views([(r, t) for r, t in texts if t.strip()])


def sub_questions_of(state: Mapping[str, Any]) -> list[str]:
    trace = state.get("rag_trace") or {}
    subs = state.get("sub_questions") or trace.get("sub_questions") or []
    return [str(s) for s in subs if str(s).strip()]


def sub_docs(state: Mapping[str, Any], question: str) -> Optional[list[Mapping[str, Any]]]:
    """The evidence one sub-agent retrieved (the state of a debugged run keeps it), else None."""
    for r in state.get("sub_results") or []:
        if isinstance(r, Mapping) and r.get("question") == question and r.get("docs"):
            return list(r["docs"])
    return None


__all__ = ["FUNCTION_WORDS", "Quote", "Unit", "Views", "content_words", "select", "split_units", "sub_docs",
           "sub_questions_of", "views_of"]
