"""The traces runs leave, read from the SDK's in-memory exporter: the span tree, the OpenInference kinds
and attributes, fan-out lanes as parallel children, a HITL resume tied to its run, LLM spans from the
real langchain-openai client, and no credential anywhere."""
from __future__ import annotations

import json

from openinference.semconv.resource import ResourceAttributes
from openinference.semconv.trace import DocumentAttributes, MessageAttributes, SpanAttributes

from rag.api import resume_rag_from_hitl, run_rag_graph
from rag.demo import load_demo_questions
from rag.models.openai_compat import build_openai_roles
from rag.settings import RagSettings
from rag.telemetry import spans as S
from rag_debugger.workbench.session import DebugSession
from tests.models.conftest import FAKE_KEY, GRADE, PLAN, REWRITE
from tests.support.fake_openai import running_fake_openai
from tests.telemetry.conftest import by_name, children, kind

OFFLINE = RagSettings(model_provider="offline")


def _demo(route: str):
    return next(d for d in load_demo_questions() if d.expected_route == route)


def test_the_literal_names_are_the_openinference_ones():
    assert S.KIND == SpanAttributes.OPENINFERENCE_SPAN_KIND
    assert (S.INPUT, S.OUTPUT, S.SESSION_ID) == (SpanAttributes.INPUT_VALUE, SpanAttributes.OUTPUT_VALUE,
                                                 SpanAttributes.SESSION_ID)
    assert f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.0.{DocumentAttributes.DOCUMENT_CONTENT}" == \
        "retrieval.documents.0.document.content"
    assert f"{SpanAttributes.LLM_INPUT_MESSAGES}.0.{MessageAttributes.MESSAGE_CONTENT}" == \
        "llm.input_messages.0.message.content"
    assert SpanAttributes.LLM_TOKEN_COUNT_PROMPT == "llm.token_count.prompt"
    assert ResourceAttributes.PROJECT_NAME == "openinference.project.name"


def test_an_api_run_is_one_trace_run_steps_nodes_and_retriever(spans):
    result = run_rag_graph(_demo("answer").question, settings=OFFLINE)
    done = spans.get_finished_spans()
    assert len({s.context.trace_id for s in done}) == 1
    (root,) = by_name(done, "rag.run")
    assert root.parent is None and kind(root) == "CHAIN"
    assert root.attributes["input.value"] == _demo("answer").question
    assert root.attributes["rag.route"] == result["route"] == "answer"
    assert root.attributes["rag.retrieval_status"] == result["retrieval_status"]
    steps = children(done, root)
    assert [s.name for s in steps] == [f"step {i}" for i in range(1, len(steps) + 1)]
    nodes = [n.name for step in steps for n in children(done, step)]
    assert nodes[:3] == ["classify_complexity", "retrieve_initial", "grade_documents"]
    (retriever,) = [s for s in done if kind(s) == "RETRIEVER"]
    assert retriever.parent.span_id == by_name(done, "retrieve_initial")[0].context.span_id
    docs = result["rag_trace"]["retrieved_chunks"]
    assert docs and retriever.attributes["retrieval.documents.0.document.content"] == docs[0]["text"][:500] + (
        "…" if len(docs[0]["text"]) > 500 else "")
    assert retriever.attributes["retrieval.documents.0.document.score"] == docs[0]["score"]
    assert retriever.attributes["rag.retrieval_mode"] == result["rag_trace"]["retrieval_mode"]
    assert "filename" in json.loads(retriever.attributes["retrieval.documents.0.document.metadata"])
    for span in done:
        assert span.start_time <= span.end_time
        assert root.start_time <= span.start_time and span.end_time <= root.end_time
    assert root.resource.attributes["openinference.project.name"] == "rag-debugger-tests"


def test_fanout_lanes_are_parallel_children_of_one_step(spans):
    run_rag_graph(_demo("complex").question, settings=OFFLINE)
    done = spans.get_finished_spans()
    lanes = by_name(done, "rag_sub_agent")
    assert len(lanes) >= 2
    assert len({lane.parent.span_id for lane in lanes}) == 1, "every lane under the same superstep"
    assert sorted(lane.attributes["rag.lane"] for lane in lanes) == list(range(len(lanes)))
    latest_start = max(lane.start_time for lane in lanes)
    assert all(lane.end_time >= latest_start for lane in lanes), "the lanes overlap in time"
    retrievers = [s for s in done if kind(s) == "RETRIEVER" and
                  s.parent.span_id in {lane.context.span_id for lane in lanes}]
    assert len(retrievers) == len(lanes), "each lane's retrieval under its lane"


def test_a_hitl_resume_is_tied_to_the_run_that_asked(spans):
    demo = _demo("clarify")
    first = run_rag_graph(demo.question, settings=OFFLINE)
    assert first.get("hitl_resume_state")
    resume_rag_from_hitl(first["hitl_resume_state"], demo.hitl_answer, settings=OFFLINE)
    done = spans.get_finished_spans()
    (run,) = by_name(done, "rag.run")
    (resume,) = by_name(done, "rag.hitl_resume")
    assert run.attributes["session.id"] == resume.attributes["session.id"]
    assert resume.parent.span_id == run.context.span_id and resume.context.trace_id == run.context.trace_id
    assert [link.context.span_id for link in resume.links] == [run.context.span_id]


def test_an_unrelated_run_shares_no_session():
    assert S.snapshot_session_id({"question": "a"}) != S.snapshot_session_id({"question": "b"})
    assert S.snapshot_session_id(None) is None


