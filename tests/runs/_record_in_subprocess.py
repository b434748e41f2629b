"""Run by test_history in a separate Python process: record one run into the given database."""
from __future__ import annotations

import sys

from rag.api import make_context
from rag.runs.history import RunHistory
from rag.runs.history_writes import run_recorded
from rag.settings import RagSettings
from tests.engine.fakes import FakeRetriever, FakeRoles, chunk

if __name__ == "__main__":
    db, question = sys.argv[1], sys.argv[2]
    ctx = make_context(settings=RagSettings(model_provider="offline"), retriever=FakeRetriever(default=[chunk(1)]),
                       roles=FakeRoles().roles())
    with RunHistory(db) as history:
        info = run_recorded(history, question, ctx=ctx)
    print(info.run_id)
