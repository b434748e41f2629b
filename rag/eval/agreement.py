"""How often the judge agrees with people: per route and as Cohen's kappa, over the cases a person labelled.

The judge is whatever decided the route of each evaluated run (the offline rules or a model's grader
prompt); a person's label is the expected route of a case that carries a person's verdict (`verdict`,
set when a person added the case from a run: "good" kept the run's route, "wrong" named another). A
set written by hand carries no verdict: it is a gold set, and route accuracy already covers it.

Why kappa and not only the share of cases agreed: when most cases are `answer`, a judge that always
says `answer` agrees most of the time by chance; kappa discounts that. It is computed by
scikit-learn's `cohen_kappa_score` (imported only when there is something to compute: it takes about a
second and a half to load). Kappa is undefined when no case is labelled or when both sides put every
case on one and the same route (agreement by chance is then 1); the result says so in words instead of
showing "nan".

Per route, the figure is the specific agreement 2·both / (people + judge): of the cases either side put
on that route, how much the two overlap. Neither side is taken as the truth, unlike accuracy.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Optional, Sequence

from rag.eval.scoring import ROUTES, CaseResult
from rag.i18n import _


@dataclass(frozen=True)
class RouteAgreement:
    route: str
    people: int
    """Cases people put on this route."""
    judge: int
    """Cases the judge ended on this route."""
    both: int

    @property
    def agreement(self) -> Optional[float]:
        total = self.people + self.judge
        return 2 * self.both / total if total else None


@dataclass(frozen=True)
class Agreement:
    cases: int
    agreed: int
    kappa: Optional[float]
    kappa_note: Optional[str]
    """Why kappa is undefined, in words (None when it is defined)."""
    per_route: tuple[RouteAgreement, ...]
    disagreements: tuple[CaseResult, ...]

    @property
    def rate(self) -> Optional[float]:
        return self.agreed / self.cases if self.cases else None


def judge_label(result: CaseResult) -> str:
    """The judge's route; a run that ended elsewhere (an error) is "other", which no person chooses."""
    return result.route if result.route in ROUTES else "other"


def labelled(results: Sequence[CaseResult]) -> list[CaseResult]:
    """The cases a person labelled: a verdict and an expected route."""
    return [r for r in results if r.verdict in ("good", "wrong") and r.expected_route is not None]


def kappa(people: Sequence[str], judge: Sequence[str]) -> tuple[Optional[float], Optional[str]]:
    """Cohen's kappa of the two label lists, or None and why it is undefined."""
    if not people:
        return None, _("no case carries a person's verdict, so there is nothing to compare")
    used = set(people) | set(judge)
    if len(used) == 1:
        return None, _("undefined: people and the judge put every case on the same route ({route}), so agreement "
                       "by chance is already 1 and kappa has nothing to measure; add cases of other routes").format(
            route=next(iter(used)))
    from sklearn.metrics import cohen_kappa_score  # lazy: ~1.5 s to import

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = float(cohen_kappa_score(list(people), list(judge)))
    if value != value:  # nan: undefined for a reason the rule above did not foresee
        return None, _("undefined for these labels")
    return value, None


def agreement(results: Sequence[CaseResult]) -> Optional[Agreement]:
    """The agreement over the labelled cases; None when no case is labelled (the page then shows nothing)."""
    cases = labelled(results)
    if not cases:
        return None
    people = [str(r.expected_route) for r in cases]
    judge = [judge_label(r) for r in cases]
    value, note = kappa(people, judge)
    order = [*ROUTES, "other"]
    routes = [r for r in order if r in people or r in judge] + sorted(set(people) - set(order))
    per_route = tuple(RouteAgreement(route=route, people=people.count(route), judge=judge.count(route),
                                     both=sum(1 for p, j in zip(people, judge, strict=True) if p == j == route))
                      for route in routes)
    disagreements = tuple(r for r, p, j in zip(cases, people, judge, strict=True) if p != j)
    return Agreement(cases=len(cases), agreed=len(cases) - len(disagreements), kappa=value, kappa_note=note,
                     per_route=per_route, disagreements=disagreements)


def to_dict(found: Optional[Agreement]) -> Optional[dict]:
    """The agreement as `--out` keeps it (None when no case is labelled): the figures, each route's
    counts, and the disagreeing cases by id."""
    if found is None:
        return None
    return {"cases": found.cases, "agreed": found.agreed, "rate": found.rate, "kappa": found.kappa,
            "kappa_note": found.kappa_note,
            "per_route": [{"route": r.route, "people": r.people, "judge": r.judge, "both": r.both,
                           "agreement": r.agreement} for r in found.per_route],
            "disagreements": [{"id": r.id, "person": r.expected_route, "judge": judge_label(r),
                               "verdict": r.verdict, "from_run": r.from_run} for r in found.disagreements]}


def _rate(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def format_agreement(found: Agreement, label: str = "") -> str:
    """The CLI's agreement block. Its first and last lines are for scripts: `agreement: A/N (X)` and
    `kappa: X` (or `kappa: n/a (why)`); between them the per-route table and the disagreeing cases."""
    head = f"agreement with people{f' ({label})' if label else ''}: {found.agreed}/{found.cases} ({_rate(found.rate)})"
    width = max(len("route"), *(len(r.route) for r in found.per_route))
    lines = [head, "  " + "route".ljust(width) + "  people   judge    both  agreement"]
    for r in found.per_route:
        lines.append("  " + r.route.ljust(width) + f"{r.people:8d}{r.judge:8d}{r.both:8d}{_rate(r.agreement):>11}")
    for case in found.disagreements:
        lines.append(f"  disagree {case.id}: person {case.expected_route}, judge {judge_label(case)}")
    lines.append(f"kappa: {_rate(found.kappa)}" if found.kappa_note is None else f"kappa: n/a ({found.kappa_note})")
    return "\n".join(lines)


__all__ = ["Agreement", "RouteAgreement", "agreement", "kappa", "labelled", "judge_label", "to_dict",
           "format_agreement"]
