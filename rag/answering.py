"""What the answering agent would say: an answer with numbered citations to the chunks of a run
that ended in the `answer` route.

Why outside the graph: the workflow (SPEC) ends by handing evidence to an answering agent; the
graph stays the spec's, and this step runs after it, on the finished state, for the debugger and
the run history. Two ways:
- offline (no model): an EXTRACTIVE answer, the evidence sentences that share the most (rare)
  words with the question, copied verbatim and labelled as such, so nobody mistakes it for a
  model's answer;
- with a model: generated from the numbered context with the `answerer` prompt, the fourth role
  of a prompt version (built-in: `rag/prompts/default/answerer.md`), so the playground can edit,
  version and A/B-compare it like the graph's prompts.
Citation `[n]` is chunk n of the run's `docs` (1-based), the same numbering as the Evidence table.
"""
from __future__ import annotations

import math
import re
import time
from typing import Any, Callable, Literal, Mapping, Optional, Sequence

from pydantic import BaseModel, Field

from rag.i18n import _
from rag.prompts.templates import DEFAULT_DIR, render

MAX_SENTENCES = 3
MAX_CONTEXT_CHARS = 12_000
ANSWERER_PROMPT_PATH = DEFAULT_DIR / "answerer.md"
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;])|(?<=\.)\s+|\n+")
_CITE = re.compile(r"\[(\d{1,2})\]")


class Citation(BaseModel):
    n: int
    filename: str = ""
    page_number: Any = None
    chunk_id: Optional[str] = None


class Answer(BaseModel):
    """An answer and what it cites. `mode` says how it was made; an extractive answer is never a
    model's words."""

    mode: Literal["extractive", "generated", "unavailable"]
    text: str = ""
    citations: list[Citation] = Field(default_factory=list)
    model: Optional[str] = None
    error: Optional[str] = None
    elapsed_ms: float = 0.0


def citations_for(docs: Sequence[Mapping[str, Any]], numbers: Sequence[int]) -> list[Citation]:
    out = []
    for n in sorted(set(numbers)):
        if 1 <= n <= len(docs):
            d = docs[n - 1]
            out.append(Citation(n=n, filename=str(d.get("filename") or ""), page_number=d.get("page_number"),
                                chunk_id=d.get("chunk_id")))
    return out


def split_sentences(text: str) -> list[str]:
    """Sentences of Chinese or English text (ends: 。！？!?；; a period before a space, a line break)."""
    return [s.strip() for s in _SENTENCE_END.split(text or "") if s and s.strip()]


def extractive_answer(question: str, docs: Sequence[Mapping[str, Any]], *, max_sentences: int = MAX_SENTENCES,
                      tokenize: Optional[Callable[[str], Sequence[str]]] = None) -> Answer:
    """The `max_sentences` evidence sentences that best cover the question's words (each word
    weighted by how rare it is among the sentences), in evidence order, each cited `[n]`."""
    started = time.perf_counter()
    if tokenize is None:
        from rag.retrieval.tokenize import tokenize_query

        tokenize = tokenize_query
    wanted = set(tokenize(question))
    sentences = [(n, i, s) for n, d in enumerate(docs, 1) for i, s in enumerate(split_sentences(str(d.get("text") or "")))]
    if not sentences or not wanted:
        return Answer(mode="extractive", text="", error="no evidence sentence to quote")
    token_sets = [set(tokenize(s)) & wanted for _, _, s in sentences]
    df = {w: sum(1 for t in token_sets if w in t) for w in wanted}
    idf = {w: math.log(1 + len(sentences) / df[w]) for w in wanted if df[w]}
    scored = [(sum(idf[w] for w in t), -k) for k, t in enumerate(token_sets)]
    best = sorted(range(len(sentences)), key=lambda k: scored[k], reverse=True)
    picked: list[int] = []
    covered: set[str] = set()
    for k in best:
        if scored[k][0] <= 0 or len(picked) >= max_sentences:
            break
        if token_sets[k] <= covered and picked:  # adds no question word: skip the repetition
            continue
        picked.append(k)
        covered |= token_sets[k]
    if not picked:
        return Answer(mode="extractive", text="", error="no evidence sentence shares a word with the question",
                      elapsed_ms=(time.perf_counter() - started) * 1000)
    picked.sort()
    text = " ".join(f"{sentences[k][2]} [{sentences[k][0]}]" for k in picked)
    return Answer(mode="extractive", text=text, citations=citations_for(docs, [sentences[k][0] for k in picked]),
                  elapsed_ms=(time.perf_counter() - started) * 1000)


