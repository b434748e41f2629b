"""The engine's progress steps stay English (a protocol, recorded in runs and the demo pack) and are
shown in the reader's language: `translate_progress` recognises text made from a template and
translates its words, leaving the values (routes, stages, questions, counts, errors) as they are."""
from __future__ import annotations

import json
import re

import pytest

from rag.graph import progress_labels as P
from rag.graph.progress_labels import TEMPLATES, match_progress, translate_progress, translate_step
from rag.i18n import _, use_language
from rag.runs.demo_pack import DEMO_RUNS_DIR

CJK = re.compile(r"[\u3400-\u9fff]")

SAMPLES: dict[str, dict[str, str]] = {
    P.COMPLEXITY_FAST_PATH: {},
    P.PLANNER_UNAVAILABLE: {},
    P.COMPLEXITY: {"complexity": "simple"},
    P.COMPLEXITY_SPLIT: {"complexity": "complex", "n": "3"},
    P.RETRIEVAL: {"stage": "hitl_targeted_retrieval"},
    P.RETRIEVAL_DETAIL: {"n": "5", "mode": "sparse_only"},
    P.RETRIEVAL_DETAIL_ERROR: {"n": "0", "mode": "failed", "error": "TimeoutError: read timed out"},
    P.GRADE: {"route": "scope_select"},
    P.REWRITE_BUDGET_SPENT: {},
    P.NO_SECOND_REWRITE: {},
    P.REWRITER_UNAVAILABLE: {"route": "no_knowledge"},
    P.REWRITE: {"method": "step_back"},
    P.SUB_QUESTION: {"i": "2", "n": "3"},
    P.SYNTHESIS: {"route": "answer"},
    P.SYNTHESIS_DETAIL: {"docs": "4", "results": "2", "merged": "6"},
    P.RESUME: {},
    P.RESUME_DETAIL: {"route": "clarify", "answer": "国服"},
}


def test_every_template_has_a_sample():
    assert set(SAMPLES) == set(TEMPLATES)


@pytest.mark.parametrize("template", TEMPLATES)
def test_every_template_round_trips(template):
    params = SAMPLES[template]
    english = template.format(**params)
    assert match_progress(english) == (template, params)
    with use_language("en"):
        assert translate_progress(english) == english
    with use_language("zh"):
        chinese = translate_progress(english)
        assert chinese == _(template).format(**params)
    assert chinese != english and CJK.search(chinese), chinese
    for value in params.values():
        assert value in chinese  # the data stays as it was emitted


@pytest.mark.parametrize("text", [
    "", "丹瑾是什么属性？", "What is the warranty of the Lumen X2?", "strong/sufficient/none — [offline rules] ok",
    "Retrieval", "Grade answer", "planner_unavailable:TimeoutError: took too long", "Complexity:",
])
def test_text_not_made_from_a_template_is_unchanged(text):
    with use_language("zh"):
        assert translate_progress(text) == text


def test_the_most_literal_template_wins():
    assert match_progress("Complexity: simple (fast path)") == (P.COMPLEXITY_FAST_PATH, {})
    assert match_progress("3 chunks, mode hybrid — RetrieverError: down")[0] == P.RETRIEVAL_DETAIL_ERROR
    with use_language("zh"):
        assert translate_progress("Complexity: simple (fast path)") == "复杂度：simple（快速通道）"
        assert translate_progress("Retrieval (initial)") == "检索（initial）"
        assert translate_progress("Grade → answer") == "评分 → answer"


def test_a_step_is_translated_without_changing_the_original():
    step = {"icon": "🔎", "label": "Retrieval (initial)", "detail": "5 chunks, mode hybrid", "elapsed_ms": 3}
    with use_language("zh"):
        shown = translate_step(step)
    assert shown == {**step, "label": "检索（initial）", "detail": "5 个文本块，模式 hybrid"}
    assert step["label"] == "Retrieval (initial)"


def _recorded_steps() -> list[dict]:
    steps = []
    for path in sorted(DEMO_RUNS_DIR.glob("*.json")):
        steps.extend(json.loads(path.read_text(encoding="utf-8")).get("progress") or [])
    return steps


def test_every_label_of_the_demo_pack_is_a_template_and_reads_in_chinese():
    """The nodes emit from the templates, so a recorded run (English) is shown translated."""
    steps = _recorded_steps()
    assert steps
    for step in steps:
        assert match_progress(step["label"]) is not None, step["label"]
        with use_language("zh"):
            assert CJK.search(translate_progress(step["label"])), step["label"]


def test_a_live_run_emits_only_template_text(monkeypatch):
    """A run with a rewrite, a complex run and a HITL resume: every label comes from the table."""
    monkeypatch.setenv("RAG_MODEL_PROVIDER", "offline")
    from rag.api import resume_rag_from_hitl, run_rag_graph
    from rag.demo import load_demo_questions

    demos = {d.expected_route: d for d in load_demo_questions()}
    steps = []
    for route in ("rewrite_then_answer", "complex", "no_knowledge"):
        demo = demos.get(route)
        if demo is not None:
            run_rag_graph(demo.question, progress=steps.append)
    clarify = demos["clarify"]
    result = run_rag_graph(clarify.question, progress=steps.append)
    resume_rag_from_hitl(result["hitl_resume_state"], clarify.hitl_answer, progress=steps.append)
    labels = {s.label for s in steps}
    assert any(label.startswith("Resume") for label in labels)
    assert [label for label in labels if match_progress(label) is None] == []


def test_the_progress_table_and_the_timeline_mark_read_in_chinese():
    """Where the page shows progress: the table (inspector and playground) and the timeline's mark."""
    from rag_debugger.views.icons import progress_mark
    from rag_debugger.views.progress_html import progress_frame, progress_html

    steps = [{"label": "Grade → rewrite", "detail": "strong/partial/none — [offline rules] x", "group_label": "A?",
              "elapsed_ms": 5, "stage_elapsed_ms": 2},
             {"label": "Resume from HITL", "detail": "clarify answered: 国服", "elapsed_ms": 9, "stage_elapsed_ms": 1}]
    with use_language("zh"):
        frame = progress_frame(steps)
        html = progress_html(steps, table_id="t")
        marks = [progress_mark(s) for s in steps]
    assert frame.iloc[:, 0].tolist() == ["评分 → rewrite", "HITL 恢复"]
    assert frame.iloc[:, 1].tolist() == ["strong/partial/none — [offline rules] x", "clarify 的回答：国服"]
    assert "评分 → rewrite" in html and "Resume from HITL" not in html
    assert marks == ["评分", "HITL"]
    assert [progress_mark(s) for s in steps] == ["Grade", "Resume"]
