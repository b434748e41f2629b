"""`python -m tests.conformance`: run the corpus and print its figure (and each failing check with `-v`)."""
from __future__ import annotations

import sys

from tests.conformance.harness import KNOWN_GAPS, run_corpus, summary


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    names = [a for a in argv if not a.startswith("-")]
    from tests.conformance.harness import all_cases

    cases = [c for c in all_cases() if not names or c.name in names]
    outcomes = run_corpus(cases)
    for o in outcomes:
        if o.status == "fail" and (verbose or names):
            gap = " [known gap]" if (o.case, o.check) in KNOWN_GAPS else ""
            print(f"FAIL {o.case}/{o.check}{gap}: {o.detail}")
    print(summary(outcomes))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
