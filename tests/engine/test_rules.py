"""The pure rules as tables: fast path, route correction, status, HITL prompt and merge, synthesis."""
from __future__ import annotations

import pytest

from rag.rules.fast_path import DEFAULT_FAST_PATH, FastPathConfig, fast_path_config, fast_path_reason
from rag.rules.hitl import default_hitl_prompt, refined_question_for_hitl
from rag.rules.routing import resolve_route, retrieval_status_for_route
from rag.rules.synthesis import dedupe_chunks, synthesize
from rag.schemas import EvidenceGrade

FAST = "obvious_simple_fast_path:"


# The reference's rule, row by row (SPEC 5, "Fast path"): exact lists, substring matching, its order.
FAST_PATH_TABLE = [
    # single_fact_marker
    ("丹瑾是什么属性？", FAST + "single_fact_marker"),
    ("  丹瑾   是谁  ", FAST + "single_fact_marker"),  # whitespace collapsed to one space
    ("What is the Nova X1?", FAST + "single_fact_marker"),
    ("Who is Danjin", FAST + "single_fact_marker"),
    ("丹瑾属性里的属性", FAST + "single_fact_marker"),  # one dimension marker twice: distinct markers count
    ("What is the price and performance of Nova X1?", FAST + "single_fact_marker"),  # English is no dimension
    # short_single_intent
    ("丹瑾的武器", FAST + "short_single_intent"),
    ("Nova X1 battery", FAST + "short_single_intent"),
    ("丹瑾怎么样", FAST + "short_single_intent"),  # 怎么 is not a reference marker
    ("X1 vs Pad", FAST + "short_single_intent"),  # nor is "vs"
    ("tell me why", FAST + "short_single_intent"),  # "why " keeps its space; no padding
    ("abcdefghijklmnopqr?", FAST + "short_single_intent"),  # 18 after stripping ?
    ("㐀 㐀 㐀", FAST + "short_single_intent"),  # CJK means U+4E00-U+9FFF only
    # give-ups: the planner decides
    ("", None),
    ("   ", None),
    ("a" * 49, None),  # over 48 characters
    ("abcdefghijklmnopqr,", None),  # only ?？。.!！ are stripped before counting
    ("丹瑾的成因是什么", None),  # 成因
    ("丹瑾的劣势", None),  # 劣势
    ("综合评价丹瑾", None),  # 综合
    ("丹瑾的属性和武器分别是什么？", None),  # 和
    ("丹瑾与秧秧", None),  # 与
    ("Compare Nova X1 and Nova Pad", None),
    ("Nova X1 versus Nova Pad", None),
    ("Are they different", None),
    ("why is the sky blue", None),
    ("how do I reset it", None),
    ("how many ports does it have", None),  # "how " is a complex marker in the reference
    ("丹瑾为什么强", None),
    ("丹瑾、秧秧是什么属性", None),  # 、
    ("丹瑾 是 什么", None),  # CJK with two or more spaces
    ("丹瑾的定位属性是什么", None),  # two distinct dimension markers
    ("丹瑾的武器技能", None),
    ("丹瑾是什么属性？秧秧呢？", None),  # two question marks
    ("是什么;是谁;", None),  # ; counts as a separator
    ("Tell me everything about the Nova X1", None),  # no marker, over 18 characters
]


@pytest.mark.parametrize("question, reason", FAST_PATH_TABLE)
def test_fast_path(question, reason):
    assert fast_path_reason(question) == reason


# The reference's lists, as SPEC 5 quotes them from the reference source.
REFERENCE_COMPLEX = (
    "比较 对比 区别 差异 优缺点 优势 劣势 分析 总结 综合 原因 成因 影响 方案 步骤 如何 为什么 以及 同时 并且 和 与 谁更 "
    "compare versus difference different analyze summarize trade-off"
).split() + ["pros and cons", "why ", "how ", "complex"]
REFERENCE_DIMENSIONS = "属性 武器 定位 技能 机制 参数 规格 性能 价格 优点 缺点 作用".split()
REFERENCE_SIMPLE = "是什么 是谁 哪里 何时 多少 是否 哪个 哪种 属性 参数 规格 定义 含义".split() + [
    "what is", "who is", "where is", "when is", "how many", "which"]


