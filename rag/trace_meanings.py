"""One-line meanings of the 59 trace fields, for the trace explorer and the docs.

`FIELD_MEANINGS` holds the English (the catalogue's message ids, marked for extraction); `meaning()` is
what a page shows: the meaning in the reader's language, looked up when it is shown."""
from __future__ import annotations

from rag.i18n import N_, _
from rag.trace import FIELD_GROUPS, RAG_TRACE_FIELDS

FIELD_MEANINGS: dict[str, str] = {
    "tool_used": N_("the retrieval tool ran in this turn"),
    "tool_name": N_("name of the retrieval entry (search_knowledge_base)"),
    "query": N_("the question the trace is about (the original one, or the merged one after HITL)"),
    "retrieval_stage": N_("which retrieval produced retrieved_chunks: initial, rewritten, synthesis or hitl_targeted_retrieval"),
    "retrieved_chunks": N_("the evidence of the final stage (emptied for clarify / scope_select)"),
    "initial_retrieved_chunks": N_("snapshot of the first retrieval's batch"),
    "rewrite_retrieved_chunks": N_("snapshot of the batch retrieved with the rewritten query"),
    "retrieval_empty": N_("the last retrieval returned no chunk"),
    "route": N_("the decided route: answer, rewrite, clarify, scope_select or no_knowledge"),
    "retrieval_status": N_("display form of the route (answerable, partial, needs_* or no_knowledge)"),
    "evidence_relevance": N_("grade: how relevant the evidence is (none, weak, strong)"),
    "evidence_answerability": N_("grade: how much of the question it answers (none, partial, sufficient)"),
    "evidence_ambiguity": N_("grade: none, missing_slot (a condition is missing) or multiple_candidates"),
    "evidence_confidence": N_("grade: the grader's confidence 0-1 (null after synthesis)"),
    "evidence_reason": N_("grade: the grader's reason"),
    "missing_slots": N_("conditions the user should add (clarify)"),
    "hitl_prompt": N_("the follow-up question to the user; empty when no HITL"),
    "hitl_options": N_("candidate directions to choose from (scope_select)"),
    "rewrite_method": N_("step_back or hyde (at most one rewrite per run)"),
    "rewritten_query": N_("the query used for the second retrieval (question + labelled rewrite)"),
    "step_back_question": N_("the more general question of a step-back rewrite"),
    "hyde_document": N_("the hypothetical answer passage of a HyDE rewrite"),
    "complexity": N_("simple or complex (from the fast path or the planner)"),
    "complexity_reason": N_("why; obvious_simple_fast_path:<rule> when no model was called"),
    "sub_questions": N_("the planned sub-questions of a complex question (at most 4)"),
    "sub_agent_count": N_("number of sub-results collected for synthesis"),
    "synthesis_merged_count": N_("chunks of usable sub-results before de-duplication"),
    "sub_traces": N_("each sub-question's own normalized trace"),
    "hitl_resumed": N_("this trace comes from resume_rag_from_hitl"),
    "hitl_answer": N_("the user's answer that resumed the run"),
    "hitl_resume_strategy": N_("how the resume searched (targeted_retrieval)"),
    "hitl_resume_from_status": N_("the status of the turn that asked the user"),
    "hitl_resume_from_route": N_("the route of the turn that asked the user"),
    "hitl_targeted_retrieved_chunks": N_("snapshot of the targeted retrieval's batch"),
    "retrieval_mode": N_("hybrid, dense_fallback, sparse_only or failed"),
    "retrieval_pipeline": N_("the stages run (recall_merge_rerank)"),
    "candidate_k": N_("how many candidates recall asked for"),
    "candidate_k_source": N_("where candidate_k came from: env (explicit setting) or multiplier"),
    "candidate_k_config_error": N_("why an explicit candidate_k setting was ignored or clamped to top_k"),
    "retrieval_candidate_multiplier": N_("top_k × this = candidate_k when not set explicitly"),
    "retrieval_top_k": N_("chunks kept after rerank"),
    "recall_count": N_("chunks returned by hybrid recall"),
    "post_merge_candidate_count": N_("chunks after auto-merge"),
    "candidate_count": N_("candidates handed to rerank"),
    "leaf_retrieve_level": N_("the chunk level searched (3 = leaves)"),
    "auto_merge_enabled": N_("auto-merge of sibling chunks into their parent is on"),
    "auto_merge_applied": N_("auto-merge replaced at least one group of siblings"),
    "auto_merge_threshold": N_("siblings needed to merge into the parent"),
    "auto_merge_replaced_chunks": N_("chunks replaced by their parents"),
    "auto_merge_steps": N_("the merge passes run (L3→L2, L2→L1)"),
    "rerank_enabled": N_("a rerank endpoint is configured"),
    "rerank_applied": N_("rerank scores were used for ordering"),
    "rerank_model": N_("the cross-encoder model name"),
    "rerank_endpoint": N_("the rerank endpoint URL"),
    "rerank_error": N_("why rerank fell back to score order"),
    "rerank_timeout_seconds": N_("rerank HTTP timeout"),
    "rerank_min_score": N_("minimum score threshold applied last"),
    "post_rerank_count": N_("chunks after rerank"),
    "post_threshold_count": N_("chunks after the minimum-score threshold"),
}

assert set(FIELD_MEANINGS) == set(RAG_TRACE_FIELDS), set(RAG_TRACE_FIELDS) ^ set(FIELD_MEANINGS)


#: The trace explorer's group headings (the keys of `rag.trace.FIELD_GROUPS`, which stay data).
GROUP_TITLES: dict[str, str] = {
    "tool and retrieval": N_("tool and retrieval"),
    "grade and route": N_("grade and route"),
    "rewrite": N_("rewrite"),
    "complex chain": N_("complex chain"),
    "HITL resume": N_("HITL resume"),
    "retrieval parameters and counts": N_("retrieval parameters and counts"),
}

assert set(GROUP_TITLES) == set(FIELD_GROUPS), set(GROUP_TITLES) ^ set(FIELD_GROUPS)


def meaning(field: str) -> str:
    """The field's meaning in the active language ("" for a name that is not a protocol field)."""
    text = FIELD_MEANINGS.get(field)
    return _(text) if text else ""


def group_title(group: str) -> str:
    """A field group's heading in the active language (the group name itself when unknown)."""
    return _(GROUP_TITLES[group]) if group in GROUP_TITLES else group
