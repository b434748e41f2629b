"""Runs as OpenTelemetry traces with the OpenInference conventions (Phoenix, Langfuse, Jaeger, a collector).

Why spans are built from the run's own records (the steps, their lanes, the model calls, the retrieval
trace) after the run instead of by a generic LangChain instrumentor: the instrumentor makes every span
CHAIN with the whole state on it and gives no RETRIEVER or LLM span for this workflow. Building after
the run also means a Step never waits for telemetry: the spans go to the SDK's batch processor, which
exports them from its own thread.

Nothing here imports the OpenTelemetry SDK until export is on (`rag.telemetry.exporter`), so startup
with export off costs nothing.
"""