def test_the_default_lists_are_the_references():
    assert DEFAULT_FAST_PATH.complex_markers == tuple(REFERENCE_COMPLEX)
    assert DEFAULT_FAST_PATH.dimension_markers == tuple(REFERENCE_DIMENSIONS)
    assert DEFAULT_FAST_PATH.simple_markers == tuple(REFERENCE_SIMPLE)
    assert (DEFAULT_FAST_PATH.max_chars, DEFAULT_FAST_PATH.short_question_chars) == (48, 18)


@pytest.mark.parametrize("marker", REFERENCE_COMPLEX)
def test_every_complex_marker_sends_a_short_question_to_the_planner(marker):
    assert fast_path_reason(f"x{marker}y") is None
    assert fast_path_reason("xy") == FAST + "short_single_intent"


@pytest.mark.parametrize("first, second", list(zip(REFERENCE_DIMENSIONS, REFERENCE_DIMENSIONS[1:], strict=False)))
def test_any_two_dimension_markers_send_it_to_the_planner(first, second):
    assert fast_path_reason(f"丹瑾{first}{second}") is None
    assert fast_path_reason(f"丹瑾{first}{first}") is not None  # one marker, twice: still one


# The opt-in extra markers (RAG_FAST_PATH_EXTRA=bilingual) only ever send more questions to the planner.
@pytest.mark.parametrize(
    "question, reason",
    [
        ("丹瑾怎么样", None),
        ("X1 vs Pad", None),
        ("What is the price and performance of Nova X1?", None),  # two English dimension words
        ("What's the capital of the Nova land", FAST + "single_fact_marker"),
        ("丹瑾是什么属性？", FAST + "single_fact_marker"),
    ],
)
def test_fast_path_with_the_opt_in_bilingual_markers(question, reason):
    assert fast_path_reason(question, fast_path_config("bilingual")) == reason


def test_extra_marker_sets_extend_the_reference_lists_and_unknown_names_fail():
    extended = fast_path_config("bilingual")
    assert extended.complex_markers[: len(DEFAULT_FAST_PATH.complex_markers)] == DEFAULT_FAST_PATH.complex_markers
    assert fast_path_config("") is DEFAULT_FAST_PATH and fast_path_config(None) is DEFAULT_FAST_PATH
    with pytest.raises(ValueError, match="bilingual"):
        fast_path_config("klingon")


def test_fast_path_markers_are_configuration():
    config = FastPathConfig(simple_markers=("定义",), short_question_chars=2)
    assert fast_path_reason("丹瑾是什么属性？", config) is None
    assert fast_path_reason("熵的定义", config) == FAST + "single_fact_marker"


def g(relevance="strong", answerability="sufficient", ambiguity="none", route="answer"):
    return EvidenceGrade(relevance=relevance, answerability=answerability, ambiguity=ambiguity, route=route, confidence=0.5)


