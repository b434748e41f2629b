"""Peak memory of two hostile inputs of the second review, each against its own input size.

- `import_45mb_empty_objects`: importing a 45 MB run export made of empty objects (it peaked at 2.1 GB
  and took 113 s); refused on its text now (rag/runs/document_limits.py). Goal: peak RSS growth ≤ 4x
  the file.
- `report_200_nodes`: Download as HTML of a refused graph's run that went through 200 recorded node names
  (0.5 MB in, 2.8 GB and a 338 MB file out); one picture, marked by the file's script now
  (rag_debugger/exports/run_file_data.py). Goal: peak RSS growth ≤ 4x the run's document; the file's size is printed too.

Each is measured in a fresh subprocess: the growth is its peak RSS (`ru_maxrss`) minus the RSS after the
modules it needs were imported, so the figure is the input's cost, not the interpreter's.

    python -m bench.import_memory
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

GOAL = 4.0

_PRELUDE = textwrap.dedent("""
    import json, resource, sys, time
    def peak_mb():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
""")

_IMPORT = _PRELUDE + textwrap.dedent("""
    import tempfile
    from pathlib import Path
    from rag.errors import RunImportError
    from rag.runs.history import RunHistory
    from rag.runs.importing import import_run
    with tempfile.TemporaryDirectory() as folder, RunHistory(Path(folder) / "h.db") as history:
        base = peak_mb()
        data = Path(sys.argv[1]).read_bytes()  # the upload's bytes count: the page holds them too
        started = time.perf_counter()
        try:
            import_run(data, history)
            outcome = "imported"
        except RunImportError as exc:
            outcome = "refused: " + str(exc)[:80]
        seconds = time.perf_counter() - started
    print(json.dumps({"input_mb": len(data) / 1024 / 1024, "base_mb": base, "peak_mb": peak_mb(),
                      "seconds": seconds, "outcome": outcome}))
""")

_REPORT = _PRELUDE + textwrap.dedent("""
    import operator
    from pathlib import Path
    from typing import Annotated, TypedDict
    from langgraph.graph import END, START, StateGraph
    from rag_debugger.debugger.allowlist import GraphPolicy
    from rag_debugger.debugger.loading import with_checkpointer
    from rag_debugger.debugger.session import GraphSession
    from rag.runs.graph_runs import graph_document
    from rag.runs.history import RunHistory
    from rag_debugger.exports.graph_run_file import graph_run_report

    class State(TypedDict, total=False):
        seen: Annotated[list, operator.add]

    def recorded_run(history, k):
        # a run of a K-node chain, recorded under a graph name the allow-list refuses: (run id, bytes)
        builder = StateGraph(State)
        names = [f"recorded_node_{i:03d}" for i in range(k)]
        for name in names:
            builder.add_node(name, lambda state, n=name: {"seen": [n * 4]})
        for a, b in zip([START, *names], [*names, END]):
            builder.add_edge(a, b)
        session = GraphSession(spec="refused.mod:graph", graph=with_checkpointer(builder.compile()))
        session.start({"seen": []})
        session.run_to_end()
        checkpoints, head = session.recording()
        info = history.record_start("{}", kind="graph", graph_spec="refused.mod:graph")
        doc = graph_document(info, checkpoints, head, {"seen": []})
        history.record_document(info.run_id, doc)
        return info.run_id, len(json.dumps(doc, ensure_ascii=False).encode())

    with RunHistory(Path(sys.argv[1])) as history:
        if sys.argv[2] == "record":  # a process of its own: recording the run must not set the high-water mark
            warm, _size = recorded_run(history, 3)
            run_id, size = recorded_run(history, int(sys.argv[3]))
            print(json.dumps({"warm": warm, "run_id": run_id, "size": size}))
            sys.exit(0)
        made = json.loads(sys.argv[3])
        graph_run_report(history, made["warm"], GraphPolicy())  # the modules a file needs, imported once
        base = peak_mb()
        started = time.perf_counter()
        page = graph_run_report(history, made["run_id"], GraphPolicy())
        seconds = time.perf_counter() - started
    print(json.dumps({"input_mb": made["size"] / 1024 / 1024, "base_mb": base, "peak_mb": peak_mb(),
                      "seconds": seconds, "file_mb": len(page.encode()) / 1024 / 1024}))
""")


def measure(script: str, *args: str) -> dict:
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", script, *args], cwd=root, capture_output=True, text=True,
                          timeout=1800, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the measurement failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def line(name: str, found: dict) -> tuple[str, float]:
    growth = max(found["peak_mb"] - found["base_mb"], 0.0)
    ratio = growth / found["input_mb"]
    extra = f"  file {found['file_mb']:.2f} MB" if "file_mb" in found else f"  ({found['outcome']})"
    verdict = "ok" if ratio <= GOAL else f"OVER the goal of {GOAL:g}x"
    return (f"{name}: input {found['input_mb']:.2f} MB, peak RSS growth {growth:.1f} MB = {ratio:.2f}x the input "
            f"({found['seconds']:.2f} s){extra}  {verdict}"), ratio


def main() -> int:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        upload = Path(folder) / "empty_objects.json"
        count = 45 * 1024 * 1024 // 3
        with open(upload, "w", encoding="utf-8") as fh:
            fh.write('{"format": "rag-debugger-run", "format_version": 1, "pad": [{}')
            for _ in range(count // 100_000):
                fh.write(",{}" * 100_000)
            fh.write("]}")
        results = [line("import_45mb_empty_objects", measure(_IMPORT, str(upload)))]
        upload.unlink()
        db = str(Path(folder) / "history.db")
        made = measure(_REPORT, db, "record", "200")
        results.append(line("report_200_nodes", measure(_REPORT, db, "draw", json.dumps(made))))
    for text, _ratio in results:
        print(text)
    return 0 if all(ratio <= GOAL for _text, ratio in results) else 1


if __name__ == "__main__":
    sys.exit(main())
