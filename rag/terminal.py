"""Text from a file, a set or a run, put on one line of a terminal as text, never as a terminal command.

The rule lives in the generic debugger's core (`rag_debugger.debugger.terminal`), the lowest layer, so
that its own command (`python -m rag_debugger.debugger.lint`) escapes node names the same way; every CLI of
the engine uses it from here.
"""
from __future__ import annotations

from rag_debugger.debugger.terminal import has_control, is_control, one_line

__all__ = ["has_control", "is_control", "one_line"]
