"""Pure scoring of an evaluation run: no I/O, no graph, so every rule is a table test."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

#: Rows and columns of the confusion table, in this order; anything else goes to "other".
ROUTES = ("answer", "clarify", "scope_select", "no_knowledge")


@dataclass(frozen=True)
class CaseResult:
    """What a run of one case produced, next to what the case expected."""

    id: str
    expected_route: Optional[str]
    route: Optional[str]
    expected_sources: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    error: Optional[str] = None
    tags: tuple[str, ...] = field(default=())


def _bucket(route: Optional[str]) -> str:
    return route if route in ROUTES else "other"


def confusion(results: Sequence[CaseResult]) -> dict[str, dict[str, int]]:
    """expected route -> actual route -> count, over the cases that name an expected route. An
    actual route outside the four end routes (an error, a rewrite that never ended) is "other"."""
    table: dict[str, dict[str, int]] = {}
    for r in results:
        if r.expected_route is None:
            continue
        row = table.setdefault(r.expected_route, {})
        row[_bucket(r.route)] = row.get(_bucket(r.route), 0) + 1
    return table


def route_accuracy(results: Sequence[CaseResult]) -> Optional[float]:
    """Share of the cases with an expected route that ended in it (None when no case has one)."""
    judged = [r for r in results if r.expected_route is not None]
    if not judged:
        return None
    return sum(1 for r in judged if r.route == r.expected_route) / len(judged)


def source_hit(expected: Sequence[str], sources: Sequence[str]) -> Optional[bool]:
    """Any expected file among the evidence's files (case-insensitive, by file name only, so a
    set works wherever the corpus folder lives); None when the case names no source."""
    if not expected:
        return None
    names = {str(s).replace("\\", "/").rsplit("/", 1)[-1].lower() for s in sources}
    return any(e.replace("\\", "/").rsplit("/", 1)[-1].lower() in names for e in expected)


def source_hit_rate(results: Sequence[CaseResult]) -> Optional[float]:
    hits = [h for h in (source_hit(r.expected_sources, r.sources) for r in results) if h is not None]
    return sum(hits) / len(hits) if hits else None


def format_confusion(table: dict[str, dict[str, int]]) -> str:
    """A fixed-width table, expected routes as rows, actual routes as columns (plus "other" when
    some run ended elsewhere) and a per-row accuracy."""
    cols = list(ROUTES) + (["other"] if any("other" in row for row in table.values()) else [])
    rows = [r for r in (*ROUTES, *sorted(set(table) - set(ROUTES))) if r in table]
    width = max(len("expected \\ got"), *(len(c) for c in cols + rows))
    head = "expected \\ got".ljust(width) + "".join(c.rjust(width + 2) for c in cols) + "   correct".rjust(12)
    lines = [head]
    for r in rows:
        row = table[r]
        total = sum(row.values())
        ok = row.get(r, 0)
        cells = "".join(str(row.get(c, 0)).rjust(width + 2) for c in cols)
        lines.append(r.ljust(width) + cells + f"{ok}/{total}".rjust(12))
    return "\n".join(lines)


def fmt_rate(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value:.3f}"
