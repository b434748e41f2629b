"""The Evaluate page's retrieval tuning under AppTest: a retrieval-only pass shows the funnel, the
metrics per stage and the cases lost at each stage (a gold passage in no chunk named as such); a
sweep draws its chart, lists every point with its funnel, shows the command line, and "Use these
settings" puts the point's settings in this session's overrides; a bad sweep line is explained."""
from __future__ import annotations

import pytest

from rag_debugger.ui.streamlit_state import OVERRIDES_KEY
from tests.ui.test_evaluate_apptest import evaluate_page, new_app, problems

CASES = [
    {"id": "temp", "question": "What is the operating temperature range of the Lumen X2?",
     "expected_sources": ["lumen_x2_manual.md"]},
    {"id": "typo", "question": "How do I reset the Nova?", "expected_passages": ["words in no document at all"]},
    {"id": "no_gold", "question": "What is the capital of Australia?"},
]


@pytest.fixture
def sparse_set(eval_sets, monkeypatch):
    monkeypatch.setenv("RAG_DENSE_ENABLED", "false")  # sparse only: quick, and the funnel is the same
    return eval_sets(CASES)


def frame_with(at, column):
    for df in at.dataframe:
        if column in df.value.columns:
            return df.value
    raise AssertionError(f"no table with a {column!r} column")


def test_retrieval_only_shows_the_funnel_metrics_and_the_lost_cases(sparse_set):
    at = evaluate_page(new_app().run())
    at.button(key="retr_run").click().run()
    assert not problems(at)
    funnel = frame_with(at, "meaning").set_index("stage")["cases"]
    assert (funnel["kept"], funnel["not_in_kb"], funnel.sum()) == (1, 1, 2)
    metrics = frame_with(at, "recall").set_index("stage")
    assert metrics.loc["final", "recall"] == 1.0 and "fusion" in metrics.index
    lost = [e for e in at.expander if e.label.startswith("not in the knowledge base")]
    assert lost and lost[0].label.endswith(": 1")
    assert any("words in no document at all" in m.value for m in lost[0].markdown)
    assert any(b.key == "retr_open_not_in_kb_0" for b in at.button)


def test_a_lost_case_opens_in_the_step_debugger(sparse_set):
    """The section is handed the evaluation page's own "Open in step debugger" (it does not import the page)."""
    at = evaluate_page(new_app().run())
    at.button(key="retr_run").click().run()
    at.button(key="retr_open_not_in_kb_0").click().run()
    assert not problems(at)
    assert at.session_state["question"] == "How do I reset the Nova?"
    assert any("Opened the evaluation case" in i.value for i in at.info)
    assert at.session_state["debug_session"].question == "How do I reset the Nova?"


def test_a_sweep_plots_its_points_and_use_these_settings_applies_one(sparse_set):
    at = evaluate_page(new_app().run())
    at.text_area(key="retr_axes").set_value("RAG_TOP_K=1,4\nRAG_RRF_K=60").run()
    at.button(key="retr_sweep_run").click().run()
    assert not problems(at)
    points = frame_with(at, "pareto")
    assert list(points["settings"]) == ["RAG_TOP_K=1 RAG_RRF_K=60", "RAG_TOP_K=4 RAG_RRF_K=60"]
    assert "kept" in points.columns and "not_in_kb" in points.columns
    charts = at.get("vega_lite_chart")
    assert charts and "Pareto" in charts[0].proto.spec
    assert any("--sweep RAG_TOP_K=1,4 --sweep RAG_RRF_K=60" in c.value for c in at.code)
    at.selectbox(key="retr_pick").set_value(2).run()
    at.button(key="retr_use").click().run()
    assert at.session_state[OVERRIDES_KEY] == {"top_k": 4, "rrf_k": 60}
    assert not problems(at)


def test_a_bad_sweep_line_is_explained_and_nothing_runs(sparse_set):
    at = evaluate_page(new_app().run())
    at.text_area(key="retr_axes").set_value("RAG_PROMPT_VERSION=a,b").run()
    at.button(key="retr_sweep_run").click().run()
    assert not at.exception
    assert any("not a retrieval setting" in str(w.body) for w in [*at.warning, *at.error])
    assert not [df for df in at.dataframe if "pareto" in df.value.columns]


def test_a_sweep_draws_the_funnel_of_every_point(sparse_set):
    """Where each point loses its cases: one stacked bar per point, its stages' counts from the point's funnel."""
    import json

    at = evaluate_page(new_app().run())
    at.text_area(key="retr_axes").set_value("RAG_TOP_K=1,4").run()
    at.button(key="retr_sweep_run").click().run()
    assert not problems(at)
    [funnel] = [c for c in at.get("vega_lite_chart") if '"cases"' in c.proto.spec and "stage" in c.proto.spec]
    import pyarrow as pa

    spec = json.loads(funnel.proto.spec)
    [data] = [pa.ipc.open_stream(d.data.data).read_pandas() for d in funnel.proto.datasets]  # the chart's rows
    drawn = {(r.point, r.stage): r.cases for r in data.itertuples()}
    points = frame_with(at, "pareto").set_index("point")
    for point in (1, 2):
        for stage in ("kept", "not_in_kb"):
            assert drawn.get((point, stage), 0) == points.loc[point, stage]
    assert drawn[(1, "not_in_kb")] == 1 and drawn[(2, "kept")] == 1
    assert spec["encoding"]["x"]["stack"] == "zero" and spec["mark"]["type"] == "bar"
