"""The functional API: `@entrypoint` workflows calling `@task`s, with `interrupt` and `entrypoint.final`."""
from __future__ import annotations

from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.func import entrypoint, task
from langgraph.types import RetryPolicy, interrupt

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


@task
def ask_in_task(topic: str) -> str:
    answer = interrupt(f"title for {topic}?")
    return f"{topic}: {answer}"


@entrypoint(checkpointer=InMemorySaver())
def task_asks(topics: list[str]) -> list[str]:
    first = ask_in_task(topics[0]).result()
    return [first, label(len(topics)).result()]


_ATTEMPTS: dict[str, int] = {}


@task(retry_policy=RetryPolicy(max_attempts=2, initial_interval=0.0, jitter=False, retry_on=ConnectionError))
def flaky_task(key: str) -> str:
    _ATTEMPTS[key] = _ATTEMPTS.get(key, 0) + 1
    if _ATTEMPTS[key] % 2 == 1:
        raise ConnectionError("first try fails")
    return key.upper()


@entrypoint(checkpointer=InMemorySaver())
def retried_task(key: str) -> str:
    return flaky_task(key).result()


CASES = [
    Case("ep_sequence", f"{M}:tasks_in_sequence", 4),
    Case("ep_parallel", f"{M}:tasks_in_parallel", [1, 2, 3]),
    Case("ep_interrupt", f"{M}:asks", {"topic": "cats"}, answers=({"ok": True},)),
    Case("ep_final", f"{M}:with_final", 5),
    Case("ep_no_checkpointer", f"{M}:no_checkpointer", "shout"),
    Case("ep_interrupt_in_task", f"{M}:task_asks", ["cats", "dogs"], answers=("Whiskers",)),
    Case("ep_retried_task", f"{M}:retried_task", "abc"),
]
