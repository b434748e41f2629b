"""What the app was started with, for the "Your graph" page:

    streamlit run app.py -- --graph my_pkg.agent:graph [--input input.json] [--context my_pkg.agent:Context]
                            [--checkpointer sqlite:///checkpoints.db] [--checkpointer-writable]
    streamlit run app.py -- --config langgraph.json [--graph name-or-module:attr]

or the same through the environment (`RAG_DEBUG_GRAPH`, `RAG_DEBUG_INPUT`, `RAG_DEBUG_CONTEXT`,
`RAG_DEBUG_CONFIG`, `RAG_DEBUG_CHECKPOINTER`, `RAG_DEBUG_CHECKPOINTER_WRITABLE=1`); the
command line wins. Streamlit hands the script the arguments after `--` as `sys.argv[1:]`. Unknown
arguments are ignored rather than fatal: the app must open even when run under another harness
(AppTest sees pytest's own arguments there).
"""
from __future__ import annotations

import argparse
import functools
import os
import sys
from typing import TYPE_CHECKING, Mapping, NamedTuple, Optional, Sequence

if TYPE_CHECKING:
    from rag_debugger.debugger.project_config import Project


class LaunchOptions(NamedTuple):
    graph: Optional[str] = None
    input: Optional[str] = None
    context: Optional[str] = None
    checkpointer: Optional[str] = None
    """The URL of the user's own checkpointer, whose threads the page lists (read-only unless writable)."""
    checkpointer_writable: bool = False
    config: Optional[str] = None
    """A LangGraph project's `langgraph.json`: its graphs are the operator's, to pick from."""
    graphs: tuple[tuple[str, str], ...] = ()
    """The project's graphs as (name, module:attr), in the file's order."""
    config_error: Optional[str] = None
    """Why the `--config` file could not be read (the page says it)."""


def parse_launch(argv: Sequence[str], env: Mapping[str, str]) -> LaunchOptions:
    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    parser.add_argument("--graph")
    parser.add_argument("--input")
    parser.add_argument("--context")
    parser.add_argument("--checkpointer")
    parser.add_argument("--checkpointer-writable", action="store_true")
    parser.add_argument("--config")
    known, _ = parser.parse_known_args(list(argv))

    def pick(flag: Optional[str], name: str) -> Optional[str]:
        value = flag if flag is not None else env.get(name)
        return value.strip() if value and value.strip() else None

    return LaunchOptions(graph=pick(known.graph, "RAG_DEBUG_GRAPH"), input=pick(known.input, "RAG_DEBUG_INPUT"),
                         context=pick(known.context, "RAG_DEBUG_CONTEXT"),
                         checkpointer=pick(known.checkpointer, "RAG_DEBUG_CHECKPOINTER"),
                         config=pick(known.config, "RAG_DEBUG_CONFIG"),
                         checkpointer_writable=known.checkpointer_writable
                         or (env.get("RAG_DEBUG_CHECKPOINTER_WRITABLE") or "").strip().lower() in ("1", "true", "yes"))


@functools.lru_cache(maxsize=4)
def _project(path: str) -> Project:
    """The project, read and applied once per process (its folders importable, its env set)."""
    from rag_debugger.debugger.project_config import apply_project, read_project  # only with --config: not on every start

    project = read_project(path)
    apply_project(project)
    return project


def with_project(opts: LaunchOptions) -> LaunchOptions:
    """The options with the `--config` project's graphs; `--graph` may name one of them by its name, and
    without `--graph` the first one opens."""
    if not opts.config:
        return opts
    from rag_debugger.debugger.errors import DebuggerUserError

    try:
        project = _project(os.path.abspath(opts.config))
    except DebuggerUserError as exc:
        return opts._replace(config_error=str(exc))
    graphs = tuple(project.graphs.items())
    graph = project.graphs.get(opts.graph or "", opts.graph) or graphs[0][1]
    return opts._replace(graphs=graphs, graph=graph)


def launch_options() -> LaunchOptions:
    """This process's launch options (`sys.argv` after the script, then the environment)."""
    return with_project(parse_launch(sys.argv[1:], os.environ))
