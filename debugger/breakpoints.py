"""Breakpoints: nodes to pause before. Continue runs step by step and stops once the next
superstep would run a node that has one (a `Send` fan-out is one superstep, so a breakpoint on the
fanned-out node pauses before all its lanes). Pure rules; the UI keeps the chosen set."""
from __future__ import annotations

from typing import Iterable, Optional


def breakpoint_hit(next_nodes: Iterable[str], breakpoints: Iterable[str]) -> Optional[str]:
    """The first node about to run that has a breakpoint, else None."""
    wanted = set(breakpoints)
    for node in next_nodes:
        if node in wanted:
            return node
    return None