def test_llm_spans_from_the_real_client_carry_model_messages_tokens_and_no_secret(spans):
    with running_fake_openai() as fake:
        fake.reply(PLAN, schema="ComplexityResult")
        fake.reply(GRADE, schema="EvidenceGrade")
        fake.reply(REWRITE, schema="RewritePlan")
        base = fake.base_url.replace("http://", "http://alice:pa55word-XYZ-987@")
        settings = RagSettings(model_provider="openai", openai_api_key=FAKE_KEY, openai_base_url=base,
                               fast_model="fast-model", grade_model="grade-model", model_timeout_seconds=2,
                               model_max_retries=0, structured_output_method="json_schema")
        question = f"Compare Alpha and Beta; my key is {FAKE_KEY} and my proxy http://alice:pa55word-XYZ-987@proxy/"
        run_rag_graph(question, settings=settings, roles=build_openai_roles(settings))
    done = spans.get_finished_spans()
    llm = [s for s in done if kind(s) == "LLM"]
    assert {s.attributes["llm.model_name"] for s in llm} >= {"fast-model", "grade-model"}
    planner = next(s for s in llm if s.attributes["llm.model_name"] == "fast-model")
    assert planner.attributes["llm.token_count.prompt"] == 10
    assert planner.attributes["llm.token_count.completion"] == 10
    assert planner.attributes["llm.token_count.total"] == 20
    assert json.loads(planner.attributes["llm.invocation_parameters"]) == {"structured_output_method": "json_schema"}
    assert "Compare Alpha and Beta" in planner.attributes["llm.input_messages.0.message.content"]
    assert "complex" in planner.attributes["llm.output_messages.0.message.content"]
    assert planner.attributes["rag.model.latency_ms"] > 0
    lanes = {s.context.span_id: s for s in done if kind(s) == "CHAIN"}
    assert all(lanes[s.parent.span_id].name in ("classify_complexity", "rag_sub_agent", "grade_documents",
                                                 "rewrite_question") for s in llm), "each call under its lane"
    blob = json.dumps([dict(s.attributes) for s in done] + [dict(s.resource.attributes) for s in done])
    for secret in (FAKE_KEY, FAKE_KEY[:12], FAKE_KEY[-10:], "pa55word-XYZ-987"):
        assert secret not in blob
    assert "[redacted]" in blob


def test_a_failing_model_call_is_an_error_span(spans):
    with running_fake_openai() as fake:  # nothing scripted: every call is an HTTP 500
        settings = RagSettings(model_provider="openai", openai_api_key=FAKE_KEY, openai_base_url=fake.base_url,
                               model_timeout_seconds=2, model_max_retries=0)
        run_rag_graph("What is the operating temperature range of the Lumen X2?", settings=settings,
                      roles=build_openai_roles(settings))
    llm = [s for s in spans.get_finished_spans() if kind(s) == "LLM"]
    assert llm and all(s.status.status_code.name == "ERROR" and s.attributes["rag.model.error_kind"] for s in llm)


def test_a_debugger_run_and_its_hitl_resume(spans):
    demo = _demo("clarify")
    session = DebugSession(OFFLINE)
    session.start(demo.question)
    session.step()
    assert spans.get_finished_spans() == (), "nothing is sent before the run ends"
    session.run_to_end()
    done = spans.get_finished_spans()
    (run,) = by_name(done, "rag.run")
    steps = children(done, run)
    assert len(steps) == len(session.current.stepper.steps)
    assert [n.name for n in children(done, steps[0])] == ["classify_complexity"]
    assert any(kind(s) == "RETRIEVER" for s in done)
    session.answer_hitl(demo.hitl_answer)
    session.run_to_end()
    session.run_to_end()  # nothing left to run: the run is not sent twice
    (resume,) = by_name(spans.get_finished_spans(), "rag.hitl_resume")
    assert resume.parent.span_id == run.context.span_id
    assert resume.attributes["session.id"] == run.attributes["session.id"]


def test_a_run_of_your_own_graph_sends_run_and_node_spans(spans):
    from rag.telemetry.graph_session import TelemetryHook
    from rag_debugger.debugger.session import GraphSession

    session = GraphSession.open("rag_debugger.examples.fanout:graph", hooks=[TelemetryHook()])
    session.start({"words": ["a", "bb", "ccc"]})
    session.run_to_end()
    done = spans.get_finished_spans()
    (root,) = by_name(done, "graph.run")
    assert root.attributes["rag.graph"] == "rag_debugger.examples.fanout:graph"
    assert {kind(s) for s in done} == {"CHAIN"}
    fanned = [s for s in done if s.attributes.get("rag.lane") == 2]
    assert fanned, "the three Send lanes are three sibling spans"


def test_off_loads_no_exporter():
    """(langsmith, under langchain-core, imports `opentelemetry.sdk.trace` itself once the SDK is installed;
    the exporters, the conventions and our span code stay unloaded.)"""
    import subprocess
    import sys

    code = ("import os, sys\nfor k in list(os.environ):\n    k.startswith('OTEL_') and os.environ.pop(k)\n"
            "from rag import run_rag_graph\nfrom rag.settings import RagSettings\n"
            "run_rag_graph('What is the operating temperature range of the Lumen X2?', "
            "settings=RagSettings(model_provider='offline'))\n"
            "print(sorted(m for m in sys.modules if m.startswith(('opentelemetry.exporter', 'openinference', "
            "'rag.telemetry.spans'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
