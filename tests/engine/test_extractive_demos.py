"""Every bundled demo that ends in an answer gets, offline, the evidence that answers it: the
extractive answer reads the question as the run understood it (rewrite, HyDE passage, HITL answer,
sub-questions), so what the knowledge base says to each demo is in the quote."""
from __future__ import annotations

import pytest

from rag import resume_rag_from_hitl, run_rag_graph
from rag.answering import answer_for
from rag.demo import load_demo_questions
from rag.extractive import Views, content_words, select, split_units
from rag.retrieval.tokenize import tokenize_query

#: What the bundled knowledge base (rag/data/kb) says to each demo: every phrase must be quoted.
KB_SAYS = {
    "zh_answer_attribute": ["丹瑾的属性是霜"],
    "en_answer_temperature": ["-10 °C to 45 °C"],
    "zh_rewrite_hyde": ["千山暮雪"],
    "en_rewrite_hyde": ["Use Eco mode"],
    "en_rewrite_step_back": ["two years after its release date"],
    "zh_clarify_server": ["国服：人民币三十元"],
    "en_clarify_platform": ["Android: open the Trailglow app"],
    "zh_scope_select_baiya": ["骨翼镰刀"],
    "en_scope_select_nova": ["hold the display ring pressed for ten seconds"],
    "zh_complex_dimensions": ["丹瑾的属性是霜", "链刃", "副输出"],
    "zh_complex_two_characters": ["链刃", "长弓"],
    "en_complex_two_products": ["hold the display ring", "18 hours"],
}
#: ...and what it must not quote for it (the other option of a clarify, an unrelated sentence).
KB_DOES_NOT_SAY = {
    "zh_clarify_server": ["国际服：", "日服：", "副输出"],
    "en_clarify_platform": ["iOS: open", "Windows: connect"],
    "en_rewrite_hyde": ["fictional rechargeable camping lantern"],
    "zh_scope_select_baiya": ["副输出"],
}
DEMOS = [d for d in load_demo_questions() if "answer" in (d.final_route, d.expected_resume_route)]


@pytest.fixture(scope="module")
def roles():
    from rag.models.offline import build_offline_roles

    return build_offline_roles()


def test_every_answering_demo_has_a_row():
    assert {d.id for d in DEMOS} == set(KB_SAYS)


@pytest.mark.parametrize("demo", DEMOS, ids=[d.id for d in DEMOS])
def test_the_demo_answer_quotes_what_the_knowledge_base_says(demo, roles):
    result = run_rag_graph(demo.question, roles=roles)
    if demo.hitl_answer:
        result = resume_rag_from_hitl(result["hitl_resume_state"], demo.hitl_answer, roles=roles)
    answer = answer_for(result)
    assert answer is not None and answer.mode == "extractive"
    for phrase in KB_SAYS[demo.id]:
        assert phrase in answer.text, (phrase, answer.text)
    for phrase in KB_DOES_NOT_SAY.get(demo.id, []):
        assert phrase not in answer.text, (phrase, answer.text)
    if demo.expected_route == "complex":  # one part per sub-question, each citing its evidence
        lines = answer.text.split("\n")
        assert len(lines) == demo.expected_sub_questions, answer.text
        assert all(line.startswith(sub) and "[" in line for line, sub in zip(lines, result["sub_questions"], strict=True)), lines
    views = content_words(" ".join([demo.question, demo.hitl_answer or ""] + list(result["sub_questions"])
                                   + [str(v) for v in (result["rag_trace"] or {}).values() if isinstance(v, str)]),
                          tokenize_query)
    for quoted in answer.text.split(" ["):  # every quoted piece shares a content word with a view
        piece = quoted.split("] ", 1)[-1]
        if piece.strip() and not piece.strip().isdigit():
            assert content_words(piece, tokenize_query) & views or piece.endswith("]"), piece


def test_a_list_item_is_one_unit_tied_to_the_sentence_that_introduces_it():
    units = split_units("Intro line.\nPick one of these:\n- A: first. Still A.\n- B: second\n\nAfter.")
    kinds = [(u.kind, u.text) for u in units]
    assert kinds == [("sentence", "Intro line."), ("lead", "Pick one of these:"), ("item", "A: first. Still A."),
                     ("item", "B: second"), ("sentence", "After.")]
    assert units[2].group == units[3].group == units[1].order


def test_a_question_in_the_evidence_is_quoted_with_its_answer():
    units = split_units("Screen dim? Raise the brightness. Other text.")
    assert units[0].kind == "faq" and units[0].follow == "Raise the brightness."


def test_a_hitl_answer_picks_the_list_item_it_names():
    docs = [{"text": "The price depends on the region (north, south):\n- north: 5 coins.\n- south: 7 coins."}]
    views = Views([("question", "What is the price?"), ("hitl", "south")])
    quotes = select(views, docs, tokenize_query)
    assert quotes[0].texts == ["The price depends on the region (north, south):", "south: 7 coins."]


def test_no_quote_shares_no_content_word():
    docs = [{"text": "Zebras migrate in summer. The weather is fine."}]
    assert select(Views([("question", "How do I reset the thermostat?")]), docs, tokenize_query) == []
    assert select(Views([("question", "Is the weather good?")]), docs, tokenize_query)[0].texts == ["The weather is fine."]


def test_a_sentence_is_read_in_its_paragraph():
    """Two sentences with the same words: the one whose paragraph names the subject is quoted."""
    docs = [{"text": "Ann is a doctor. She carries a scalpel as weapon."},
            {"text": "Bob is a sailor. He carries a rope as weapon."}]
    quotes = select(Views([("sub_question", "Which weapon does Bob carry?")]), docs, tokenize_query, max_units=1)
    assert [(q.n, q.texts) for q in quotes] == [(2, ["He carries a rope as weapon."])]
