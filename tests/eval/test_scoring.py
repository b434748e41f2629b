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


@pytest.mark.parametrize("expected, sources, rr", [
    ([], ["a.md"], None),
    (["a.md"], ["a.md", "b.md"], 1.0),
    (["b.md"], ["a.md", "a.md", "b.md"], 0.5),  # ranks count files, not chunks
    (["c.md", "b.md"], ["a.md", "b.md", "c.md"], 0.5),  # the first expected file found
    (["z.md"], ["a.md"], 0.0),
])
def test_reciprocal_rank(expected, sources, rr):
    from rag.eval.scoring import reciprocal_rank

    assert reciprocal_rank(expected, sources) == rr


def test_accuracy_per_route_and_per_tag():
    from rag.eval.scoring import accuracy_by_route, accuracy_by_tag

    rs = [CaseResult("a", "answer", "answer", tags=("en", "x")), CaseResult("b", "answer", "clarify", tags=("en",)),
          CaseResult("c", "clarify", "clarify", tags=("zh",)), CaseResult("d", None, "answer", tags=("en",))]
    assert accuracy_by_route(rs) == {"answer": (1, 2), "clarify": (1, 1)}
    assert accuracy_by_tag(rs) == {"en": (1, 2), "x": (1, 1), "zh": (1, 1)}


def test_node_latency_percentiles_count_every_step():
    from rag.eval.scoring import node_latency, percentile

    assert percentile([10, 20, 30, 40], 50) == 25
    rs = [CaseResult("a", "answer", "answer", latency_ms=100, node_ms=(("grade", 10), ("grade", 30))),
          CaseResult("b", "answer", "answer", latency_ms=300, node_ms=(("grade", 20),)),
          CaseResult("c", "answer", None, error="boom", latency_ms=5)]
    table = node_latency(rs)
    assert table["grade"] == {"n": 3, "p50": 20.0, "p90": 28.0, "p99": 29.8}
    assert table["(run)"]["n"] == 2  # a failed case's time is not a run's time


def test_compare_runs_names_regressions_and_fixes():
    from rag.eval.scoring import compare_runs

    a = [R("answer", "answer"), R("clarify", "answer"), R("no_knowledge", "no_knowledge"), R(None, "x")]
    b = [R("answer", "clarify"), R("clarify", "clarify"), R("no_knowledge", "no_knowledge"), R(None, "y")]
    b = [CaseResult(id=ra.id, expected_route=rb.expected_route, route=rb.route) for ra, rb in zip(a, b, strict=True)]
    assert [c.status for c in compare_runs(a, b)] == ["regressed", "fixed", "same", "unjudged"]


def test_case_results_round_trip_through_json():
    r = CaseResult("a", "answer", "answer", ("x.md",), ("x.md", "y.md"), None, ("en",), "q?", "clarify", 12.5,
                   (("grade", 3),))
    assert CaseResult.from_dict(r.to_dict()) == r
