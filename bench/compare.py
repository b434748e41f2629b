"""How much does comparing two runs cost, against opening one of them?

Two figures, each a ratio against a baseline measured in the same run:

- `compare_300_vs_open`: two exported 300-step runs of a loop graph whose state grows every step: compare
  them (validate and replay each, align, first divergence) vs open one in the Your graph debugger
  (validate, replay to its end, draw the inspector). Goal ≤ 2.
- `compare_demo_vs_step`: compare two opened runs of a complex (fan-out) question, top_k 8 vs 3 (replay
  each, align, the summary lines) vs drawing one step of one of them in the debugger (the inspector's
  HTML for a step, mean over its steps). Both start from runs already read (parsing a 0.5 MB export
  takes ~25 ms either way). Goal ≤ 1.5.

    python -m bench.compare [--repeat 7]
"""
from __future__ import annotations

import argparse
import json
import operator
import statistics
import time
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph


class LoopState(TypedDict, total=False):
    n: int
    log: Annotated[list, operator.add]


def loop_graph(limit: int):
    def tick(state: LoopState) -> dict:
        return {"n": state.get("n", 0) + 1, "log": [f"step {state.get('n', 0)}: " + "x" * 40]}

    b = StateGraph(LoopState)
    b.add_node("tick", tick)
    b.add_edge(START, "tick")
    b.add_conditional_edges("tick", lambda s: "tick" if s["n"] < limit else END, ["tick", END])
    return b.compile(checkpointer=InMemorySaver())


def recorded_loop(limit: int, start: int):
    from rag_debugger.debugger.replay import record_thread

    graph = loop_graph(limit)
    config = {"configurable": {"thread_id": f"loop-{start}"}, "recursion_limit": limit + 10}
    graph.invoke({"n": start}, config)
    return record_thread(graph, config)


def timed(fn, repeat: int) -> float:
    fn()
    samples = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def loop_figure(repeat: int) -> float:
    """From two exported 300-step recordings: opening one in the Your graph debugger (validate, replay to
    its end, draw the inspector) vs comparing both (validate and replay each, align, first divergence)."""
    from rag_debugger.debugger.alignment import Segment, compare_runs
    from rag_debugger.debugger.replay import RecordedCheckpoint, ReplayStepper
    from rag_debugger.debugger.session import EXPORT_FORMAT, GraphSession
    from rag_debugger.views.graph_parts import graph_parts
    from rag_debugger.views.inspector_html import inspector_sections

    exports = [{"format": EXPORT_FORMAT, "graph": "bench", "input": {"n": start},
                "checkpoints": [c.model_dump(mode="json") for c in recorded_loop(300, start)]} for start in (0, 1)]

    def open_one():
        session = GraphSession(spec="bench.compare:loop", graph=loop_graph(300))
        session.open_replay(exports[0])
        session.current.stepper.run_to_end()
        inspector_sections(session, None, parts=graph_parts(session))

    def replayed(export: dict) -> list[Segment]:
        checkpoints = [RecordedCheckpoint.model_validate(c) for c in export["checkpoints"]]
        return [Segment(label="main", steps=ReplayStepper(checkpoints).all_steps)]

    def compare_two():
        compare_runs(replayed(exports[0]), replayed(exports[1]))

    base, cmp_ = timed(open_one, repeat), timed(compare_two, repeat)
    print(f"open one 300-step recording:      {base * 1000:.1f} ms")
    print(f"compare two 300-step recordings:  {cmp_ * 1000:.1f} ms")
    return cmp_ / base


def demo_figure(repeat: int) -> float:
    from rag.runs.divergence import RunSide, compare_sides, summary_lines
    from rag.runs.document_limits import parse_document
    from rag.runs.record_bundle import record_bundle
    from rag.settings import RagSettings

    question = "How do I reset the Nova Thermostat, and how long does the Nova Speaker battery last?"
    docs = [record_bundle(question, [], settings=RagSettings(model_provider="offline", openai_api_key=None, top_k=k))
            for k in (8, 3)]
    texts = [json.dumps(d["runs"][0]) for d in docs]

    parsed = [parse_document(t) for t in texts]

    def compare_two():
        sides = [RunSide(ref=str(i), documents=[doc]) for i, doc in enumerate(parsed)]
        summary_lines(compare_sides(*sides), *sides)

    import tempfile
    from pathlib import Path

    from rag.runs.history import RunHistory
    from rag.runs.importing import import_run
    from rag_debugger.views.inspector_html import inspector_sections
    from rag_debugger.workbench.session import DebugSession

    folder = tempfile.mkdtemp()
    history = RunHistory(Path(folder) / "bench.db")
    info = import_run(docs[0]["runs"][0], history)
    session = DebugSession()
    session.open_replay(history, info.run_id)
    session.current.stepper.run_to_end()
    steps = len(session.all_steps())

    rows: dict = {}  # the timeline's rows, kept between draws as the page keeps them

    def draw_step():
        for travel in range(steps):
            inspector_sections(session, travel, timeline_cache=rows)

    base, cmp_ = timed(draw_step, repeat) / steps, timed(compare_two, repeat)
    history.close()
    print(f"draw one step of a demo run:      {base * 1000:.1f} ms (mean over its {steps} steps)")
    print(f"compare two demo runs:            {cmp_ * 1000:.1f} ms")
    return cmp_ / base


def main(argv=None) -> tuple[float, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    loop = loop_figure(args.repeat)
    print(f"compare_300_vs_open: {loop:.2f}")
    demo = demo_figure(args.repeat)
    print(f"compare_demo_vs_step: {demo:.2f}")
    return loop, demo


if __name__ == "__main__":
    main()
