"""A sweep of retrieval settings: a grid of points, each a retrieval-only pass of the set.

Why only these settings: they change what retrieval returns and nothing else, so one opened
knowledge base serves every point (rag.eval.retrieval_eval.Workbench). A value is checked twice:
its type here (so `RAG_TOP_K=abc` names the setting), then the settings model's own limits.
A grid over MAX_POINTS is refused with its size; an interrupted sweep keeps the points done.
"""
from __future__ import annotations

import csv
import io
import itertools
import json
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from pydantic import ValidationError

from rag.errors import UserFixableError
from rag.eval.cases import EvalCase
from rag.eval.retrieval_eval import Workbench, run_retrieval, summarize
from rag.settings import RagSettings

MAX_POINTS = 200
#: Setting (environment name) -> (RagSettings field, value type).
SWEEPABLE: dict[str, tuple[str, str]] = {
    "RAG_TOP_K": ("top_k", "int"), "RAG_CANDIDATE_K": ("candidate_k", "int"), "RAG_RRF_K": ("rrf_k", "int"),
    "RAG_DENSE_ENABLED": ("dense_enabled", "bool"), "RAG_AUTO_MERGE": ("auto_merge_enabled", "bool"),
    "RAG_AUTO_MERGE_THRESHOLD": ("auto_merge_threshold", "int"), "RAG_MIN_SCORE": ("min_score", "float"),
    "RAG_LOCAL_RESCORE": ("local_rescore", "bool"),
}
TRUE, FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


class SweepError(UserFixableError):
    """A sweep that cannot run: the message names the setting and the value."""


def parse_value(name: str, raw: str):
    kind = SWEEPABLE[name][1]
    text = raw.strip()
    try:
        if kind == "int":
            return int(text)
        if kind == "float":
            return None if text.lower() in ("none", "") else float(text)
        if text.lower() in TRUE:
            return True
        if text.lower() in FALSE:
            return False
    except ValueError:
        pass
    wanted = {"int": "an integer", "float": "a number"}.get(kind, "true or false")
    raise SweepError(f"--sweep {name}: {raw!r} is not {wanted}")


def parse_axis(spec: str) -> tuple[str, list]:
    """`NAME=V1,V2,...` -> (NAME, [values]); an unknown or non-retrieval setting is refused."""
    name, sep, values = spec.partition("=")
    name = name.strip().upper()
    if not sep or not values.strip():
        raise SweepError(f"--sweep {spec!r}: expected NAME=V1,V2,...")
    if name not in SWEEPABLE:
        raise SweepError(f"--sweep {name}: not a retrieval setting; one of {', '.join(SWEEPABLE)}")
    return name, list(dict.fromkeys(parse_value(name, v) for v in values.split(",")))


def grid(specs: Sequence[str], base: RagSettings) -> list[dict]:
    """Every combination of the axes, as {setting name: value}, each validated against the
    settings model; more than MAX_POINTS is refused with the count (nothing runs)."""
    axes: dict[str, list] = {}
    for spec in specs:
        name, values = parse_axis(spec)
        if name in axes:
            raise SweepError(f"--sweep {name} given twice")
        axes[name] = values
    count = 1
    for values in axes.values():
        count *= len(values)
    if count > MAX_POINTS:
        raise SweepError(f"the sweep has {count} points; at most {MAX_POINTS}")
    points = [dict(zip(axes, combo, strict=True)) for combo in itertools.product(*axes.values())] if axes else [{}]
    for point in points:
        settings_for(base, point)
    return points


def settings_for(base: RagSettings, point: dict) -> RagSettings:
    values = base.model_dump()
    for name, value in point.items():
        fname = SWEEPABLE[name][0]
        values[fname] = str(value) if fname == "candidate_k" else value
    try:
        return RagSettings(**values)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = str(err["loc"][0]) if err["loc"] else ""
        name = next((n for n, (f, _) in SWEEPABLE.items() if f == loc or n == loc), loc)
        raise SweepError(f"--sweep {name}={point.get(name)!r}: {err['msg']}") from None


