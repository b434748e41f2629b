"""The engine's words in both languages: trace field meanings, node descriptions, user-facing errors and
demo labels follow the reader's language; the offline provider's reasons and HITL prompts follow the
QUESTION's language, whatever the reader's."""
from __future__ import annotations

import re

import pytest

from rag.i18n import use_language

CJK = re.compile(r"[\u3400-\u9fff]")


@pytest.fixture(autouse=True)
def _offline(monkeypatch):
    """The offline provider, whatever keys the developer's environment holds."""
    monkeypatch.setenv("RAG_MODEL_PROVIDER", "offline")


def test_every_trace_field_has_a_chinese_meaning():
    from rag.trace import RAG_TRACE_FIELDS
    from rag.trace_meanings import FIELD_MEANINGS, meaning

    with use_language("en"):
        english = {f: meaning(f) for f in RAG_TRACE_FIELDS}
    with use_language("zh"):
        chinese = {f: meaning(f) for f in RAG_TRACE_FIELDS}
    assert len(chinese) == 59
    assert english == FIELD_MEANINGS
    assert [f for f in RAG_TRACE_FIELDS if chinese[f] == english[f] or not CJK.search(chinese[f])] == []


def _graph_nodes(kind: str) -> set[str]:
    from rag.graph.build import compiled_graph

    return {n for n in compiled_graph(kind).get_graph().nodes if not n.startswith("__")}


@pytest.mark.parametrize("kind", ["main", "resume"])
def test_every_node_of_both_graphs_is_described_in_both_languages(kind):
    from rag.graph.build import node_docs

    nodes = _graph_nodes(kind)
    with use_language("en"):
        english = node_docs()
    with use_language("zh"):
        chinese = node_docs()
    assert nodes <= set(english) and nodes <= set(chinese)
    for node in nodes:
        assert len(english[node]) > 20 and not CJK.search(english[node]), node
        assert CJK.search(chinese[node]) and chinese[node] != english[node], node


def test_the_debugger_graph_tooltips_follow_the_language():
    """The session hands the drawing the descriptions in the language of the moment (not once at import)."""
    from rag_debugger.workbench.session import DebugSession

    session = DebugSession()
    with use_language("zh"):
        drawing = session.drawing()
        assert CJK.search(drawing.docs["grade_documents"]) and "工作流" in drawing.title
    with use_language("en"):
        assert session.drawing().docs["grade_documents"].startswith("Grades the evidence")


def test_an_error_raised_in_chinese_reads_in_chinese_and_in_english_by_default():
    from rag.api import validate_text
    from rag.errors import InvalidQuestionError, UserInputError
    from rag.ingest.kbs import validate_kb_name

    with pytest.raises(InvalidQuestionError, match="the question is empty"):
        validate_text("   ", what="question", limit=100)
    with use_language("zh"), pytest.raises(InvalidQuestionError) as raised:
        validate_text("   ", what="question", limit=100)
    assert str(raised.value) == "问题为空"
    with use_language("zh"), pytest.raises(UserInputError) as raised:
        validate_kb_name("Not A Name!")
    assert "知识库名称" in str(raised.value) and "'Not A Name!'" in str(raised.value)  # the data stays as typed


def test_a_blank_complexity_reason_in_a_snapshot_is_still_accepted_in_chinese():
    """The snapshot check skipped a blank `complexity_reason` by reading the English message; it must not
    depend on the language."""
    from rag.rules.hitl import parse_snapshot

    snapshot = {"question": "月卡多少钱？", "route": "clarify", "retrieval_status": "needs_clarification",
                "rewrite_count": 0, "complexity": "simple", "complexity_reason": "   ", "sub_questions": []}
    with use_language("zh"):
        assert parse_snapshot(snapshot, limit=100).question == "月卡多少钱？"


def test_degradation_consequences_follow_the_language():
    from rag.degradation import run_failures

    state = {"complexity_reason": "planner_unavailable:timeout: took too long"}
    with use_language("zh"):
        assert CJK.search(run_failures(state)[0].consequence)
    assert run_failures(state)[0].consequence == "the question was not planned; it took the simple chain"


def test_every_bundled_demo_label_has_a_chinese_button_label():
    from rag.demo import BUNDLED_LABELS, load_demo_questions

    demos = load_demo_questions()
    assert set(BUNDLED_LABELS) == {d.label for d in demos}
    for demo in demos:
        assert demo.display_label == demo.label
        with use_language("zh"):
            assert demo.display_label != demo.label and CJK.search(demo.display_label), demo.id


def _run_hitl_demo(route: str, lang: str) -> dict:
    from rag.api import run_rag_graph
    from rag.demo import load_demo_questions

    demo = next(d for d in load_demo_questions() if d.expected_route == route and d.lang == lang)
    return run_rag_graph(demo.question)["rag_trace"]


@pytest.mark.parametrize("route", ["clarify", "scope_select"])
@pytest.mark.parametrize("question_lang", ["zh", "en"])
def test_offline_hitl_prompts_follow_the_question_not_the_reader(route, question_lang):
    """A Chinese question is asked back in Chinese and an English one in English, whichever language the
    app is read in; and the offline reasons are the same text in both (they never go through the
    catalogue)."""
    traces = {}
    for reader in ("en", "zh"):
        with use_language(reader):
            traces[reader] = _run_hitl_demo(route, question_lang)
    assert traces["en"]["route"] == route
    assert traces["en"]["hitl_prompt"] == traces["zh"]["hitl_prompt"]
    assert traces["en"]["evidence_reason"] == traces["zh"]["evidence_reason"]
    assert bool(CJK.search(traces["en"]["hitl_prompt"])) == (question_lang == "zh")
    assert traces["en"]["evidence_reason"].startswith("[离线规则]" if question_lang == "zh" else "[offline rules]")


@pytest.mark.parametrize("reader", ["en", "zh"])
def test_default_hitl_prompts_follow_the_question(reader):
    from rag.rules.hitl import default_hitl_prompt

    with use_language(reader):
        zh = default_hitl_prompt("clarify", question="月卡多少钱？", missing_slots=["服务器"])
        en = default_hitl_prompt("scope_select", question="Which Nova?", options=["Nova phone", "Nova lamp"])
    assert zh == "请补充以下信息：服务器"
    assert en == "Your question could mean several things. Please choose one: Nova phone; Nova lamp"


def test_the_knowledge_base_label_and_history_recovery_advice_follow_the_language(tmp_path):
    from rag.ingest.paths import kb_label
    from rag.runs.history import RunHistory
    from rag.runs.sqlite_storage import RECOVERY

    history = RunHistory(tmp_path / "history.db")
    assert kb_label(None) == "bundled demo (zh/en)" and history.recovery == RECOVERY
    with use_language("zh"):
        assert CJK.search(kb_label(None)) and CJK.search(history.recovery)
        assert kb_label(tmp_path / "docs") == "文件夹 docs"  # the folder's name stays as it is