def numbered_context(docs: Sequence[Mapping[str, Any]], limit: int = MAX_CONTEXT_CHARS) -> str:
    parts: list[str] = []
    size = 0
    for n, d in enumerate(docs, 1):
        page = f", page {d.get('page_number')}" if d.get("page_number") is not None else ""
        block = f"[{n}] ({d.get('filename')}{page})\n{d.get('text') or ''}\n"
        if size + len(block) > limit and parts:
            break
        parts.append(block)
        size += len(block)
    return "\n".join(parts)


def answerer_prompt(question: str, docs: Sequence[Mapping[str, Any]], template: Optional[str] = None) -> str:
    """The prompt sent to the model: the answerer template (a prompt version's, else the built-in
    one) with the question and the numbered context. Raises PromptTemplateError on a bad template."""
    template = template if template is not None else ANSWERER_PROMPT_PATH.read_text(encoding="utf-8")
    return render("answerer", template, {"question": question, "context": numbered_context(docs)})


def generated_answer(question: str, docs: Sequence[Mapping[str, Any]], complete: Callable[[str], str], *,
                     model: Optional[str] = None, template: Optional[str] = None) -> Answer:
    """Ask a model (`complete(prompt) -> text`) to answer from the numbered context; citations are
    the `[n]` it wrote that name a real chunk. A failure is an `unavailable` answer with the reason."""
    started = time.perf_counter()
    try:
        text = complete(answerer_prompt(question, docs, template)).strip()
    except Exception as exc:  # noqa: BLE001 - the page shows why, never a traceback
        return Answer(mode="unavailable", model=model, error=f"{type(exc).__name__}: {exc}"[:300],
                      elapsed_ms=(time.perf_counter() - started) * 1000)
    numbers = [int(m) for m in _CITE.findall(text)]
    return Answer(mode="generated", text=text, citations=citations_for(docs, numbers), model=model,
                  elapsed_ms=(time.perf_counter() - started) * 1000)


def answer_for(state: Mapping[str, Any], complete: Optional[Callable[[str], str]] = None,
               model: Optional[str] = None, template: Optional[str] = None) -> Optional[Answer]:
    """The answer to a finished state that took the `answer` route (None for any other route).
    `template` is the answerer prompt of the run's prompt version (None: the built-in one); it is
    only read when a model answers (an extractive answer has no prompt)."""
    if state.get("route") != "answer" or not state.get("docs"):
        return None
    question = str(state.get("question") or "")
    if complete is None:
        return extractive_answer(question, state["docs"])
    answer = generated_answer(question, state["docs"], complete, model=model, template=template)
    if answer.mode == "unavailable":  # say why, and still show what the evidence says
        fallback = extractive_answer(question, state["docs"])
        return fallback.model_copy(update={"error": _("the model could not answer ({error}); this is the extractive "
                                                      "answer instead").format(error=answer.error), "model": model})
    return answer


def model_completer(settings: Any) -> tuple[Optional[Callable[[str], str]], Optional[str]]:
    """(complete, model name) on the connected OpenAI-compatible endpoint (the FAST_MODEL), or
    (None, None) offline. Errors are redacted: the page may show them, never a key."""
    if settings is None or not settings.models_configured():
        return None, None
    from rag.errors import ModelCallError
    from rag.models.openai_compat import ClientPool, _secrets, redact

    pool = ClientPool(settings)
    model = settings.fast_model

    def complete(prompt: str) -> str:
        try:  # bounded (RAG_MAX_TOKENS_ANSWERER, the call's budget) and streamed like the other roles
            return pool.complete(role="answerer", model=model, prompt=prompt)
        except ModelCallError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise RuntimeError(redact(f"{type(exc).__name__}: {exc}", _secrets(settings))) from None

    return complete, model
