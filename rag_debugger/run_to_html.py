"""Write a run as one self-contained HTML file, for someone who has no app.

    python -m rag_debugger.run_to_html RUN_ID|EXPORT.json -o run.html [--lang en|zh] [--step N]

RUN_ID is a run of the configured history (`RAG_HISTORY_URL`, else `RAG_HISTORY_DB`); EXPORT.json is
a run export, or a bundle written by `python -m rag.runs.record_bundle`. The file opens from disk in any
current browser with no server and no network, at step N (default: the end), in `--lang` (both
languages are in it, with a switch). Exit status 0, or 2 for bad input (an unknown run id, a corrupt
export, a folder that cannot be written).

Why in `rag_debugger` and not beside the engine's run commands (`rag.runs.diff`, `rag.runs.record_bundle`): it
draws with the app's own views (`rag_debugger.exports.run_file`), and the engine never imports the app.
"""
from __future__ import annotations

import argparse
import logging
import sys
import tempfile
from pathlib import Path
from typing import Any, Optional

from rag_debugger.debugger.terminal import one_line


def _open(ref: str, tmp: Path) -> tuple[Any, str]:
    """(history, run id): a file imported into a history in `tmp`, else the configured history."""
    from rag.runs.divergence import read_run_documents
    from rag.runs.history import RunHistory
    from rag.runs.importing import import_run

    path = Path(ref)
    if path.suffix.lower() == ".json" or path.exists():
        docs = read_run_documents(path)
        history = RunHistory(tmp / "report.db")
        run_id = ""
        for doc in docs:
            run_id = import_run(doc, history).run_id
        return history, run_id
    from rag.errors import UnknownRunError
    from rag.runs.location import configured_history

    target = configured_history()
    if target is None:
        raise UnknownRunError(f"{ref}: not a file, and no run history is configured to look the id up")
    history = RunHistory(target)
    if not history.has_run(ref):
        history.close()
        raise UnknownRunError(f"{ref}: no run with this id in the history")
    return history, ref


def _render(history: Any, run_id: str, *, lang: str, start: Optional[int]) -> str:
    """A RAG run replayed to its end; a Your-graph run with its graph loaded only when the allow-list of the
    Your graph page lets it (the bundled examples, `RAG_DEBUG_GRAPH`, `RAG_DEBUG_GRAPHS`), else drawn from
    its recording (rag_debugger/exports/graph_run_file.py)."""
    if history.get_run(run_id).kind == "graph":
        from rag.errors import UserInputError
        from rag_debugger.exports.graph_run_file import graph_run_report, shell_policy

        try:
            return graph_run_report(history, run_id, shell_policy(), lang=lang, step=start)
        except ValueError as exc:  # not replayable (never ended, a broken recording): said, not a traceback
            raise UserInputError(f"{run_id}: {exc}") from None
    from rag_debugger.exports.run_file import rag_report, replay_session

    return rag_report(replay_session(history, run_id), start=start, lang=lang)


def write_report(ref: str, out: Path, *, lang: str = "en", step: Optional[int] = None) -> int:
    """Write the file; returns its size in bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        history, run_id = _open(ref, Path(tmp))
        try:
            text = _render(history, run_id, lang=lang, start=None if step is None else step - 1)
        finally:
            history.close()
    out.write_text(text, encoding="utf-8")
    return len(text.encode("utf-8"))


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rag_debugger.run_to_html", description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a run id of the configured history, or an export file")
    parser.add_argument("-o", "--out", type=Path, required=True, help="the HTML file to write")
    parser.add_argument("--lang", choices=("en", "zh"), default="en", help="the language it opens in")
    parser.add_argument("--step", type=int, default=None, help="the step it opens at (1 = after the first step)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code else 0
    logging.getLogger("streamlit").setLevel(logging.ERROR)  # the views run without a browser session here
    from rag.errors import UserFixableError

    if not args.out.parent.is_dir():
        print(one_line(f"error: {args.out.parent} is not a folder"), file=sys.stderr)
        return 2
    try:
        size = write_report(args.run, args.out, lang=args.lang, step=args.step)
    except UserFixableError as exc:
        print(one_line(f"error: {exc}"), file=sys.stderr)
        return 2
    except OSError as exc:
        print(one_line(f"error: cannot write {args.out}: {exc.strerror or exc}"), file=sys.stderr)
        return 2
    print(one_line(f"wrote {args.out} ({size / 1024:.0f} KB)"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
