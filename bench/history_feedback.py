"""Does Run history with 10,000 runs open, and filter by "wrong", as fast as with 10? (a page of runs at a time)

Two histories per engine: one of 10,000 runs with feedback on a tenth of them (half of those marked wrong),
one of 10 runs (one marked wrong). Each row carries a real run's progress and result (the demo pack's
complex question), so rows weigh what they weigh in use. The page is the real Run history page under
Streamlit's AppTest (the script run: the queries, the table, the run picker, the selected run's panels),
measured in turns, big and small alternating, so a drift in the machine's load hits both:

- **open**: a rerun of the page with the default filters;
- **wrong**: a rerun with the feedback filter on "Marked wrong";
- **evals**: a rerun with the evaluation filter on "Evaluation runs only" (every fifth run is an evaluation's),
  the evaluation column naming each from the evaluation store.

On SQLite (a file) and on PostgreSQL (a throw-away cluster, tests/support/postgres.py; skipped with its
reason when Debian's postgresql package is missing).

    python -m bench.history_feedback [--repeat 7] [--runs 10000] [--engine sqlite|postgresql|both]

Ends with `open_10000_vs_10_<engine>: X`, `wrong_10000_vs_10_<engine>: Y` and `evals_10000_vs_10_<engine>: Z`
(goal ≤ 2 each).
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from rag.runs.demo_pack import DEMO_RUNS_DIR
from rag.runs.document_limits import parse_document
from rag.runs.feedback import COLUMNS as FEEDBACK_COLUMNS
from rag.runs.history import RunHistory
from rag.runs.run_info import COLUMNS, RunInfo, row_values

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = "14_en_complex_two_products.json"


def _sample_run() -> RunInfo:
    doc = parse_document(DEMO_RUNS_DIR / SAMPLE)
    return doc.run.model_copy(update={"origin": "live"})


def fill(target: str, runs: int) -> None:
    """`runs` recorded runs, one second apart; feedback on every tenth (every other one of those wrong); every
    fifth recorded by an evaluation (`eval_id`, 100 runs an evaluation)."""
    sample = _sample_run()
    insert_run = f"INSERT INTO runs ({', '.join(COLUMNS)}) VALUES ({', '.join('?' for _ in COLUMNS)})"
    insert_feedback = (f"INSERT INTO feedback ({', '.join(FEEDBACK_COLUMNS)}) "
                       f"VALUES ({', '.join('?' for _ in FEEDBACK_COLUMNS)})")
    with RunHistory(target) as history, history.storage.transaction() as execute:
        for i in range(runs):
            run_id = f"main-bench{i:08d}"
            at = f"2026-01-{1 + i // 86400:02d}T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}+00:00"
            info = sample.model_copy(update={"run_id": run_id, "thread_id": run_id, "created_at": at,
                                             "finished_at": at, "question": f"{sample.question} #{i}",
                                             "eval_id": f"ev{i // 500:06d}" if i % 5 == 1 else None})
            execute(insert_run, row_values(info))
            if i % 10 == 3:
                wrong = (i // 10) % 2 == 0
                execute(insert_feedback, (f"fb{i:08d}", run_id, "wrong" if wrong else "good",
                                          "wrong_route" if wrong else None, "a note", None, f"person{i % 7}", at,
                                          "given"))


def _env_for(target: str) -> None:
    if target.startswith("postgresql://"):
        os.environ["RAG_HISTORY_URL"] = target
    else:
        os.environ.pop("RAG_HISTORY_URL", None)
        os.environ["RAG_HISTORY_DB"] = target


def _app(target: str) -> Any:
    from streamlit.testing.v1 import AppTest

    _env_for(target)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/history.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _timed(at: Any, target: str) -> float:
    _env_for(target)
    start = time.perf_counter()
    at.run()
    elapsed = time.perf_counter() - start
    assert not at.exception, [e.value for e in at.exception]
    return elapsed


def measure(big: str, small: str, repeat: int) -> dict[str, float]:
    apps = {name: _app(target) for name, target in (("big", big), ("small", small))}
    targets = {"big": big, "small": small}
    out: dict[str, float] = {}
    for phase in ("open", "wrong", "evals"):
        if phase == "wrong":
            for name, at in apps.items():
                _env_for(targets[name])
                at.selectbox(key="history_feedback_filter").set_value("wrong").run()
        if phase == "evals":
            for name, at in apps.items():
                _env_for(targets[name])
                at.selectbox(key="history_feedback_filter").set_value("all")
                at.selectbox(key="history_eval_filter").set_value("evals").run()
        for name in apps:  # warm-up of this phase
            _timed(apps[name], targets[name])
        times: dict[str, list[float]] = {"big": [], "small": []}
        for _ in range(repeat):
            for name in ("big", "small"):
                times[name].append(_timed(apps[name], targets[name]))
        for name in times:
            out[f"{phase}_{name}"] = statistics.median(times[name])
        shown = len(apps["big"].dataframe[0].value) if apps["big"].dataframe else 0
        out[f"{phase}_rows_shown"] = shown
    return out


def run_engine(engine: str, runs: int, repeat: int) -> dict[str, float]:
    with ExitStack() as stack:
        if engine == "postgresql":
            from tests.support.postgres import postgres_cluster

            cluster = stack.enter_context(postgres_cluster())
            big, small = cluster.new_schema(), cluster.new_schema()
        else:
            folder = stack.enter_context(tempfile.TemporaryDirectory())
            big, small = os.path.join(folder, "big.db"), os.path.join(folder, "small.db")
        start = time.perf_counter()
        fill(big, runs)
        fill(small, 10)
        print(f"[{engine}] filled {runs:,} + 10 runs in {time.perf_counter() - start:.1f} s")
        try:
            return measure(big, small, repeat)
        finally:
            from rag_debugger.ui.history_store import close_all

            close_all()


def main(argv=None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--engine", choices=("sqlite", "postgresql", "both"), default="both")
    args = parser.parse_args(argv)
    os.environ.setdefault("RAG_MODEL_PROVIDER", "offline")
    engines = ("sqlite", "postgresql") if args.engine == "both" else (args.engine,)
    ratios: dict[str, float] = {}
    for engine in engines:
        try:
            found = run_engine(engine, args.runs, args.repeat)
        except RuntimeError as exc:  # no PostgreSQL binaries: say so, measure the rest
            print(f"[{engine}] not measured: {exc}")
            continue
        for phase in ("open", "wrong", "evals"):
            big, small = found[f"{phase}_big"], found[f"{phase}_small"]
            print(f"[{engine}] {phase}: {args.runs:,} runs {big * 1000:.0f} ms ({found[f'{phase}_rows_shown']:.0f} rows "
                  f"on the page), 10 runs {small * 1000:.0f} ms (median of {args.repeat})")
            ratios[f"{phase}_{args.runs}_vs_10_{engine}"] = big / small
    for name, ratio in ratios.items():
        print(f"{name}: {ratio:.2f}")
    return ratios


if __name__ == "__main__":
    main()
