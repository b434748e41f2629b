"""Arize Phoenix as the receiver: runs exported over OTLP/HTTP arrive with their span kinds, the retriever's
documents and the token counts, read back through Phoenix's own REST API.

Phoenix (from PyPI, pinned) runs in a venv of its own, started with subprocess.Popen by
tests/support/phoenix.py on loopback; building that venv takes a minute on first use and a failure fails
this test with the reason."""
from __future__ import annotations

import time

import pytest

from rag import resume_rag_from_hitl, run_rag_graph
from rag.demo import load_demo_questions
from rag.models.openai_compat import build_openai_roles
from rag.settings import RagSettings
from rag.telemetry import exporter
from rag_debugger.workbench.session import DebugSession
from tests.models.conftest import FAKE_KEY, GRADE, PLAN, REWRITE
from tests.support.fake_openai import running_fake_openai
from tests.support.phoenix import PhoenixError, running_phoenix

PROJECT = "rag-phoenix-test"


@pytest.fixture(scope="module")
def phoenix():
    try:
        with running_phoenix() as server:
            yield server
    except PhoenixError as exc:
        pytest.fail(f"Phoenix could not be started: {exc}", pytrace=False)


def _attrs(span: dict) -> dict:
    attrs = span.get("attributes") or {}
    return attrs if isinstance(attrs, dict) else {}


def test_debugger_api_and_hitl_resume_runs_arrive_in_phoenix(phoenix, monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", phoenix.otlp_http)
    monkeypatch.setenv("OTEL_SERVICE_NAME", PROJECT)
    exporter.reset()
    demos = load_demo_questions()
    clarify = next(d for d in demos if d.expected_route == "clarify")
    try:
        with running_fake_openai() as fake:
            fake.reply(PLAN, schema="ComplexityResult")
            fake.reply(GRADE, schema="EvidenceGrade")
            fake.reply(REWRITE, schema="RewritePlan")
            online = RagSettings(model_provider="openai", openai_api_key=FAKE_KEY, openai_base_url=fake.base_url,
                                 fast_model="fast-model", grade_model="grade-model", model_timeout_seconds=5,
                                 model_max_retries=0, structured_output_method="json_schema")
            session = DebugSession(online)
            session.start("What is the operating temperature range of the Lumen X2?")
            session.run_to_end()
            run_rag_graph("How long does the Nova Speaker battery last?", settings=online,
                          roles=build_openai_roles(online))
        offline = RagSettings(model_provider="offline")
        asked = run_rag_graph(clarify.question, settings=offline)
        resume_rag_from_hitl(asked["hitl_resume_state"], clarify.hitl_answer, settings=offline)
        assert exporter.flush(15000)
        assert exporter.status().state == "ok", exporter.status()

        deadline = time.monotonic() + 30
        spans: list[dict] = []
        while time.monotonic() < deadline:
            spans = phoenix.spans(PROJECT)
            if sum(1 for s in spans if s.get("name") in ("rag.run", "rag.hitl_resume")) >= 4:
                break
            time.sleep(0.5)
    finally:
        exporter.reset()

    roots = [s for s in spans if s.get("name") == "rag.run"]
    resumes = [s for s in spans if s.get("name") == "rag.hitl_resume"]
    assert len(roots) == 3 and len(resumes) == 1, sorted({s.get("name") for s in spans})
    assert {s.get("span_kind") for s in spans} >= {"CHAIN", "RETRIEVER", "LLM"}
    assert all(s.get("span_kind") == "CHAIN" for s in roots + resumes)
    asking = next(s for s in roots if _attrs(s).get("input.value") == clarify.question)
    assert _attrs(resumes[0]).get("session.id") == _attrs(asking).get("session.id") is not None

    retrievers = [s for s in spans if s.get("span_kind") == "RETRIEVER"]
    assert retrievers and all(_attrs(s).get("retrieval.documents.0.document.content") for s in retrievers)
    assert all(isinstance(_attrs(s).get("retrieval.documents.0.document.score"), float) for s in retrievers)
    llm = [s for s in spans if s.get("span_kind") == "LLM"]
    assert len(llm) >= 4, "planner and grader of the debugger run and of the API run"
    assert all(_attrs(s).get("llm.token_count.prompt") == 10 and _attrs(s).get("llm.token_count.completion") == 10
               for s in llm)
    assert {_attrs(s).get("llm.model_name") for s in llm} == {"fast-model", "grade-model"}
    assert FAKE_KEY not in repr(spans)


def test_an_api_run_arrives_over_grpc(phoenix, monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", phoenix.otlp_grpc)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
    monkeypatch.setenv("OTEL_SERVICE_NAME", PROJECT + "-grpc")
    exporter.reset()
    try:
        run_rag_graph("How do I reset the Nova Thermostat?", settings=RagSettings(model_provider="offline"))
        assert exporter.flush(15000)
        assert exporter.status().state == "ok" and exporter.status().protocol == "grpc", exporter.status()
        deadline, spans = time.monotonic() + 30, []
        while time.monotonic() < deadline and not any(s.get("name") == "rag.run" for s in spans):
            time.sleep(0.5)
            spans = phoenix.spans(PROJECT + "-grpc")
    finally:
        exporter.reset()
    assert {s.get("span_kind") for s in spans} == {"CHAIN", "RETRIEVER"}
