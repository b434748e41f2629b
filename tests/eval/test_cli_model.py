"""`python -m rag.eval` against a model: the fake OpenAI-compatible server on loopback plays the
model, so the tests count real HTTP requests (the cache) and make the grader's answer depend on the
prompt it is sent (the comparison of two prompt versions)."""
from __future__ import annotations

import json

import pytest

from rag.eval.__main__ import main
from rag.prompts.templates import load_default_prompts
from rag.prompts.versions import save_version
from tests.support.fake_openai import FakeOpenAI, running_fake_openai

KEY = "sk-test-eval-7c1d9e"
#: A line only the "strict" prompt version's grader prompt carries; the fake grader says
#: no_knowledge whenever it sees it, as a real model might after a too-strict instruction.
STRICT = "If the evidence does not literally contain the answer, say no_knowledge."

PLAN = {"complexity": "simple", "complexity_reason": "one question", "sub_questions": []}
ANSWER = {"relevance": "strong", "answerability": "sufficient", "ambiguity": "none", "confidence": 0.9,
          "route": "answer", "reason": "the evidence states it", "missing_slots": [], "hitl_prompt": "",
          "hitl_options": []}
NOTHING = {**ANSWER, "relevance": "none", "answerability": "none", "route": "no_knowledge",
           "reason": "nothing literal"}

SET_LINES = [
    {"id": "temp", "question": "What is the operating temperature range of the Lumen X2?", "expected_route": "answer",
     "expected_sources": ["lumen_x2_manual.md"]},
    {"id": "battery", "question": "How long does the Nova Speaker battery last?", "expected_route": "answer"},
    {"id": "weather", "question": "What is the capital of Australia?", "expected_route": "no_knowledge"},
]


def grade(req) -> dict:
    if STRICT in req.text:
        return NOTHING
    return NOTHING if "Australia" in req.text else ANSWER


@pytest.fixture
def fake() -> FakeOpenAI:
    with running_fake_openai() as server:
        server.reply(PLAN, schema="ComplexityResult")
        server.reply(grade, schema="EvidenceGrade")
        yield server


@pytest.fixture
def model_env(fake, monkeypatch, tmp_path):
    """The process environment of a CI job pointing the CLI at the fake model, with its own call
    cache and prompt-version folder."""
    values = {"RAG_MODEL_PROVIDER": "openai", "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": fake.base_url,
              "FAST_MODEL": "fast-model", "GRADE_MODEL": "grade-model", "RAG_MODEL_MAX_RETRIES": "0",
              "RAG_CACHE_DIR": str(tmp_path / "cache"), "RAG_PROMPT_DIR": str(tmp_path / "versions")}
    for key, value in values.items():
        monkeypatch.setenv(key, value)
    for key in ("RAG_PROMPT_VERSION", "RERANK_MODEL", "RERANK_API_KEY", "RERANK_HOST", "RAG_CANDIDATE_K",
                "RAG_MIN_SCORE"):
        monkeypatch.delenv(key, raising=False)
    default = load_default_prompts()
    save_version("baseline", default, directory=tmp_path / "versions")
    strict = default.model_copy(update={"grader": default.grader + "\n" + STRICT + "\n"})
    save_version("strict", strict, directory=tmp_path / "versions")
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(c) for c in SET_LINES) + "\n", "utf-8")
    return path


def test_an_unchanged_rerun_makes_no_model_call(fake, model_env, capsys):
    assert main([str(model_env), "--quiet"]) == 0
    first = len(fake.requests)
    assert first >= len(SET_LINES)  # every case asked the model at least once
    out = capsys.readouterr().out
    assert "route_accuracy: 1.000" in out and f"model calls: {first} made, 0 from the cache" in out

    assert main([str(model_env), "--quiet"]) == 0
    assert len(fake.requests) == first, "the second run reached the model"
    out = capsys.readouterr().out
    assert "route_accuracy: 1.000" in out and f"model calls: 0 made, {first} from the cache" in out
    assert KEY not in out


def test_a_changed_prompt_pays_only_for_the_calls_it_reaches(fake, model_env, capsys):
    main([str(model_env), "--quiet", "--prompt-version", "baseline"])
    planner_calls = len(fake.requests_for("ComplexityResult"))
    grader_calls = len(fake.requests_for("EvidenceGrade"))
    main([str(model_env), "--quiet", "--prompt-version", "strict"])
    # the planner's prompt is the same in both versions: answered from the cache
    assert len(fake.requests_for("ComplexityResult")) == planner_calls
    assert len(fake.requests_for("EvidenceGrade")) > grader_calls


def test_no_cache_asks_the_model_again(fake, model_env):
    main([str(model_env), "--quiet"])
    first = len(fake.requests)
    main([str(model_env), "--quiet", "--no-cache"])
    assert len(fake.requests) == 2 * first


def test_compare_names_the_cases_a_grader_prompt_change_broke(fake, model_env, capsys, tmp_path):
    out_file = tmp_path / "results.json"
    code = main([str(model_env), "--quiet", "--prompt-version", "strict", "--compare", "baseline",
                 "--min-route-accuracy", "0.9", "--out", str(out_file)])
    out = capsys.readouterr().out
    assert code == 1  # the strict version is under the gate
    assert "regressed: 2" in out and "fixed: 0" in out
    regressed = out.split("regressed: 2", 1)[1].split("fixed:", 1)[0]
    assert "temp: expected answer; baseline: answer; strict: no_knowledge" in regressed
    assert "battery:" in regressed and "weather" not in regressed
    side = [line.split() for line in out.splitlines() if line.startswith("route_accuracy ")]
    assert side == [["route_accuracy", "1.000", "0.333"]]
    assert out.strip().splitlines()[-3:] == ["route_accuracy: 0.333", "source_hit_rate: 1.000", "cases: 3"]
    doc = json.loads(out_file.read_text("utf-8"))
    assert doc["prompt_version"] == "strict" and doc["compare"]["prompt_version"] == "baseline"
    assert {c["id"]: c["status"] for c in doc["compare"]["changes"]} == {
        "temp": "regressed", "battery": "regressed", "weather": "same"}


def test_an_unknown_prompt_version_is_a_clear_error(model_env, capsys):
    assert main([str(model_env), "--prompt-version", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown prompt version 'nope'") and "Traceback" not in err
