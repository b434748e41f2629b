"""The answer after an `answer` route: extractive offline (quoted sentences, cited), generated with a
model (citations parsed), and a failing model falls back to the extractive answer and says why."""
from __future__ import annotations

from rag.answering import answer_for, extractive_answer, generated_answer, split_sentences

DOCS = [{"filename": "a.md", "page_number": 1, "chunk_id": "a", "text": "The sky is blue. Grass is green."},
        {"filename": "b.md", "chunk_id": "b", "text": "The thermostat range is 5 to 30 degrees. It has Wi-Fi."}]


def test_sentences_split_in_chinese_and_english():
    got = split_sentences("丹瑾的属性是霜。她使用链刃！OK. Next\nline")
    assert got == ["丹瑾的属性是霜。", "她使用链刃！", "OK.", "Next", "line"]


def test_extractive_answer_quotes_the_best_sentence_and_cites_its_chunk():
    ans = extractive_answer("What is the thermostat range?", DOCS)
    assert ans.mode == "extractive"
    assert ans.text == "The thermostat range is 5 to 30 degrees. [2]"
    assert [(c.n, c.filename) for c in ans.citations] == [(2, "b.md")]


def test_extractive_answer_in_chinese():
    docs = [{"filename": "d.md", "text": "丹瑾是药铺掌柜。丹瑾的属性是霜。她很安静。"}]
    ans = extractive_answer("丹瑾是什么属性？", docs)
    assert "丹瑾的属性是霜。 [1]" in ans.text and "她很安静" not in ans.text


def test_no_shared_word_means_no_answer_with_a_reason():
    ans = extractive_answer("zebra migration", DOCS)
    assert ans.text == "" and ans.error


def test_generated_answer_keeps_only_real_citations():
    prompts = []
    ans = generated_answer("range?", DOCS, lambda p: prompts.append(p) or "5 to 30 degrees [2] [9].", model="m")
    assert ans.mode == "generated" and [c.n for c in ans.citations] == [2] and ans.model == "m"
    assert "[2] (b.md)" in prompts[0] and "range?" in prompts[0]


def test_a_failing_model_falls_back_to_extractive_and_says_why():
    def boom(_):
        raise RuntimeError("503 upstream")

    ans = answer_for({"route": "answer", "question": "What is the thermostat range?", "docs": DOCS}, boom, "m")
    assert ans.mode == "extractive" and "503 upstream" in ans.error and "[2]" in ans.text


def test_only_the_answer_route_gets_an_answer():
    assert answer_for({"route": "no_knowledge", "docs": DOCS, "question": "q"}) is None
