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
    question: str = ""
    #: The route the first run asked with, when the case's `hitl_answer` was given and the run resumed.
    asked_route: Optional[str] = None
    latency_ms: float = 0.0
    #: (node, milliseconds) per progress step, in order (a node may appear more than once).
    node_ms: tuple[tuple[str, int], ...] = ()
    #: The run the case was made from (the case's `from_run`), for a link back to it.
    from_run: Optional[str] = None
    #: A person's verdict on that run (the case's `verdict`): `expected_route` is then a person's label.
    verdict: Optional[str] = None
    #: The case's run in the run history (the resume run when answered); None when not recorded.
    run_id: Optional[str] = None
    #: Where the gold was lost in the run's last retrieval (rag.eval.lost_at.STAGES); None: no gold named.
    lost_at: Optional[str] = None
    #: The step of the run's last retrieval, numbered like the debugger's `?step=` (recorded runs only).
    retrieval_step: Optional[int] = None
    #: What the answer must say (the case's `expected_answer_contains`) and what it said (None: no answer).
    expected_answer_contains: tuple[str, ...] = ()
    answer: Optional[str] = None
    #: `role: kind` of each call the run degraded around (`truncated`, `timeout`, `invalid_output`…).
    degraded: tuple[str, ...] = ()

    @property
    def answer_correct(self) -> Optional[bool]:
        """The answer says every expected phrase; None when the case expects none."""
        return answer_says(self.expected_answer_contains, self.answer)

    @property
    def correct(self) -> Optional[bool]:
        """Ended in the expected route; None when the case expects none."""
        return None if self.expected_route is None else self.route == self.expected_route

    def to_dict(self) -> dict:
        return {"id": self.id, "question": self.question, "expected_route": self.expected_route,
                "route": self.route, "correct": self.correct, "asked_route": self.asked_route,
                "expected_sources": list(self.expected_sources), "sources": list(self.sources),
                "source_hit": source_hit(self.expected_sources, self.sources),
                "reciprocal_rank": reciprocal_rank(self.expected_sources, self.sources),
                "tags": list(self.tags), "error": self.error, "latency_ms": round(self.latency_ms, 1),
                "node_ms": [list(p) for p in self.node_ms], "from_run": self.from_run, "verdict": self.verdict,
                "run_id": self.run_id, "lost_at": self.lost_at, "retrieval_step": self.retrieval_step,
                "expected_answer_contains": list(self.expected_answer_contains), "answer": self.answer,
                "answer_correct": self.answer_correct, "degraded": list(self.degraded)}

    @classmethod
    def from_dict(cls, data: dict) -> "CaseResult":
        return cls(id=data["id"], expected_route=data.get("expected_route"), route=data.get("route"),
                   expected_sources=tuple(data.get("expected_sources") or ()), sources=tuple(data.get("sources") or ()),
                   error=data.get("error"), tags=tuple(data.get("tags") or ()), question=data.get("question", ""),
                   asked_route=data.get("asked_route"), latency_ms=float(data.get("latency_ms") or 0.0),
                   node_ms=tuple((str(n), int(ms)) for n, ms in data.get("node_ms") or ()),
                   from_run=data.get("from_run"), verdict=data.get("verdict"),
                   run_id=data.get("run_id"), lost_at=data.get("lost_at"), retrieval_step=data.get("retrieval_step"),
                   expected_answer_contains=tuple(data.get("expected_answer_contains") or ()),
                   answer=data.get("answer"), degraded=tuple(str(d) for d in data.get("degraded") or ()))


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


def _folded(text: str) -> str:
    return " ".join(str(text).casefold().split())


def answer_says(expected: Sequence[str], answer: Optional[str]) -> Optional[bool]:
    """Every expected word or phrase is in the answer (case and runs of spaces ignored); no answer says
    nothing. None when nothing is expected, so an unjudged case never counts as right."""
    wanted = [_folded(e) for e in expected if str(e).strip()]
    if not wanted:
        return None
    said = _folded(answer or "")
    return bool(said) and all(w in said for w in wanted)


def answer_accuracy(results: Sequence[CaseResult]) -> Optional[float]:
    """Share of the cases with expected answer phrases whose answer says them (None when no case has any)."""
    judged = [r for r in results if r.answer_correct is not None]
    if not judged:
        return None
    return sum(1 for r in judged if r.answer_correct) / len(judged)


def source_hit(expected: Sequence[str], sources: Sequence[str]) -> Optional[bool]:
    """Any expected file among the evidence's files (case-insensitive, by file name only, so a
    set works wherever the corpus folder lives); None when the case names no source."""
    if not expected:
        return None
    names = {str(s).replace("\\", "/").rsplit("/", 1)[-1].lower() for s in sources}
    return any(e.replace("\\", "/").rsplit("/", 1)[-1].lower() in names for e in expected)


