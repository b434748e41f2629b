"""The corpus, one test per graph and check: the debugger's session against LangGraph itself.

A pair listed in `KNOWN_GAPS` is expected to fail (work another branch does); when it passes, the test
fails and asks for the entry to be removed, so the table only ever shrinks."""
from __future__ import annotations

import pytest

from tests.conformance.harness import CHECKS, KNOWN_GAPS, all_cases, check

CASES = all_cases()


def test_the_corpus_is_big_enough_and_names_are_unique():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names))
    assert len({c.spec for c in CASES}) >= 40


def test_every_known_gap_names_a_case_and_a_check():
    names = {c.name for c in CASES}
    assert all(case in names and name in CHECKS for case, name in KNOWN_GAPS)


@pytest.mark.parametrize("name", CHECKS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_conforms(case, name):
    outcome = check(case, name)
    gap = KNOWN_GAPS.get((case.name, name))
    if outcome.status == "n/a":
        pytest.skip(f"{name} says nothing about {case.name}")
    if gap is not None:
        assert outcome.status == "fail", (f"{case.name}/{name} passes now: remove it from KNOWN_GAPS "
                                          f"(it was listed as: {gap})")
        return
    assert outcome.status == "pass", outcome.detail