@dataclass
class SweepResult:
    points: list[dict] = field(default_factory=list)
    total: int = 0
    interrupted: bool = False

    def to_json(self) -> dict:
        return {"points": self.points, "total": self.total, "interrupted": self.interrupted}


def run_sweep(cases: Sequence[EvalCase], base: RagSettings, points: Sequence[dict],
              on_point: Optional[Callable[[int, dict], None]] = None, bench: Optional[Workbench] = None,
              on_case: Optional[Callable[[object], None]] = None) -> SweepResult:
    """Each point a retrieval-only pass on one opened knowledge base. A KeyboardInterrupt (Ctrl-C)
    ends the sweep with the points done so far (`interrupted` true). `on_case` is called after every
    case of every point (the page yields to its other threads there)."""
    dense = base.dense_enabled or any(p.get("RAG_DENSE_ENABLED") for p in points)
    bench = bench or Workbench(base, dense=dense)
    out = SweepResult(total=len(points))
    try:
        for i, point in enumerate(points):
            settings = settings_for(base, point)
            summary = summarize(run_retrieval(cases, settings, bench, on_case=on_case), settings.top_k)
            row = {"settings": point, "metrics": summary["metrics"], "lost_at": summary["lost_at"],
                   "latency_ms": summary["latency_ms"], "k": summary["k"]}
            out.points.append(row)
            if on_point is not None:
                on_point(i, row)
    except KeyboardInterrupt:
        out.interrupted = True
    return out


def flat_row(point: dict) -> dict:
    """One point as flat columns: its settings, final metrics, the funnel, the latency."""
    row = dict(point["settings"])
    row["k"] = point["k"]
    for metric, value in point["metrics"].get("final", {}).items():
        row[f"{metric}@k"] = None if value is None else round(value, 4)
    row.update({f"lost_at_{s}": n for s, n in point["lost_at"].items()})
    row.update({"latency_p50_ms": point["latency_ms"]["p50"], "latency_p95_ms": point["latency_ms"]["p95"]})
    return row


def to_csv(result: SweepResult) -> str:
    rows = [flat_row(p) for p in result.points]
    if not rows:
        return ""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def to_json(result: SweepResult) -> str:
    return json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n"


def format_table(result: SweepResult) -> str:
    rows = [flat_row(p) for p in result.points]
    if not rows:
        return "(no points)"
    cols = [c for c in rows[0] if not c.startswith("lost_at_")] + ["lost_at"]
    for r, p in zip(rows, result.points, strict=True):
        r["lost_at"] = " ".join(f"{s}={n}" for s, n in p["lost_at"].items() if n)
    widths = {c: max(len(c), *(len(str(r.get(c))) for r in rows)) for c in cols}
    lines = ["  ".join(c.ljust(widths[c]) for c in cols)]
    lines += ["  ".join(str(r.get(c)).ljust(widths[c]) for c in cols) for r in rows]
    return "\n".join(lines)


def pareto_front(points: Sequence[tuple[float, float]]) -> list[bool]:
    """(latency, recall) pairs -> True where no other point is at least as fast AND at least as
    good with one of the two strictly better."""
    out = []
    for i, (lat, rec) in enumerate(points):
        dominated = any(j != i and lj <= lat and rj >= rec and (lj < lat or rj > rec)
                        for j, (lj, rj) in enumerate(points))
        out.append(not dominated)
    return out


def command_line(set_name: str, kb: str, axes: dict[str, list]) -> str:
    """The CLI line that reproduces a sweep (shown on the Evaluate page)."""
    def fmt(v):
        return "none" if v is None else str(v).lower() if isinstance(v, bool) else str(v)

    parts = ["python -m rag.eval", set_name, "--kb", kb, "--retrieval-only"]
    for name, values in axes.items():
        parts += ["--sweep", f"{name}={','.join(fmt(v) for v in values)}"]
    return " ".join(parts)


__all__ = ["SWEEPABLE", "MAX_POINTS", "SweepError", "grid", "run_sweep", "SweepResult", "to_csv", "to_json",
           "format_table", "pareto_front", "command_line", "settings_for", "parse_axis"]
