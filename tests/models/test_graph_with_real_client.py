"""The whole graph on the OpenAI-compatible roles: real ChatOpenAI client, loopback server, public API only."""
from __future__ import annotations

import pytest

from rag import run_rag_graph
from rag.models.openai_compat import build_openai_roles
from rag.schemas import Chunk, RetrievalResult
from tests.models.conftest import GRADE, PLAN, REWRITE
from tests.support.fake_openai import Delay, Respond

COMPLEX_QUESTION = "Compare the attack of Alpha with the defense of Beta, and explain which one wins and why"


class StaticRetriever:
    name = "static"

    def search(self, query: str) -> RetrievalResult:
        chunks = [Chunk(chunk_id="c1", filename="kb.md", page_number=1, text="Alpha has attack 5.", score=0.9),
                  Chunk(chunk_id="c2", filename="kb.md", page_number=2, text="Beta has defense 3.", score=0.8)]
        return RetrievalResult(chunks=chunks, trace_fields={})


@pytest.mark.parametrize("method", ["json_schema", "function_calling", "json_mode"])
def test_a_complex_question_runs_end_to_end(fake_openai, make_settings, method):
    fake_openai.reply(PLAN, schema="ComplexityResult")
    fake_openai.reply(GRADE, schema="EvidenceGrade")
    fake_openai.reply(REWRITE, schema="RewritePlan")
    settings = make_settings(structured_output_method=method)

    result = run_rag_graph(COMPLEX_QUESTION, settings=settings, roles=build_openai_roles(settings),
                           retriever=StaticRetriever())

    assert result["route"] == "answer"
    assert set(fake_openai.methods_seen) == {method}
    assert len(fake_openai.requests_for("ComplexityResult")) == 1
    assert len(fake_openai.requests_for("EvidenceGrade")) == len(PLAN["sub_questions"]), "one grade per sub-question"


def test_a_grader_timeout_degrades_instead_of_crashing(fake_openai, make_settings):
    fake_openai.reply({"complexity": "simple", "complexity_reason": "one intent", "sub_questions": []},
                      schema="ComplexityResult")
    fake_openai.script(Delay(5, Respond(GRADE)), schema="EvidenceGrade")
    settings = make_settings(model_timeout_seconds=0.5)

    result = run_rag_graph(COMPLEX_QUESTION, settings=settings, roles=build_openai_roles(settings),
                           retriever=StaticRetriever())

    assert result["route"] == "no_knowledge", "the grader fails closed"


@pytest.mark.parametrize("method", ["function_calling", "json_mode"])
def test_a_grade_without_confidence_answers_instead_of_failing_closed(fake_openai, make_settings, method):
    fake_openai.reply({"complexity": "simple", "complexity_reason": "one intent", "sub_questions": []},
                      schema="ComplexityResult")
    fake_openai.reply({k: v for k, v in GRADE.items() if k != "confidence"}, schema="EvidenceGrade")
    settings = make_settings(structured_output_method=method)

    result = run_rag_graph(COMPLEX_QUESTION, settings=settings, roles=build_openai_roles(settings),
                           retriever=StaticRetriever())

    assert result["route"] == "answer" and result["retrieval_status"] == "answerable"
    trace = result["rag_trace"]
    assert trace["evidence_confidence"] == 0.0 and trace["evidence_reason"] == GRADE["reason"]


@pytest.mark.parametrize("schema", ["ComplexityResult", "EvidenceGrade"])
def test_stop_during_a_model_call_leaves_the_graph_instead_of_degrading(fake_openai, make_settings, schema):
    """Stop is not a model failure: the node must not fall back (planner -> simple, grader -> no_knowledge)
    as if the model had failed; CallCancelled leaves the graph (the debugger then stays before the node)."""
    import threading

    from rag.models.calls import CallCancelled, live_calls
    from tests.support.fake_openai import SlowStream

    fake_openai.reply(PLAN, schema="ComplexityResult")
    fake_openai.script(SlowStream(pieces=None, interval=0.05), schema=schema, first=True)
    settings = make_settings(model_timeout_seconds=30)
    stop = threading.Event()
    threading.Thread(target=lambda: (fake_openai.wait_for_requests(1 if schema == "ComplexityResult" else 2, 10),
                                     stop.set()), daemon=True).start()
    with live_calls(None, stop), pytest.raises(CallCancelled):
        run_rag_graph(COMPLEX_QUESTION, settings=settings, roles=build_openai_roles(settings),
                      retriever=StaticRetriever())
