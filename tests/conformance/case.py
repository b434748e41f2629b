"""What one corpus graph carries besides itself: its test input and answers, as a LangGraph user passes them."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass(frozen=True)
class Case:
    """`spec`: where the graph lives (`module:attr`: a compiled graph, a builder, a factory or an
    `@entrypoint`). `input`: the first input, exactly as one would pass it to `invoke`. `answers`: what each
    pause in `interrupt()` is answered with, in order (any value, or a `Command`). `context`: the
    `module:attr` of the runtime context. `what_if`: (0-based step, field, new value) to edit after that
    step, or None where an edit says nothing. `breakpoint`: a node to stop before (None: no breakpoint check).
    `fails`: the run is expected to end on a node's error."""

    name: str
    spec: str
    input: Any
    answers: tuple = ()
    context: Optional[str] = None
    what_if: Optional[tuple[int, str, Any]] = None
    breakpoint: Optional[str] = None
    fails: bool = False
    tags: tuple[str, ...] = field(default=())
