"""The pure scoring functions of `rag.eval`, as tables."""
from __future__ import annotations

import pytest

from rag.eval.scoring import CaseResult, confusion, format_confusion, route_accuracy, source_hit, source_hit_rate


def R(expected, got, exp_src=(), src=()):
    return CaseResult(id=f"{expected}->{got}", expected_route=expected, route=got, expected_sources=tuple(exp_src),
                      sources=tuple(src))


@pytest.mark.parametrize("results, accuracy", [
    ([], None),
    ([R(None, "answer")], None),  # no expectation: not judged
    ([R("answer", "answer")], 1.0),
    ([R("answer", "answer"), R("no_knowledge", "clarify")], 0.5),
    ([R("answer", None), R("clarify", "clarify"), R("scope_select", "scope_select"), R(None, "x")], 2 / 3),
])
def test_route_accuracy(results, accuracy):
    assert route_accuracy(results) == (pytest.approx(accuracy) if accuracy is not None else None)


@pytest.mark.parametrize("expected, sources, hit", [
    ([], ["a.md"], None),  # a case without sources is not counted
    (["with.md"], ["with.md", "try.md"], True),
    (["with.md", "context-managers.md"], ["context-managers.md"], True),  # any expected source hits
    (["with.md"], [], False),
    (["With.md"], ["/corpus/dir/with.md"], True),  # by file name, case-insensitive
    (["with.md"], ["without.md"], False),
])
def test_source_hit(expected, sources, hit):
    assert source_hit(expected, sources) is hit


def test_source_hit_rate_counts_only_cases_with_sources():
    results = [R("answer", "answer", ["a.md"], ["a.md"]), R("answer", "answer", ["b.md"], ["a.md"]),
               R("no_knowledge", "no_knowledge")]
    assert source_hit_rate(results) == 0.5
    assert source_hit_rate([R("no_knowledge", "no_knowledge")]) is None


def test_confusion_counts_expected_by_actual_and_buckets_the_rest():
    table = confusion([R("answer", "answer"), R("answer", "clarify"), R("no_knowledge", "clarify"),
                       R("no_knowledge", None), R(None, "answer")])
    assert table == {"answer": {"answer": 1, "clarify": 1}, "no_knowledge": {"clarify": 1, "other": 1}}


def test_format_confusion_has_a_row_per_expected_route_and_a_correct_column():
    text = format_confusion(confusion([R("answer", "answer"), R("answer", "clarify"), R("no_knowledge", None)]))
    lines = text.splitlines()
    assert lines[0].split()[-6:] == ["answer", "clarify", "scope_select", "no_knowledge", "other", "correct"]
    assert lines[1].split() == ["answer", "1", "1", "0", "0", "0", "1/2"]
    assert lines[2].split() == ["no_knowledge", "0", "0", "0", "0", "1", "0/1"]
