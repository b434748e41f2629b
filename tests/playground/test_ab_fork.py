"""A/B prompt fork: both variants start from the same checkpoint; only the downstream differs."""
from __future__ import annotations

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from rag.errors import ForkNotReachedError, InvalidQuestionError, PromptTemplateError
from rag.playground.ab_fork import run_ab
from rag.prompts.templates import load_default_prompts
from rag.runs.history import RunHistory
from rag.schemas import ComplexityResult, RewritePlan
from tests.engine.fakes import FakeRoles, grade
from tests.runs.conftest import QUESTION

DEFAULT = load_default_prompts()
STRICT_GRADER = DEFAULT.grader + "\nBe strict: anything short of the exact model version needs a rewrite."


def by_prompt(made: list):
    """Role factory: roles whose behaviour depends on the prompt text, like a real model's would."""

    def factory(prompts):
        made.append(prompts)
        strict = "Be strict" in prompts.grader
        grader = grade(relevance="weak", answerability="partial", route="rewrite", reason="strict") if strict else \
            grade(reason="lenient")
        planner = ComplexityResult(complexity="complex", complexity_reason="split",
                                   sub_questions=["X1 battery?", "X2 battery?"]) if "SPLIT" in prompts.planner else \
            ComplexityResult(complexity="simple", complexity_reason="one thing")
        rewriter = RewritePlan(method="hyde", hyde_document="The X2 battery lasts...") if "HYDE" in prompts.rewriter \
            else RewritePlan(method="step_back", step_back_question="battery life of X devices?")
        return FakeRoles(grader=grader, planner=planner, rewriter=rewriter).roles()

    return factory


def test_grader_fork_shares_upstream_and_does_not_retrieve_again(settings, retriever):
    made = []
    result = run_ab(QUESTION, "grader", STRICT_GRADER, settings=settings, retriever=retriever,
                    roles_factory=by_prompt(made))
    assert result.fork_node == "grade_documents" and result.fork_checkpoint_id
    # upstream ran once: ONE retrieval, before the fork; A ends there (answer), B rewrites downstream
    assert retriever.queries[0] == QUESTION
    assert retriever.queries.count(QUESTION) == 1
    assert result.upstream_state["docs"] and result.upstream_state["rag_trace"]["retrieval_stage"] == "initial"
    assert result.upstream_state.get("grade") is None
    assert result.a.role_output["reason"] == "lenient" and result.b.role_output["reason"] == "strict"
    assert (result.a.decided_route, result.b.decided_route) == ("answer", "rewrite")
    assert result.a.route == "answer" and result.b.route in ("answer", "clarify")
    assert result.a.template == DEFAULT.grader and result.b.template == STRICT_GRADER
    assert result.a.role_calls == 1 and result.b.role_calls == 2
    paths = {row.path for row in result.diff}
    assert {"grade", "rag_trace.evidence_reason", "rag_trace.rewrite_method"} <= paths
    assert "question" not in paths
    assert result.a.result["rag_trace"]["route"] == "answer"
    assert [p.node for p in result.upstream_progress] == ["classify_complexity", "retrieve_initial"]
    assert result.a.progress[0].node == "grade_documents"
    assert not result.same_outcome


def test_grader_fork_without_any_downstream_retrieval(settings, retriever):
    """Both sides answer: the retriever is called exactly once in the whole A/B run."""
    result = run_ab(QUESTION, "grader", DEFAULT.grader + "\n(also lenient)", settings=settings, retriever=retriever,
                    roles_factory=by_prompt([]))
    assert retriever.queries == [QUESTION]
    assert result.same_outcome and "A and B ended in the same state" in result.notes


def test_both_variants_branch_from_the_same_checkpoint(settings, retriever):
    saver = InMemorySaver()
    result = run_ab(QUESTION, "grader", STRICT_GRADER, settings=settings, retriever=retriever,
                    history_or_checkpointer=saver, roles_factory=by_prompt([]))
    from rag.graph.build import build_rag_graph

    graph = build_rag_graph(checkpointer=saver)
    thread = {"configurable": {"thread_id": result.thread_id}}
    snaps = {s.config["configurable"]["checkpoint_id"]: s for s in graph.get_state_history(thread)}
    for side in (result.a, result.b):
        node = snaps[side.after_fork_checkpoint_id]
        parent = snaps[node.parent_config["configurable"]["checkpoint_id"]]
        # the parent is the fork checkpoint itself or LangGraph's copy of it: same state either way
        assert parent.values == result.upstream_state
        assert parent.config["configurable"]["checkpoint_id"] == result.fork_checkpoint_id or \
            parent.parent_config["configurable"]["checkpoint_id"] == result.fork_checkpoint_id
    assert result.a.final_checkpoint_id != result.b.final_checkpoint_id


def test_planner_fork_starts_at_the_input(settings, retriever):
    result = run_ab(QUESTION, "planner", DEFAULT.planner + "\nSPLIT comparisons.", settings=settings,
                    retriever=retriever, roles_factory=by_prompt([]))
    assert result.fork_node == "classify_complexity"
    assert result.upstream_state["question"] == QUESTION and result.upstream_state.get("complexity") is None
    assert retriever.queries.count(QUESTION) == 1  # only A retrieves with the whole question
    assert result.a.role_output == {"complexity": "simple", "complexity_reason": "one thing", "sub_questions": []}
    assert result.b.role_output["complexity"] == "complex"
    assert result.b.final_state["rag_trace"]["retrieval_stage"] == "synthesis"
    assert any(row.path == "complexity" for row in result.diff)


