"""The RAG debugger app as an installable tool: `pip install rag-debugger`, then `rag-debugger` in your
project's folder (see `rag_debugger.cli`). The engine is the `rag` package."""