# (grade, has_docs, is_sub_agent, rewrite_count) -> route, in the spec's order
ROUTE_TABLE = [
    (g(), False, False, 0, "no_knowledge"),
    (g(relevance="none"), True, False, 0, "no_knowledge"),
    (g(relevance="none", ambiguity="missing_slot"), True, False, 0, "no_knowledge"),
    (g(ambiguity="multiple_candidates"), True, False, 0, "scope_select"),
    (g(ambiguity="missing_slot"), True, False, 0, "clarify"),
    (g(ambiguity="multiple_candidates", answerability="partial"), True, True, 0, "scope_select"),
    (g(ambiguity="missing_slot", answerability="partial"), True, True, 0, "clarify"),
    (g(), True, False, 0, "answer"),
    (g(), True, False, 1, "answer"),
    (g(relevance="weak", route="answer"), True, False, 0, "no_knowledge"),
    # sub-questions
    (g(relevance="weak", answerability="sufficient", route="rewrite"), True, True, 0, "answer"),
    (g(answerability="partial", route="rewrite"), True, True, 0, "answer"),
    (g(answerability="none", route="rewrite"), True, True, 0, "no_knowledge"),
    # main chain: model said rewrite
    (g(answerability="partial", route="rewrite"), True, False, 0, "rewrite"),
    (g(answerability="none", route="rewrite"), True, False, 0, "rewrite"),
    (g(answerability="partial", route="rewrite"), True, False, 1, "clarify"),
    (g(answerability="none", route="rewrite"), True, False, 1, "no_knowledge"),
    (g(route="rewrite"), True, False, 1, "no_knowledge"),
    # main chain: partial
    (g(answerability="partial", route="answer"), True, False, 0, "rewrite"),
    (g(answerability="partial", route="clarify"), True, False, 1, "clarify"),
    # supported even though the model proposed something else
    (g(route="clarify"), True, False, 0, "answer"),
    (g(route="no_knowledge"), True, False, 0, "answer"),
    # anything else
    (g(relevance="weak", answerability="none", route="answer"), True, False, 0, "no_knowledge"),
]


@pytest.mark.parametrize("grade, has_docs, sub, rewrites, expected", ROUTE_TABLE)
def test_route_correction(grade, has_docs, sub, rewrites, expected):
    assert resolve_route(grade, has_docs=has_docs, is_sub_agent=sub, rewrite_count=rewrites) == expected


@pytest.mark.parametrize(
    "route, answerability, status",
    [
        ("answer", "sufficient", "answerable"), ("answer", "partial", "partial"), ("rewrite", "partial", "needs_rewrite"),
        ("clarify", "none", "needs_clarification"), ("scope_select", "none", "needs_scope_selection"),
        ("no_knowledge", "none", "no_knowledge"),
    ],
)
def test_status_for_route(route, answerability, status):
    assert retrieval_status_for_route(route, answerability) == status


def test_unknown_route_has_no_status():
    with pytest.raises(ValueError):
        retrieval_status_for_route("guess")


@pytest.mark.parametrize(
    "route, kw, expected",
    [
        ("clarify", dict(question="q", model_prompt="Which platform?"), "Which platform?"),
        ("clarify", dict(question="Nova battery?", missing_slots=["platform", "version"]), "Please add: platform, version"),
        ("clarify", dict(question="续航多少？", missing_slots=["平台"]), "请补充以下信息：平台"),
        ("scope_select", dict(question="Nova?", options=["X1", "Pad"]),
         "Your question could mean several things. Please choose one: X1; Pad"),
        ("scope_select", dict(question="丹瑾？", options=["角色", "武器"]), "你的问题可能指向多个方向，请选择一个：角色；武器"),
        ("answer", dict(question="q"), ""),
    ],
)
def test_default_hitl_prompt(route, kw, expected):
    assert default_hitl_prompt(route, **kw) == expected


@pytest.mark.parametrize(
    "question, answer, merged",
    [
        ("Nova 续航多少？", "Nova X1", "Nova 续航多少？（补充：Nova X1）"),
        ("How long does the battery last?", "Nova X1", "How long does the battery last? (clarification: Nova X1)"),
        ("Nova X1 续航多少？", "Nova X1", "Nova X1 续航多少？"),  # already present
        ("续航", "Nova X1 续航多少", "Nova X1 续航多少"),  # answer contains the question
        ("q", "  ", "q"),
    ],
)
def test_question_merge_never_duplicates(question, answer, merged):
    assert refined_question_for_hitl(question, answer) == merged


