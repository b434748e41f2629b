"""The Compare page under AppTest: two recorded runs (top_k 8 and 3) opened from a `?compare=` link name
their first divergence, list the setting that differs and show the retrieval step's chunk changes; the
Run history page offers Compare; a link to an unknown run says so; the Chinese page is in Chinese."""
from __future__ import annotations

import os

import pytest

from rag.settings import RagSettings

QUESTION = "What is the operating temperature range of the Lumen X2?"


@pytest.fixture
def two_runs(env):
    from rag.api import make_context
    from rag.runs.history import RunHistory
    from rag.runs.history_writes import run_recorded

    ids = []
    with RunHistory(os.environ["RAG_HISTORY_DB"]) as history:
        for top_k in (8, 3):
            settings = RagSettings(model_provider="offline", openai_api_key=None, top_k=top_k)
            ids.append(run_recorded(history, QUESTION, ctx=make_context(settings=settings)).run_id)
    return ids


def compare_page(app_test, pair: str, lang: str | None = None):
    app_test.query_params["compare"] = pair
    if lang:
        app_test.query_params["lang"] = lang
    at = app_test.switch_page("pages/compare.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def words(at) -> str:
    return "\n".join([m.value for m in at.markdown] + [s.value for s in at.subheader] + [c.value for c in at.caption]
                     + [str(t.value) for t in at.table])


def test_a_compare_link_names_the_first_divergence_and_the_setting(app_test, two_runs):
    at = compare_page(app_test, ",".join(two_runs))
    assert "The runs first differ at step 2 (`retrieve_initial`), in `docs`" in [s.value for s in at.subheader]
    assert "Different retrieved chunks." in words(at)
    tables = [t.value for t in at.table]
    settings = next(t for t in tables if "setting" in t.columns)
    assert settings.to_dict("records") == [{"setting": "top_k", "A": "8", "B": "3"}]
    chunks = next(t for t in tables if "change" in t.columns)
    assert "removed" in set(chunks["change"])
    steps = next(t for t in tables if "fields that differ" in t.columns)
    assert list(steps["status"]) == ["same", "differs", "same"]
    assert at.download_button(key="compare_report").label == "Download as HTML"  # rag_debugger/exports/compare_file.py


def test_the_same_run_twice_and_an_unknown_run_are_said_plainly(app_test, two_runs):
    at = compare_page(app_test, f"{two_runs[0]},no-such-run")
    assert any("no-such-run" in w.body for w in at.warning)
    at.selectbox(key="compare_b").set_value(two_runs[0]).run()
    assert "Pick two different runs." in [i.body for i in at.info]


def test_run_history_offers_compare_and_the_fork_original(app_test, two_runs):
    at = app_test.switch_page("pages/history.py").run()
    assert at.button(key="history_compare").label == "Compare"
    assert at.selectbox(key="history_compare_with").value in two_runs
    at.button(key="history_compare").click().run()
    assert not at.exception


def test_the_compare_page_in_chinese(app_test, two_runs):
    at = compare_page(app_test, ",".join(two_runs), lang="zh")
    assert any("retrieve_initial" in s.value and "docs" in s.value and "第" in s.value for s in at.subheader)


def test_two_answers_to_one_hitl_question_align_on_their_shared_main_run(app_test, env):
    from rag.api import make_context
    from rag.runs.history import RunHistory
    from rag.runs.history_writes import run_recorded

    settings = RagSettings(model_provider="offline", openai_api_key=None)
    with RunHistory(os.environ["RAG_HISTORY_DB"]) as history:
        ctx = make_context(settings=settings)
        main = run_recorded(history, "How do I update the firmware of the Lumen X2?", ctx=ctx)
        snapshot = main.result["hitl_resume_state"]
        ids = [run_recorded(history, kind="resume", snapshot=snapshot, answer=answer, parent_run_id=main.run_id,
                            ctx=ctx).run_id for answer in ("Android", "iOS")]
    at = compare_page(app_test, ",".join(ids))
    assert any("restore_from_snapshot" in s.value and "hitl_answer" in s.value for s in at.subheader)
    steps = next(t.value for t in at.table if "fields that differ" in t.value.columns)
    assert list(steps["segment"])[:3] == ["main", "main", "main"] and list(steps["status"])[:3] == ["same"] * 3
