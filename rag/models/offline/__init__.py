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

from typing import Optional

from langchain_core.runnables import RunnableLambda

from rag.models.base import GraderInput, ModelRoles, PlannerInput, RewriterInput
from rag.models.offline.grader import grade_evidence
from rag.models.offline.planner import plan_question
from rag.models.offline.rewriter import rewrite_question
from rag.models.offline_rules import OfflineRules, default_offline_rules


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