def test_dedupe_keeps_order_and_better_score():
    chunks = [
        {"chunk_id": "a", "filename": "f", "score": 0.2},
        {"chunk_id": "b", "filename": "f", "score": 0.5},
        {"chunk_id": "a", "filename": "f", "score": 0.9},
        {"filename": "g", "page_number": 1, "text": "t", "score": 0.1},
        {"filename": "g", "page_number": 1, "text": "t", "score": 0.05},
    ]
    out = dedupe_chunks(chunks)
    assert [(c.get("chunk_id"), c["score"], c["rrf_rank"]) for c in out] == [("a", 0.9, 1), ("b", 0.5, 2), (None, 0.1, 3)]


# (first copy's scores, duplicate's scores) -> first copy's scores after de-duplication (SPEC 5):
# when either copy has a rerank_score, rerank_score becomes the max of the two EFFECTIVE scores
# (rerank first, else score) and score is left alone; otherwise score takes the max.
DEDUPE_SCORE_TABLE = [
    ((0.2, None), (0.9, None), (0.9, None)),
    ((0.9, None), (0.2, None), (0.9, None)),
    ((None, None), (0.4, None), (0.4, None)),
    ((0.4, None), (None, None), (0.4, None)),
    ((0.1, 0.3), (0.1, 0.8), (0.1, 0.8)),  # the duplicate's rerank score wins
    ((0.9, 0.8), (0.1, 0.3), (0.9, 0.8)),  # the first's rerank score is better: kept
    ((0.9, None), (0.1, 0.3), (0.9, 0.9)),  # effective scores 0.9 vs 0.3
    ((0.1, None), (0.2, 0.7), (0.1, 0.7)),  # effective scores 0.1 vs 0.7
    ((0.2, 0.5), (0.6, None), (0.2, 0.6)),  # the duplicate's effective score is its score
    ((0.2, 0.5), (None, None), (0.2, 0.5)),  # a duplicate without scores changes nothing
    ((None, None), (None, 0.6), (None, 0.6)),
]


@pytest.mark.parametrize("first, duplicate, expected", DEDUPE_SCORE_TABLE)
def test_dedupe_keeps_the_better_effective_score(first, duplicate, expected):
    def c(scores, **kw):
        return {"filename": "f", "text": "t", "score": scores[0], "rerank_score": scores[1], **kw}

    out = dedupe_chunks([c(first, rrf_rank=5), c((0.0, None), text="other", rrf_rank=1), c(duplicate, rrf_rank=2)])
    assert [(d["score"], d["rerank_score"]) for d in out] == [expected, (0.0, None)]
    assert [d["rrf_rank"] for d in out] == [1, 2]  # renumbered in merged order


def test_dedupe_key_is_the_chunk_id_else_filename_page_text():
    out = dedupe_chunks([
        {"chunk_id": "x", "filename": "a", "text": "one"}, {"chunk_id": "x", "filename": "b", "text": "two"},
        {"chunk_id": " ", "filename": "a", "page_number": 1, "text": "t"},
        {"filename": "a", "page_number": 1, "text": "t"}, {"filename": "a", "page_number": 2, "text": "t"},
    ])
    assert [(d.get("chunk_id"), d.get("page_number")) for d in out] == [("x", None), (" ", 1), (None, 2)]


def sub(status, route="answer", docs=(), **trace):
    return {"question": "q", "docs": list(docs), "route": route, "retrieval_status": status, "rag_trace": trace}


