"""The debugger's own small error tree. `debugger/` must not import `rag/`, so it does not share the
engine's `rag.errors`; a UI that shows both treats `DebuggerUserError` like the engine's
user-fixable errors.

    DebuggerError
    ├── StepperError (also a RuntimeError): a misuse of a stepper (step after the end, unknown step)
    └── DebuggerUserError (also a ValueError): input a person can fix
        └── GraphLoadError: a `module:attr` that does not name a usable graph
"""
from __future__ import annotations


class DebuggerError(Exception):
    """Base of the errors the debugger raises on purpose."""


class StepperError(DebuggerError, RuntimeError):
    """A misuse of the stepper (step before start, step after the end, unknown step/checkpoint)."""


class DebuggerUserError(DebuggerError, ValueError):
    """Input a person can fix; the message says what to change."""


class GraphLoadError(DebuggerUserError):
    """`module:attr` could not be imported, called or compiled into a graph."""


__all__ = ["DebuggerError", "StepperError", "DebuggerUserError", "GraphLoadError"]
