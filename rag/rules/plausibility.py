"""Plausibility checks on what a model wrote: signs that it guessed instead of reading.

Why: a small or badly prompted model writes output that fits the schema and still means nothing: HITL
options found in no retrieved chunk, a grade reason of "1234567890" that quotes nothing of the evidence, a
"sub-question" that is the question again. The spec's rules decide the route and these checks never change
it; they tell the person tuning prompts where the model is guessing (warnings on the step, recorded with
the run). Pure functions over the step's writes, so they are tested as tables.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Any, Iterable, Mapping, Optional, Sequence

from pydantic import BaseModel

INVENTED_OPTION = "hitl_option_not_in_evidence"
REASON_QUOTES_NOTHING = "grade_reason_quotes_nothing"
SUB_QUESTION_REPEATS = "sub_question_repeats_question"

#: Share of an option's words (or CJK character pairs) that one chunk must contain for it to count as found.
_OPTION_COVERAGE = 0.6
#: Token overlap (Jaccard) from which a sub-question counts as the question again.
_REPEAT_SIMILARITY = 0.85

_STOPWORDS = frozenset("""a an and are as at be because but by can could did do does for from has have how i if in
into is it its may might no not of on or our should so than that the their them then there these they this those
to was we were what when where which who why will with would you your evidence chunk chunks context question
document documents answer answers text states stated says said mentioned information about""".split())
_WORD = re.compile(r"[^\W\d_]+|\d+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


class PlausibilityWarning(BaseModel):
    """One sign of guessing. `check` is a stable id; `subject` is what was checked (an option, a reason,
    a sub-question); `lane` the sub-question it belongs to, when the step graded several."""

    check: str
    role: str
    subject: str
    lane: Optional[str] = None


def _normal(text: str) -> str:
    text = unicodedata.normalize("NFKC", str(text or "")).casefold()
    return " ".join(text.split())


def _tokens(text: str) -> list[str]:
    """Content words (no stopwords, no one-letter words) and CJK character pairs."""
    text = _normal(text)
    out: list[str] = []
    for word in _WORD.findall(text):
        if _CJK.search(word):
            chars = _CJK.findall(word)
            out += [a + b for a, b in zip(chars, chars[1:], strict=False)] or chars
        elif len(word) > 1 and word not in _STOPWORDS and not word.isdigit():
            out.append(word)
    return out


def _found_in(subject: str, texts: Sequence[str]) -> bool:
    """The subject is in one of the texts: verbatim, or most of its words in one of them."""
    wanted = _normal(subject)
    if not wanted:
        return True
    normal = [_normal(t) for t in texts]
    if any(wanted in t for t in normal):
        return True
    tokens = set(_tokens(subject))
    if not tokens:
        return False
    return any(len(tokens & set(_tokens(t))) / len(tokens) >= _OPTION_COVERAGE for t in normal)


def invented_options(options: Iterable[str], evidence: Sequence[str]) -> list[str]:
    """The HITL options that appear in no retrieved chunk."""
    return [o for o in options if str(o).strip() and not _found_in(str(o), evidence)]


def reason_quotes_nothing(reason: str, evidence: Sequence[str]) -> bool:
    """A grade reason that shares not one content word with the evidence it claims to judge (digits, a
    time of day or an empty reason included). Without evidence there is nothing to quote: no warning."""
    if not any(str(t).strip() for t in evidence):
        return False
    words = set(_tokens(reason))
    if not words:
        return True
    found: set[str] = set()
    for text in evidence:
        found |= set(_tokens(text))
    return not (words & found)


def repeats_question(sub_question: str, question: str) -> bool:
    """A sub-question that is the question again (same words, near enough)."""
    a, b = _normal(sub_question).rstrip("?？.。 "), _normal(question).rstrip("?？.。 ")
    if not a or a == b:
        return bool(a)
    ta, tb = set(_tokens(a)), set(_tokens(b))
    if not ta or not tb:
        return False
    return len(ta & tb) / len(ta | tb) >= _REPEAT_SIMILARITY


#: What each check means, as a sentence with `{subject}` (English message ids; the inspector translates them).
MEANINGS = {
    INVENTED_OPTION: "HITL option “{subject}” appears in no retrieved chunk: the model may have invented it",
    REASON_QUOTES_NOTHING: "the grade's reason “{subject}” quotes nothing of the evidence: the model may not have read it",
    SUB_QUESTION_REPEATS: "sub-question “{subject}” repeats the question: the split adds nothing",
}


def describe(warning: PlausibilityWarning, translate=lambda text: text) -> str:
    """The warning as a sentence (`translate` gives the message in the reader's language)."""
    text = translate(MEANINGS[warning.check]).format(subject=warning.subject[:200])
    return f"{warning.role}: {text}"


# --------------------------------------------------------------------------------------------------
# Over one step's writes
# --------------------------------------------------------------------------------------------------


def _chunk_texts(*sources: Any) -> list[str]:
    texts: list[str] = []
    for source in sources:
        for chunk in source or []:
            if isinstance(chunk, Mapping) and chunk.get("text"):
                texts.append(str(chunk["text"]))
    return texts


def _evidence(trace: Mapping[str, Any], *more: Any) -> list[str]:
    return _chunk_texts(trace.get("retrieved_chunks"), trace.get("initial_retrieved_chunks"),
                        trace.get("rewrite_retrieved_chunks"), *more)


def _grade_warnings(trace: Mapping[str, Any], evidence: list[str], lane: Optional[str]) -> list[PlausibilityWarning]:
    if trace.get("grading_error"):  # the grader failed: the grade is the rules' fail-closed one, not the model's
        return []
    out = [PlausibilityWarning(check=INVENTED_OPTION, role="grader", subject=o, lane=lane)
           for o in invented_options(trace.get("hitl_options") or [], evidence)]
    reason = str(trace.get("evidence_reason") or "")
    if reason_quotes_nothing(reason, evidence):
        out.append(PlausibilityWarning(check=REASON_QUOTES_NOTHING, role="grader", subject=reason, lane=lane))
    return out


def check_writes(writes: Mapping[str, Any], before: Mapping[str, Any]) -> list[PlausibilityWarning]:
    """The warnings of one task's writes (`before`: the state the task read). Looks at what a planner
    wrote (`sub_questions`), what a grader wrote (`grade` with the trace's reason and options) and each
    graded sub-question (`sub_results`)."""
    out: list[PlausibilityWarning] = []
    question = str(before.get("question") or "")
    for sub in writes.get("sub_questions") or []:
        if repeats_question(str(sub), question):
            out.append(PlausibilityWarning(check=SUB_QUESTION_REPEATS, role="planner", subject=str(sub)))
    if writes.get("grade") and isinstance(writes.get("rag_trace"), Mapping):
        trace = writes["rag_trace"]
        out += _grade_warnings(trace, _evidence(trace, before.get("docs"), writes.get("docs")), None)
    for result in writes.get("sub_results") or []:
        if isinstance(result, Mapping) and isinstance(result.get("rag_trace"), Mapping):
            trace = result["rag_trace"]
            out += _grade_warnings(trace, _evidence(trace, result.get("docs")), str(result.get("question") or ""))
    return out


__all__ = [
    "PlausibilityWarning", "check_writes", "describe", "MEANINGS", "invented_options", "reason_quotes_nothing",
    "repeats_question",
    "INVENTED_OPTION", "REASON_QUOTES_NOTHING", "SUB_QUESTION_REPEATS",
]
