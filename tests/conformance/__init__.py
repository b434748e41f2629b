"""A conformance corpus: small LangGraph graphs written after the patterns of LangGraph's own tests and
docs, each run by LangGraph alone and through the debugger's session, step by step (`harness.py`)."""
