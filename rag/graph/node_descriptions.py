"""What each node of the main and resume graphs does, in a sentence for the debugger's user.

The node functions' docstrings are written for developers and cannot go through the catalogue; these
are the user-facing descriptions, marked for translation and looked up when shown (`describe`)."""
from __future__ import annotations

from rag.i18n import N_, _

NODE_DESCRIPTIONS: dict[str, str] = {
    "classify_complexity": N_("Decides whether the question is simple or complex: a local fast path for obviously "
                              "simple questions, else the planning model. If the planner fails, the simple chain runs."),
    "retrieve_initial": N_("First retrieval with the question; starts the trace (no route or grade yet)."),
    "grade_documents": N_("Grades the evidence and decides the route: the model proposes, the rules decide."),
    "rewrite_question": N_("Rewrites the question once (step-back or HyDE). Without budget, or when the rewriter "
                           "fails, the run ends in no_knowledge with the reason in the trace."),
    "retrieve_rewritten": N_("Second retrieval with the rewritten query; the trace's query stays the original "
                             "question."),
    "prepare_sub_questions": N_("Shows the planned sub-questions of a complex question; the parent trace stays "
                                "absent until synthesis."),
    "rag_sub_agent": N_("Answers one sub-question: its own retrieval and grading, one sub-result out (the lanes "
                        "run in parallel)."),
    "synthesis": N_("Merges the usable sub-questions' evidence (no grading model call) and writes the parent "
                    "trace."),
    "restore_from_snapshot": N_("Rebuilds the retrieval state from the checked snapshot and the user's answer to "
                                "the follow-up question."),
    "retrieve_targeted": N_("Targeted retrieval with the question merged with the user's answer; never "
                            "re-classifies, fans out or synthesizes."),
}


def describe(node: str) -> str:
    """The node's description in the active language ("" for a node with none)."""
    text = NODE_DESCRIPTIONS.get(node)
    return _(text) if text else ""