def _source_ranks(results: Sequence[CaseResult]) -> list[dict[str, float]]:
    """Per judged case (one naming sources) its reciprocal rank and hit, computed by the IR library
    (rag.eval.ir_metrics); `source_hit` / `reciprocal_rank` below stay as the per-case readout."""
    from rag.eval.ir_metrics import source_reciprocal_ranks

    rows = source_reciprocal_ranks([(str(i), r.expected_sources, r.sources) for i, r in enumerate(results)])
    return list(rows.values())


def source_hit_rate(results: Sequence[CaseResult]) -> Optional[float]:
    rows = _source_ranks(results)
    return sum(r["hit_rate"] for r in rows) / len(rows) if rows else None


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


def _name(path: str) -> str:
    return str(path).replace("\\", "/").rsplit("/", 1)[-1].lower()


def reciprocal_rank(expected: Sequence[str], sources: Sequence[str]) -> Optional[float]:
    """1/rank of the first evidence file that is an expected one (0 when none is); None when the
    case names no source. `sources` are in evidence order, one entry per file."""
    if not expected:
        return None
    wanted = {_name(e) for e in expected}
    for rank, name in enumerate(dict.fromkeys(_name(s) for s in sources), 1):
        if name in wanted:
            return 1.0 / rank
    return 0.0


def mean_reciprocal_rank(results: Sequence[CaseResult]) -> Optional[float]:
    rows = _source_ranks(results)
    return sum(r["mrr"] for r in rows) / len(rows) if rows else None


def accuracy_by_route(results: Sequence[CaseResult]) -> dict[str, tuple[int, int]]:
    """expected route -> (correct, judged)."""
    out: dict[str, tuple[int, int]] = {}
    for r in results:
        if r.expected_route is None:
            continue
        ok, n = out.get(r.expected_route, (0, 0))
        out[r.expected_route] = (ok + bool(r.correct), n + 1)
    order = {route: i for i, route in enumerate(ROUTES)}
    return dict(sorted(out.items(), key=lambda item: (order.get(item[0], len(order)), item[0])))


def accuracy_by_tag(results: Sequence[CaseResult]) -> dict[str, tuple[int, int]]:
    """tag -> (correct, judged); a case counts once under each of its tags."""
    out: dict[str, tuple[int, int]] = {}
    for r in results:
        if r.expected_route is None:
            continue
        for tag in r.tags:
            ok, n = out.get(tag, (0, 0))
            out[tag] = (ok + bool(r.correct), n + 1)
    return dict(sorted(out.items()))


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by linear interpolation between closest ranks (numpy's default)."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def node_latency(results: Sequence[CaseResult], qs: Sequence[float] = (50, 90, 99)) -> dict[str, dict[str, float]]:
    """node -> {"n": steps, "p50": ms, ...}: each progress step's own time (a node that ran twice in
    a case counts twice), plus the whole run as "(run)"."""
    per: dict[str, list[float]] = {}
    for r in results:
        for node, ms in r.node_ms:
            per.setdefault(node, []).append(float(ms))
        if r.error is None:
            per.setdefault("(run)", []).append(float(r.latency_ms))
    return {node: {"n": len(v), **{f"p{q:g}": round(percentile(v, q), 1) for q in qs}} for node, v in per.items()}


def summary(results: Sequence[CaseResult]) -> dict:
    """The headline figures of one run of a set."""
    return {"cases": len(results), "route_accuracy": route_accuracy(results),
            "answer_accuracy": answer_accuracy(results),
            "source_hit_rate": source_hit_rate(results), "mrr": mean_reciprocal_rank(results),
            "errors": sum(1 for r in results if r.error)}


def degraded_kinds(results: Sequence[CaseResult]) -> dict[str, int]:
    """`role: kind` -> how many calls of the run degraded that way (most first, then by name): against a
    real model, how many replies were cut at their cap (`truncated`), ran out of time (`timeout`) or did not
    fit the schema (`invalid_output`)."""
    counts: dict[str, int] = {}
    for r in results:
        for item in r.degraded:
            counts[item] = counts.get(item, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


@dataclass(frozen=True)
class CaseChange:
    """One case under two configurations: `status` is "regressed" (right under A, wrong under B),
    "fixed" (the reverse), "same" or "unjudged" (no expected route)."""

    id: str
    expected_route: Optional[str]
    route_a: Optional[str]
    route_b: Optional[str]
    status: str


def compare_runs(a: Sequence[CaseResult], b: Sequence[CaseResult]) -> list[CaseChange]:
    """Cases of run A beside the same ids in run B (cases only one side has are left out)."""
    by_id = {r.id: r for r in b}
    out = []
    for ra in a:
        rb = by_id.get(ra.id)
        if rb is None:
            continue
        if ra.correct is None:
            status = "unjudged"
        elif ra.correct and not rb.correct:
            status = "regressed"
        elif rb.correct and not ra.correct:
            status = "fixed"
        else:
            status = "same"
        out.append(CaseChange(ra.id, ra.expected_route, ra.route, rb.route, status))
    return out