@pytest.mark.parametrize(
    "subs, route, status, relevance, answerability",
    [
        ([sub("answerable", docs=[{"chunk_id": "1"}]), sub("partial", docs=[{"chunk_id": "2"}])],
         "answer", "partial", "strong", "partial"),
        ([sub("answerable", docs=[{"chunk_id": "1"}]), sub("no_knowledge", "no_knowledge")],
         "answer", "answerable", "strong", "sufficient"),
        ([sub("needs_clarification", "clarify", hitl_prompt="p"),
          sub("needs_scope_selection", "scope_select", hitl_options=["a"])],
         "scope_select", "needs_scope_selection", "none", "none"),
        ([sub("needs_clarification", "clarify", hitl_prompt="p"), sub("no_knowledge", "no_knowledge")],
         "clarify", "needs_clarification", "none", "none"),
        ([sub("no_knowledge", "no_knowledge"), sub("no_knowledge", "no_knowledge")],
         "no_knowledge", "no_knowledge", "none", "none"),
        ([], "no_knowledge", "no_knowledge", "none", "none"),
    ],
)
def test_synthesis_outcomes(subs, route, status, relevance, answerability):
    out = synthesize(subs)
    got = (out["route"], out["retrieval_status"], out["relevance"], out["answerability"])
    assert got == (route, status, relevance, answerability)


# Synthesis with no usable evidence and HITL sub-results (SPEC 5, "Synthesis HITL"): scope_select if ANY
# needs it; the prompts of ALL HITL sub-results (non-empty, de-duplicated, in order) joined with "；"; the
# options of ALL of them merged in order without duplicates, whichever kind each one was.
CLARIFY, SELECT = ("needs_clarification", "clarify"), ("needs_scope_selection", "scope_select")
SYNTHESIS_HITL_TABLE = [
    ([sub(*CLARIFY, hitl_prompt="哪个平台？"), sub(*CLARIFY, hitl_prompt="哪个平台？"), sub(*CLARIFY, hitl_prompt="哪个版本？")],
     "clarify", "哪个平台？；哪个版本？", []),
    ([sub(*CLARIFY, hitl_prompt="哪个版本？", hitl_options=["v1", "v2"]),
      sub(*SELECT, hitl_prompt="哪个丹瑾？", hitl_options=["v2", "角色", "武器"])],
     "scope_select", "哪个版本？；哪个丹瑾？", ["v1", "v2", "角色", "武器"]),
    ([sub(*SELECT, hitl_prompt="Which Nova?", hitl_options=["X1"]), sub(*CLARIFY, hitl_prompt="Which platform?")],
     "scope_select", "Which Nova?；Which platform?", ["X1"]),
    ([sub(*CLARIFY, hitl_prompt=""), sub(*CLARIFY, hitl_prompt="  "), sub(*CLARIFY, hitl_prompt="Which one?")],
     "clarify", "Which one?", []),
    # a non-HITL sub-result lends nothing, even when its grade carried options
    ([sub("no_knowledge", "no_knowledge", hitl_prompt="", hitl_options=["stray"]), sub(*CLARIFY, hitl_prompt="p")],
     "clarify", "p", []),
    # the status alone marks a HITL sub-result
    ([sub("needs_scope_selection", None, hitl_prompt="pick", hitl_options=["a"])], "scope_select", "pick", ["a"]),
]


@pytest.mark.parametrize("subs, route, prompt, options", SYNTHESIS_HITL_TABLE)
def test_synthesis_hitl_merges_every_hitl_sub_result(subs, route, prompt, options):
    out = synthesize(subs)
    assert (out["route"], out["hitl_prompt"], out["hitl_options"]) == (route, prompt, options)
    assert out["retrieval_status"] == {"clarify": "needs_clarification", "scope_select": "needs_scope_selection"}[route]


def test_usable_evidence_outranks_hitl_sub_results():
    out = synthesize([sub("answerable", docs=[{"chunk_id": "1"}]), sub(*SELECT, hitl_prompt="p", hitl_options=["a"])])
    assert (out["route"], out["hitl_prompt"], out["hitl_options"]) == ("answer", "", [])


def test_the_settings_accept_exactly_the_marker_sets_the_rule_knows():
    from rag.rules.fast_path import EXTRA_MARKER_SETS
    from rag.settings import FAST_PATH_EXTRA_SETS

    assert set(FAST_PATH_EXTRA_SETS) == set(EXTRA_MARKER_SETS)
