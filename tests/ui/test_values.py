"""The RAG workflow's values as the debugger draws them: chunk cards, grade badges, a rewrite side by
side, sub-questions and sub-results as lists; escaped."""
from __future__ import annotations

from rag_debugger.debugger import diff_states
from rag_debugger.views.html_view import diff_html
from rag_debugger.views.values_html import RAG_VALUES, chunk_card, grade_html, query_rewrite_html, rag_value_html
from tests.support.html_reader import read_html

CHUNK = {"chunk_id": "c1", "filename": "nova_speaker.md", "page_number": 2, "level": 1, "text": "<b>" + "x" * 300,
         "score": 0.51234, "rrf_rank": 3, "rerank_score": 0.9}


def text(html: str) -> str:
    return "".join(read_html(html).text)


def test_a_chunk_is_a_card_with_file_page_level_scores_and_an_expanding_text():
    html = chunk_card(CHUNK, number=1)
    t = text(html)
    for part in ("[1]", "nova_speaker.md", "page 2", "level 1", "score 0.5123", "rrf #3", "rerank 0.9"):
        assert part in t
    assert "<b>x" not in html and "&lt;b&gt;" in html
    assert '<details class="rdi-chunk-text">' in html and "x" * 300 in html  # the whole text, one click away


def test_a_grade_is_badges_with_its_reason():
    html = grade_html({"relevance": "strong", "answerability": "sufficient", "ambiguity": "none", "route": "answer",
                       "confidence": 0.8, "reason": "found <it>"})
    assert html.count('data-badge=') == 5 and 'data-badge="route"' in html and "rdi-tone-good" in html
    assert "found <it>" in text(html) and "<it>" not in html


def test_a_rewrite_shows_both_queries_side_by_side_with_the_method():
    html = query_rewrite_html({"query": "old q"}, {"query": "new q", "rag_trace": {"rewrite_method": "hyde"}})
    t = text(html)
    assert "original" in t and '"old q"' in t and "rewritten" in t and '"new q"' in t and "hyde" in t
    assert query_rewrite_html({"query": "a"}, {"query": "a"}) == ""


def test_sub_questions_and_sub_results_are_lists_with_cards():
    assert text(rag_value_html("sub_questions", ["a?", "b?"])).split() == ["a?", "b?"]
    html = rag_value_html("sub_results", [{"question": "q1", "docs": [CHUNK], "route": "answer",
                                           "retrieval_status": "answerable"}])
    assert '<ol class="rdi-subres">' in html and "q1" in text(html) and "nova_speaker.md" in text(html)
    assert rag_value_html("complexity", "simple") is None  # the generic view draws the rest


def test_in_the_diff_retrieved_chunks_are_cards_and_a_dropped_chunk_is_marked_removed():
    other = {**CHUNK, "chunk_id": "c2", "filename": "nova_thermostat.md"}
    rows = diff_states({"docs": [CHUNK, other], "grade": None}, {"docs": [other], "grade": {"route": "answer"}})
    html = diff_html(rows, view=RAG_VALUES)
    by_field = {r[0]: r for r in read_html(html).tables["diff"]["rows"]}
    assert "removed" in by_field["docs"][2] and "nova_speaker.md" in by_field["docs"][2]
    assert 'data-mark="removed"' in html and html.count('class="rdi-chunk"') == 2
    assert "route answer" in by_field["grade"][2]


def test_the_retrieval_table_says_why_each_candidate_is_in_or_out():
    from rag_debugger.views.evidence_html import evidence_html

    cands = [{"chunk_id": "a", "filename": "f.md", "level": 3, "sparse_rank": 1, "dense_rank": None, "rrf_score": 0.03,
              "merged_into": "P", "from_merge": False, "rrf_rank": None, "rerank_score": None,
              "outcome": "merged into parent"},
             {"chunk_id": "P", "filename": "f.md", "level": 2, "from_merge": True, "rrf_rank": 1, "rerank_score": 0.7,
              "outcome": "kept"}]
    html = evidence_html({"rag_trace": {"retrieval_candidates": cands, "retrieval_stage": "initial"}, "docs": []})
    table = read_html(html).tables["retrieval_explain"]
    assert table["head"][3:5] == ["sparse rank", "dense rank"]
    assert table["rows"][0][6] == "replaced by parent P" and table["rows"][0][-1] == "merged into parent"
    assert table["rows"][1][6] == "parent brought in by auto-merge" and table["rows"][1][-1] == "kept"
    assert "2 candidates: 1 merged into parent, 1 kept" in text(html)


def test_the_answer_is_labelled_extractive_and_its_citations_are_numbered():
    from rag.answering import extractive_answer
    from rag_debugger.views.answer_html import answer_html

    docs = [{"filename": "a<b>.md", "chunk_id": "a", "page_number": 3, "text": "The range is 5 to 30. Other."}]
    html = answer_html(extractive_answer("What is the range?", docs))
    assert 'data-mode="extractive"' in html and "no model wrote this" in text(html)
    assert '<sup class="rdi-cite" data-cite="1">[1]</sup>' in html
    assert "a&lt;b&gt;.md" in html and "page 3" in text(html)
    assert answer_html(None) == ""
