"""Record one run to a file, with the settings of the environment, answering HITL questions in order.

    python -m rag.runs.record_bundle QUESTION [--answer TEXT]... -o run.json

So two configurations can be recorded and compared from a shell or in CI (`python -m rag.runs.diff`):
the run uses the model provider, knowledge base and prompt version the `RAG_*` / `OPENAI_*` variables
select (offline rules with no key). Each `--answer` answers the next HITL question (clarify or
scope_select); a question left unanswered ends the recording there. The file is a bundle of the
run's export documents (`rag-debugger-runs`: the main run, then each resume), redacted like every
export. Exit status 0, or 2 for bad input (an empty or too long question, a folder that cannot be
written).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Optional

from rag_debugger.debugger.terminal import one_line


def record_bundle(question: str, answers: list[str], *, settings=None) -> dict:
    """The bundle of the run's documents (main run, then one per answered HITL question)."""
    from rag.api import make_context
    from rag.runs.divergence import BUNDLE_FORMAT
    from rag.runs.export import export_run
    from rag.runs.history import RunHistory
    from rag.runs.history_writes import run_recorded
    from rag.settings import RagSettings

    settings = settings or RagSettings()
    ctx = make_context(settings=settings)
    with tempfile.TemporaryDirectory() as tmp, RunHistory(Path(tmp) / "record.db") as history:
        info = run_recorded(history, question, ctx=ctx)
        docs = [export_run(history, info.run_id, settings=settings)]
        for answer in answers:
            snapshot = (info.result or {}).get("hitl_resume_state")
            if not snapshot:
                break
            info = run_recorded(history, kind="resume", snapshot=snapshot, answer=answer, parent_run_id=info.run_id,
                                ctx=ctx)
            docs.append(export_run(history, info.run_id, settings=settings))
    return {"format": BUNDLE_FORMAT, "format_version": 1, "runs": docs}


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rag.runs.record_bundle", description=__doc__.splitlines()[0])
    parser.add_argument("question")
    parser.add_argument("--answer", action="append", default=[], help="answer to the next HITL question")
    parser.add_argument("-o", "--out", type=Path, required=True, help="the file to write (JSON)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code else 0
    from rag.errors import UserFixableError

    if not args.out.parent.is_dir():
        print(one_line(f"error: {args.out.parent} is not a folder"), file=sys.stderr)
        return 2
    try:
        bundle = record_bundle(args.question, args.answer)
    except UserFixableError as exc:
        print(one_line(f"error: {exc}"), file=sys.stderr)
        return 2
    try:
        args.out.write_text(json.dumps(bundle, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        print(one_line(f"error: cannot write {args.out}: {exc.strerror or exc}"), file=sys.stderr)
        return 2
    last = bundle["runs"][-1]
    route = (last.get("result") or {}).get("route")
    print(one_line(f"recorded {len(bundle['runs'])} run(s) to {args.out}: route {route}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
