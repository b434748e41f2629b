"""The functional API: `@entrypoint` workflows calling `@task`s, with `interrupt` and `entrypoint.final`."""
from __future__ import annotations

from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.types import interrupt

from tests.conformance.case import Case

M = "tests.conformance.graphs_functional"


@task
def double(x: int) -> int:
    return 2 * x


@task
def label(x: int) -> str:
    return f"#{x}"


@entrypoint(checkpointer=InMemorySaver())
def tasks_in_sequence(n: int) -> dict:
    d = double(n).result()
    return {"doubled": d, "label": label(d).result()}


@entrypoint(checkpointer=InMemorySaver())
def tasks_in_parallel(numbers: list[int]) -> list[int]:
    futures = [double(n) for n in numbers]
    return [f.result() for f in futures]


@entrypoint(checkpointer=InMemorySaver())
def asks(inputs: dict) -> dict:
    essay = label(len(inputs["topic"])).result()
    verdict = interrupt({"essay": essay, "action": "review"})
    return {"essay": essay, "verdict": verdict}


@entrypoint(checkpointer=InMemorySaver())
def with_final(n: int, *, previous: Any = None) -> entrypoint.final[str, int]:
    total = (previous or 0) + n
    return entrypoint.final(value=f"total {total}", save=total)


@entrypoint()
def no_checkpointer(text: str) -> str:
    return text.upper()


CASES = [
    Case("ep_sequence", f"{M}:tasks_in_sequence", 4),
    Case("ep_parallel", f"{M}:tasks_in_parallel", [1, 2, 3]),
    Case("ep_interrupt", f"{M}:asks", {"topic": "cats"}, answers=({"ok": True},)),
    Case("ep_final", f"{M}:with_final", 5),
    Case("ep_no_checkpointer", f"{M}:no_checkpointer", "shout"),
]