def test_complex_question_never_reaches_the_grader_node(settings, retriever):
    def factory(prompts):
        return FakeRoles(planner=ComplexityResult(complexity="complex", sub_questions=["a?", "b?"])).roles()

    with pytest.raises(ForkNotReachedError, match="never reaches grade_documents.*complex chain"):
        run_ab(QUESTION, "grader", STRICT_GRADER, settings=settings, retriever=retriever, roles_factory=factory)


def test_planner_fast_path_is_explained(settings, retriever):
    result = run_ab("丹瑾是什么属性？", "planner", DEFAULT.planner + "\nSPLIT", settings=settings, retriever=retriever,
                    roles_factory=by_prompt([]))
    assert result.a.role_calls == 0 and result.b.role_calls == 0
    assert any("fast path" in note for note in result.notes)


def test_rewriter_fork_and_the_question_that_never_rewrites(settings, retriever):
    strict = DEFAULT.model_copy(update={"grader": STRICT_GRADER})
    result = run_ab(QUESTION, "rewriter", DEFAULT.rewriter + "\nHYDE please.", settings=settings,
                    retriever=retriever, roles_factory=by_prompt([]), base_prompts=strict)
    assert result.fork_node == "rewrite_question"
    assert result.a.role_output["rewrite_method"] == "step_back"
    assert result.b.role_output["rewrite_method"] == "hyde" and "hyde_document" in result.b.role_output
    assert retriever.queries.count(QUESTION) == 1  # initial retrieval once; each side retrieves its rewrite
    assert len(retriever.queries) == 3

    with pytest.raises(ForkNotReachedError, match="never reaches rewrite_question.*'answer'"):
        run_ab(QUESTION, "rewriter", DEFAULT.rewriter + "\nHYDE", settings=settings, retriever=retriever,
               roles_factory=by_prompt([]))


@pytest.mark.parametrize("template, message", [
    ("{question} {context} {api_key}", "unknown variable"),
    ("{question} only", r"must use \{context\}"),
    ("{question", "syntax"),
    ("   ", "empty"),
])
def test_bad_template_is_refused_before_anything_runs(settings, retriever, template, message):
    made = []
    with pytest.raises(PromptTemplateError, match=message):
        run_ab(QUESTION, "grader", template, settings=settings, retriever=retriever, roles_factory=by_prompt(made))
    assert retriever.queries == [] and made == []


def test_bad_template_a_unknown_role_and_bad_question(settings, retriever):
    with pytest.raises(PromptTemplateError, match="unknown variable"):
        run_ab(QUESTION, "grader", STRICT_GRADER, template_a="{question}{context}{x}", settings=settings,
               retriever=retriever, roles_factory=by_prompt([]))
    with pytest.raises(PromptTemplateError, match="unknown role"):
        run_ab(QUESTION, "summarizer", "{question}", settings=settings, retriever=retriever,
               roles_factory=by_prompt([]))
    with pytest.raises(InvalidQuestionError):
        run_ab("  ", "grader", STRICT_GRADER, settings=settings, retriever=retriever, roles_factory=by_prompt([]))
    assert retriever.queries == []


def test_a_failing_variant_still_shows_the_other(settings, retriever):
    def factory(prompts):
        if "FAIL" in prompts.grader:
            raise RuntimeError("cannot build the model client")
        return FakeRoles().roles()

    result = run_ab(QUESTION, "grader", DEFAULT.grader + "FAIL", settings=settings, retriever=retriever,
                    roles_factory=factory)
    assert result.a.error is None and result.a.route == "answer"
    assert result.b.error == "RuntimeError: cannot build the model client"
    assert any("variant B failed" in n for n in result.notes)


def test_a_degrading_model_is_visible_not_fatal(settings, retriever):
    """A grader that errors degrades inside the graph (fail closed); the A/B shows it in the diff."""
    def factory(prompts):
        return FakeRoles(grader=RuntimeError("HTTP 500")).roles() if "FAIL" in prompts.grader else FakeRoles().roles()

    result = run_ab(QUESTION, "grader", DEFAULT.grader + "FAIL", settings=settings, retriever=retriever,
                    roles_factory=factory)
    assert result.b.error is None and result.b.route == "no_knowledge"
    assert any(row.path == "rag_trace.grading_error" for row in result.diff)


def test_uses_a_run_history_checkpointer(tmp_path, settings, retriever):
    with RunHistory(tmp_path / "ab.db") as history:
        result = run_ab(QUESTION, "grader", STRICT_GRADER, settings=settings, retriever=retriever,
                        history_or_checkpointer=history, roles_factory=by_prompt([]))
        snap = history.graph("main").get_state({"configurable": {"thread_id": result.thread_id}})
        assert snap.values["route"] in ("answer", "clarify")
    with pytest.raises(TypeError):
        run_ab(QUESTION, "grader", STRICT_GRADER, settings=settings, retriever=retriever,
               history_or_checkpointer=object(), roles_factory=by_prompt([]))


def test_default_roles_come_from_the_prompt_set(settings, retriever, monkeypatch):
    """Without a factory, each side's roles are `get_default_roles(settings, that side's prompts)`."""
    seen = []
    import rag.models.factory as factory

    monkeypatch.setattr(factory, "get_default_roles", lambda s, p: (seen.append(p), FakeRoles().roles())[1])
    run_ab(QUESTION, "grader", STRICT_GRADER, settings=settings, retriever=retriever)
    assert [p.grader for p in seen].count(STRICT_GRADER) == 1
    assert seen[0].grader == DEFAULT.grader
