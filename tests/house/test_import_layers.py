"""Imports run downward. Each module belongs to a layer; it may import its own layer and the layers
below, never one above. Function-level imports count too: a lazy import is still a dependency.

The layers, lowest first, and why they sit where they do:
- foundations: the error tree, the data contracts, settings, the trace protocol, secret redaction,
  the UI's words (`rag.i18n`)
  (import nothing above them);
- rules: the workflow's pure rules (routing, fast path, HITL, synthesis), tested as tables;
- prompts: the templates and their saved versions;
- ingest: reading documents into the store: chunking, the store, where stores live (`paths`), a
  folder's profile and the embedders (the store holds the passages' vectors);
- retrieval: searching a store (sparse, dense, hybrid, rerank, Milvus); it reads what ingest wrote and
  builds a missing store with `ingest_folder`, so it sits above ingest, never the other way round;
- knowledge-base jobs (`rag.kb_jobs`): an ingestion run for the app, which then syncs Milvus and drops
  the retrievers of that folder, so it needs both;
- models: the planner, grader and rewriter roles (offline rules or an OpenAI-compatible endpoint);
- context: what one request carries to the nodes (settings, retriever, roles, progress sink);
- graph: the nodes and the compiled graphs;
- api: the public entry points, the warm-up, the demo questions;
- runs: recording, history, export and replay of runs;
- playground: A/B forks of a prompt from a checkpoint (drives graph, models and runs);
- evaluation: question sets run through the public API, scored per route;
- workbench (`rag_debugger.workbench`): the RAG step debugger's logic without Streamlit (sessions, recording,
  replay, run owners), the first layer of the app package;
- views: what the pages show, built as text without Streamlit (`rag_debugger.views`: the inspector's HTML
  fragments, the link rules, markdown-safe text);
- exports: the self-contained HTML files (`rag_debugger.exports`: a run, a Your-graph run, a comparison), drawn
  with the views and written by the pages' Download buttons and the commands, so above views and below app;
- app: the Streamlit pages and panels (`rag_debugger.ui`, `pages`, `app.py`) and the commands (`rag-debugger`,
  `python -m rag_debugger.run_to_html`).
No exception: the engine (`rag`) never imports the app (`rag_debugger` outside its `debugger` core).
`rag_debugger.debugger`, the generic LangGraph debugger, sits below all of this: it must not import any of ours
(tests/debugger/test_package.py), and the RAG workbench builds on it. Its terminal-safe text
(`rag_debugger.debugger.terminal`) is what every command line of the engine prints outside text through.
"""
from __future__ import annotations

import ast
from pathlib import Path

from tests.house.sources import module_name, python_files

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("debugger core", ("rag_debugger.debugger",)),  # imports none of ours (tests/debugger/test_package.py)
    ("foundations", ("rag.errors", "rag.access", "rag.schemas", "rag.settings", "rag.trace", "rag.trace_meanings",
                     "rag.redaction", "rag.i18n", "rag.spreadsheet", "rag.outcome_words")),
    ("rules", ("rag.rules",)),
    ("prompts", ("rag.prompts",)),
    ("ingest", ("rag.ingest",)),
    ("retrieval", ("rag.retrieval",)),
    ("knowledge-base jobs", ("rag.kb_jobs",)),
    ("models", ("rag.models",)),
    ("context", ("rag.context",)),
    ("graph", ("rag.graph",)),
    ("api", ("rag.api", "rag.warmup", "rag.demo", "rag")),
    ("runs", ("rag.runs",)),
    ("playground", ("rag.playground",)),
    ("evaluation", ("rag.eval",)),
    ("workbench", ("rag_debugger.workbench",)),
    ("views", ("rag_debugger.views",)),
    ("exports", ("rag_debugger.exports",)),
    ("app", ("rag_debugger", "pages", "app")),
]


def layer_of(module: str) -> int | None:
    """The layer of a module name (longest matching prefix), or None for third-party modules."""
    best: tuple[int, int] | None = None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[1]:
                    best = (index, len(prefix))
    return None if best is None else best[0]


def imported_modules(path: Path) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
    return out


def project_files() -> list[tuple[Path, str]]:
    return [(path, module_name(path)) for path in python_files(("rag", "rag_debugger"))]


def upward_imports(files: list[tuple[Path, str]] | None = None) -> list[str]:
    found = []
    for path, module in files if files is not None else project_files():
        here = layer_of(module)
        for line, target in imported_modules(path):
            there = layer_of(target)
            if here is not None and there is not None and there > here:
                found.append(f"{path.name}:{line} ({LAYERS[here][0]}) imports {target} ({LAYERS[there][0]})")
    return found


def test_no_module_imports_a_layer_above_its_own():
    assert upward_imports() == []


def test_the_layer_table_places_modules_as_documented():
    assert layer_of("rag.rules.fast_path") < layer_of("rag.graph.nodes") < layer_of("rag.api")
    assert layer_of("rag.runs.history") < layer_of("rag.playground.ab_fork") < layer_of("rag_debugger.workbench.session")
    assert layer_of("rag.ingest.embedders") == layer_of("rag.ingest.store")
    assert layer_of("langgraph.graph") is None and layer_of("ragged") is None
    assert layer_of("rag_debugger.debugger.session") < layer_of("rag.runs.history") < layer_of("rag_debugger.workbench.session") \
        < layer_of("rag_debugger.views.inspector_html") < layer_of("rag_debugger.exports.compare_file") \
        < layer_of("rag_debugger.ui.graph_page") == layer_of("rag_debugger.run_to_html")


def test_the_checker_catches_upward_imports_even_inside_functions(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import json\nfrom rag.schemas import Chunk\n\ndef late():\n    from rag.api import run_rag_graph\n",
                     encoding="utf-8")
    assert upward_imports([(probe, "rag.rules.probe")]) == ["probe.py:5 (rules) imports rag.api (api)"]
    assert upward_imports([(probe, "rag.runs.probe")]) == []
