"""Every error the project raises on purpose, in one tree (the way httpx keeps its own in one module).

    RagError
    ├── UserFixableError (also a ValueError): the message tells a person what to change
    │   ├── InvalidQuestionError      empty, oversized or malformed question / HITL answer
    │   ├── SnapshotError             a resume snapshot that is tampered, foreign or incomplete
    │   ├── InvalidTraceError         a trace field whose value does not fit the protocol's type
    │   ├── PromptTemplateError       a template that would fail or silently lose input
    │   ├── PromptVersionError        a bad version name or a broken version file
    │   │   └── UnknownPromptVersionError (also a LookupError)
    │   ├── ForkNotReachedError       the run never reaches the node the prompt belongs to
    │   ├── RunImportError            a file that is not a run export, is broken or was modified
    │   ├── UnknownRunError (also a LookupError)  no run with that id in the history
    │   ├── UserInputError            anything else typed or uploaded in the app that is unusable
    │   └── BadFile                   a knowledge-base file that ingestion skips, with the reason
    ├── HistoryDamagedError (also a RuntimeError): the run history file is damaged; the app goes on in memory
    └── ModelCallError (also a RuntimeError): a model role failed; the graph degrades and records `kind`

Why one tree: the app's error guard shows a `UserFixableError` as a plain warning and treats anything
else as a defect (logged with its traceback), so a bug that happens to be a `ValueError` inside a
library is no longer mistaken for bad input. This module is their one address: nothing re-exports them
(callers import `rag.errors`). `debugger/` keeps its own small tree because it must not import `rag/`.

This module imports nothing from the project, so anything may import it.
"""
from __future__ import annotations


class RagError(Exception):
    """Base of every error the project raises on purpose."""


class UserFixableError(RagError, ValueError):
    """The input is at fault and the message says what to change; shown to the user as is."""


class InvalidQuestionError(UserFixableError):
    """An empty, oversized or malformed question (or HITL answer)."""


class SnapshotError(UserFixableError):
    """A resume snapshot that is tampered, foreign or incomplete. The message names the bad field."""


class InvalidTraceError(UserFixableError):
    """A kept trace field whose value does not fit the protocol's type. The message names the fields."""


class PromptTemplateError(UserFixableError):
    """A template that would fail or silently lose input at run time."""


class PromptVersionError(UserFixableError):
    """A bad version name, a version file that is broken, or a template that fails validation."""


class UnknownPromptVersionError(PromptVersionError, LookupError):
    """No saved version of that name."""


class ForkNotReachedError(UserFixableError):
    """The question's run never reaches the node that uses the role's prompt."""


class RunImportError(UserFixableError):
    """A file that is not a run export, is broken, or was modified after export."""


class UnknownRunError(UserFixableError, LookupError):
    """No run with that id in this history."""

    def __str__(self) -> str:  # LookupError would quote the message like a key
        return str(self.args[0]) if self.args else "unknown run"


class UserInputError(UserFixableError):
    """Something the user typed or uploaded is not usable; the message says what to change."""


class BadFile(UserFixableError):
    """A knowledge-base file is skipped; the message is the reason shown to the user."""


class HistoryDamagedError(RagError, RuntimeError):
    """The run history file cannot be used: damaged, not a database, or unreadable. The message names the
    file and the cause; `rag.runs.sqlite_storage.RECOVERY` says what to do. Not a `UserFixableError`: the app
    keeps working in memory and says so once, instead of warning on every action."""

    def __init__(self, path: str, cause: str):
        super().__init__(f"the run history file {path} is damaged or unreadable ({cause})")
        self.path = path
        self.cause = cause


class HistoryUnavailableError(HistoryDamagedError):
    """The shared run history database cannot be used: down, unreachable, or it refuses the login. A kind
    of HistoryDamagedError so every place that falls back to memory for a damaged file does so here too;
    `path` is the database URL without its password (`rag.redaction.redact_url`), `cause` is redacted."""

    def __init__(self, path: str, cause: str):
        RuntimeError.__init__(self, f"the run history database {path} cannot be used ({cause})")
        self.path = path
        self.cause = cause


class ModelCallError(RagError, RuntimeError):
    """A model role failed (timeout, HTTP error, invalid structured output). Carries a short,
    key-free `kind` the graph records in the trace when it degrades."""

    def __init__(self, kind: str, message: str, *, status: "int | None" = None):
        super().__init__(message)
        self.kind = kind
        self.status = status
        """The HTTP status the endpoint answered with, when it answered at all."""


__all__ = [
    "RagError", "UserFixableError", "InvalidQuestionError", "SnapshotError", "InvalidTraceError", "PromptTemplateError",
    "PromptVersionError", "UnknownPromptVersionError", "ForkNotReachedError", "RunImportError",
    "UnknownRunError", "UserInputError", "BadFile", "HistoryDamagedError", "HistoryUnavailableError",
    "ModelCallError",
]
