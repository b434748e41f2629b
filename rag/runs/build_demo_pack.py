"""Record the demo pack: every demo question run with the offline default, exported as JSON.

    python -m rag.runs.build_demo_pack [--out rag/data/demo_runs] [--db PATH]

Why ship recordings: a stakeholder demo must look the same on any machine, with no key, no model
and no index build; the replay shows the run exactly as it was recorded here. Each demo gives
`<NN>_<id>.json` (the main run) and, for clarify / scope_select demos, `<NN>_<id>__resume.json`
(the resume with the demo's HITL answer, linked by `parent_run_id`). Run ids are stable
(`demo-<id>`, `demo-<id>-resume`) so a re-recording diffs cleanly in git.

The offline provider is forced (a developer's key in the environment must not leak into, or
change, the pack). A demo that does not end in its expected route is reported and makes the
script exit with status 1, after writing the files, so a regression is noticed.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Optional

from rag.api import make_context
from rag.runs.demo_pack import DEMO_RUNS_DIR
from rag.runs.export import export_run
from rag.runs.history import RunHistory
from rag.runs.history_writes import run_recorded
from rag.runs.run_info import RunInfo
from rag.settings import RagSettings


def _outcome_ok(demo, info: RunInfo) -> Optional[str]:
    """None when the run matches the demo's category, else what went wrong."""
    if info.status != "done":
        return f"status {info.status}: {info.error}"
    if info.route != demo.final_route:
        return f"expected route {demo.final_route}, got {info.route}"
    trace = (info.result or {}).get("rag_trace") or {}
    if demo.expected_route == "rewrite_then_answer" and not trace.get("rewrite_method"):
        return "expected a rewrite in the trace"
    return None


def record(out_dir: Path, db_path: Path, *, demos=None, settings: Optional[RagSettings] = None) -> list[str]:
    """Record and export every demo; returns the problems found (empty when all matched)."""
    from rag.demo import load_demo_questions

    demos = list(demos if demos is not None else load_demo_questions())
    settings = settings or RagSettings(model_provider="offline", prompt_version=None, openai_api_key=None,
                                       rerank_api_key=None)
    ctx = make_context(settings=settings)
    out_dir.mkdir(parents=True, exist_ok=True)
    for stale in out_dir.glob("*.json"):
        stale.unlink()
    problems: list[str] = []
    with RunHistory(db_path) as history:
        for n, demo in enumerate(demos, start=1):
            stem = f"{n:02d}_{demo.id}"
            main = run_recorded(history, demo.question, ctx=ctx, run_id=f"demo-{demo.id}")
            _write(out_dir / f"{stem}.json", export_run(history, main.run_id, settings=settings, label=demo.label))
            issue = _outcome_ok(demo, main)
            if issue:
                problems.append(f"{demo.id}: {issue}")
            print(f"{stem}: {main.route} ({main.duration_ms:.0f} ms)")
            if demo.hitl_answer and main.result and main.result.get("hitl_resume_state"):
                resumed = run_recorded(
                    history, kind="resume", snapshot=main.result["hitl_resume_state"], answer=demo.hitl_answer,
                    parent_run_id=main.run_id, ctx=ctx, run_id=f"demo-{demo.id}-resume",
                )
                _write(out_dir / f"{stem}__resume.json",
                       export_run(history, resumed.run_id, settings=settings,
                                  label=f"{demo.label} → answered {demo.hitl_answer!r}"))
                if demo.expected_resume_route and resumed.route != demo.expected_resume_route:
                    problems.append(f"{demo.id} (resume): expected {demo.expected_resume_route}, got {resumed.route}")
                print(f"{stem}__resume: {resumed.route}")
            elif demo.hitl_answer:
                problems.append(f"{demo.id}: expected a HITL snapshot to resume from")
    return problems


def _write(path: Path, doc: dict) -> None:
    path.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEMO_RUNS_DIR, help="folder for the JSON files")
    parser.add_argument("--db", type=Path, default=None, help="history database (default: a temporary file)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        problems = record(args.out, args.db or Path(tmp) / "demo_history.db")
    for p in problems:
        print(f"MISMATCH {p}", file=sys.stderr)
    print(f"wrote {len(list(args.out.glob('*.json')))} files to {args.out}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
