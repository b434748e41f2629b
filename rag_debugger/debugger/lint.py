"""Graph lint: the mistakes in a LangGraph graph that compile fine and then surprise you at run time
or in the drawing.

    python -m rag_debugger.debugger.lint package.module:graph

Checks, each naming the node and saying how to fix it:
- `unreachable`: a node no edge reaches from START;
- `no-way-to-end`: a node from which END cannot be reached (a loop with no exit);
- `undeclared-targets`: a conditional edge whose router declares neither a `path_map` nor a
  `Literal[...]` return type. LangGraph then assumes it may go anywhere: the drawing shows it going
  only to END and the nodes it reaches lose their edges;
- `send-target-unknown`: a router that returns `Send("name", ...)` for a name that is not a node;
- `unwritten-key`: a state key that is not part of the input and that no node writes.

The graph is read, never run. Targets of `Send` and the keys a node writes are read from the
functions' source (string literals in `Send(...)`, the keys of returned dict literals), so those two
checks speak only when the source is readable and say nothing rather than guess otherwise.
"""
from __future__ import annotations

import argparse
import ast
import inspect
import sys
import textwrap
from typing import Any, Iterable, Literal, Optional

from pydantic import BaseModel

from rag_debugger.debugger.terminal import one_line

START = "__start__"
END = "__end__"

Code = Literal["unreachable", "no-way-to-end", "undeclared-targets", "send-target-unknown", "unwritten-key"]


class Finding(BaseModel):
    code: Code
    node: str
    """The node (or, for `unwritten-key`, the state key) the finding is about."""
    message: str
    fix: str

    def __str__(self) -> str:
        return f"{self.code} [{self.node}]: {self.message} Fix: {self.fix}"


# ----- reading the builder ---------------------------------------------------------------------

def _builder(graph: Any) -> Any:
    """The `StateGraph` behind a compiled graph (or the builder itself)."""
    return getattr(graph, "builder", graph)


def _func(runnable: Any) -> Optional[Any]:
    """The Python function behind a node or router runnable, when there is one."""
    for attr in ("func", "afunc"):
        fn = getattr(runnable, attr, None)
        if callable(fn):
            return fn
    return runnable if inspect.isfunction(runnable) else None


def _source_tree(fn: Any) -> Optional[ast.AST]:
    """The function's syntax tree, or None when its source cannot be read. SystemError: CPython 3.11's
    AST constructor keeps its recursion depth per interpreter, so a parse that overlaps another thread's
    (LangChain reads node sources the same way while graphs compile) can fail spuriously; the check
    then skips that function rather than failing the page."""
    try:
        return ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError, SystemError):
        return None


def _targets(builder: Any) -> tuple[dict[str, set[str]], list[tuple[str, str]]]:
    """(declared successors of each node incl. START, undeclared branches as (source, router))."""
    succ: dict[str, set[str]] = {}
    undeclared: list[tuple[str, str]] = []
    for src, dst in getattr(builder, "edges", set()):
        succ.setdefault(src, set()).add(dst)
    for edge in getattr(builder, "waiting_edges", set()) or ():
        dsts, dst = edge[-2], edge[-1]  # (starts, end); older releases put a name first
        for s in dsts if isinstance(dsts, (tuple, list, set, frozenset)) else (dsts,):
            succ.setdefault(s, set()).add(dst)
    for src, branches in getattr(builder, "branches", {}).items():
        for name, spec in branches.items():
            if spec.ends is None:
                undeclared.append((src, name))
            else:
                succ.setdefault(src, set()).update(spec.ends.values())
    for name, spec in getattr(builder, "nodes", {}).items():
        ends = getattr(spec, "ends", None)
        if ends:
            succ.setdefault(name, set()).update(ends if not isinstance(ends, dict) else ends.keys())
        handler = getattr(spec, "error_handler_node", None)
        if handler:  # a node that fails goes on in its error handler
            succ.setdefault(name, set()).add(handler)
    for name in getattr(builder, "nodes", {}):
        if not succ.get(name):  # a node with nowhere declared to go ends the run there, as LangGraph does
            succ.setdefault(name, set()).add(END)
    return succ, undeclared


def _reach(start: str, succ: dict[str, set[str]]) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for nxt in succ.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _send_targets(fn: Any) -> Optional[set[str]]:
    """Literal node names in `Send("name", ...)` calls inside a router, or None when unreadable."""
    tree = _source_tree(fn) if fn is not None else None
    if tree is None:
        return None
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if callee == "Send" and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str):
                out.add(node.args[0].value)
    return out


def _dict_keys(node: ast.AST) -> Optional[set[str]]:
    if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str)
                                          for k in node.keys if k is not None) and None not in node.keys:
        return {k.value for k in node.keys}  # type: ignore[union-attr]
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "dict" and not node.args:
        return {kw.arg for kw in node.keywords if kw.arg}
    return None


def _written_keys(fn: Any) -> Optional[set[str]]:
    """Keys of the dict literals a node returns (directly or as `Command(update=...)`); None when any
    return is not such a literal, so the caller knows it cannot tell."""
    tree = _source_tree(fn) if fn is not None else None
    if tree is None:
        return None
    keys: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Return):
            value = node.value
            if value is None or (isinstance(value, ast.Constant) and value.value is None):
                continue
            if isinstance(value, ast.Call) and getattr(value.func, "id", getattr(value.func, "attr", None)) == "Command":
                update = next((kw.value for kw in value.keywords if kw.arg == "update"), None)
                if update is None:
                    continue
                value = update
            found = _dict_keys(value)
            if found is None:
                return None
            keys |= found
    return keys


def _commands_undeclared(builder: Any) -> bool:
    """A node may route with `Command(goto=...)` without declaring where (no `destinations=`, no
    `Command[Literal[...]]` return type): LangGraph then knows its targets only at run time, so neither
    can lint. Read from the source; a node whose source cannot be read is assumed not to."""
    for spec in getattr(builder, "nodes", {}).values():
        if getattr(spec, "ends", None):
            continue
        tree = _source_tree(_func(getattr(spec, "runnable", None)))
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and \
                    getattr(node.func, "id", getattr(node.func, "attr", None)) == "Command" and \
                    any(kw.arg == "goto" for kw in node.keywords):
                return True
    return False


def _schema_keys(schema: Any) -> set[str]:
    fields = getattr(schema, "model_fields", None)
    if fields is not None:
        return set(fields)
    try:
        from typing import get_type_hints

        return set(get_type_hints(schema, include_extras=True))
    except Exception:  # noqa: BLE001 - an exotic schema: no keys to check
        return set(getattr(schema, "__annotations__", {}) or {})


# ----- the checks -------------------------------------------------------------------------------

def lint_graph(graph: Any) -> list[Finding]:
    """All findings for a compiled graph or a `StateGraph` builder, in a stable order."""
    builder = _builder(graph)
    if not hasattr(builder, "branches") or not hasattr(builder, "state_schema"):
        return []  # an `@entrypoint` workflow (a Pregel with no builder): its control flow is Python code
    nodes = list(getattr(builder, "nodes", {}))
    succ, undeclared = _targets(builder)
    findings: list[Finding] = []

    for src, router in undeclared:
        findings.append(Finding(
            code="undeclared-targets", node=src,
            message=f"the conditional edge from {src!r} (router {router!r}) declares no targets, so LangGraph "
                    "draws it going only to END and the nodes it reaches appear disconnected.",
            fix=f"give {router}() a Literal[...] return type naming its targets, or pass a path_map "
                f"(a list of node names) to add_conditional_edges({src!r}, {router}, [...]).",
        ))

    for src, branches in getattr(builder, "branches", {}).items():
        for name, spec in branches.items():
            targets = _send_targets(_func(spec.path))
            for target in sorted((targets or set()) - set(nodes)):
                findings.append(Finding(
                    code="send-target-unknown", node=src,
                    message=f"router {name!r} sends to {target!r}, which is not a node of this graph.",
                    fix=f"add a node named {target!r} or send to one of: {', '.join(nodes)}.",
                ))

    if not undeclared and not _commands_undeclared(builder):  # anything may be reachable: say nothing
        reachable = _reach(START, succ)
        for node in nodes:
            if node not in reachable and not getattr(builder.nodes[node], "is_error_handler", False):
                findings.append(Finding(
                    code="unreachable", node=node,
                    message=f"no edge from START reaches {node!r}; it never runs.",
                    fix=f"add an edge or a conditional target to {node!r}, or remove the node.",
                ))
        reverse: dict[str, set[str]] = {}
        for src, dsts in succ.items():
            for dst in dsts:
                reverse.setdefault(dst, set()).add(src)
        reaches_end = _reach(END, reverse)
        for node in nodes:
            if node in reachable and node not in reaches_end:
                findings.append(Finding(
                    code="no-way-to-end", node=node,
                    message=f"once {node!r} runs, no path leads to END: the run loops until the recursion limit.",
                    fix=f"add an edge from {node!r} (or a node after it) to END, or a conditional exit.",
                ))

    written: set[str] = set()
    readable = True
    for spec in getattr(builder, "nodes", {}).values():
        keys = _written_keys(_func(getattr(spec, "runnable", None)))
        if keys is None:
            readable = False
            break
        written |= keys
    if readable:
        inputs = _schema_keys(getattr(builder, "input_schema", None) or builder.state_schema)
        for key in sorted(_schema_keys(builder.state_schema) - inputs - written):
            findings.append(Finding(
                code="unwritten-key", node=key,
                message=f"state key {key!r} is not part of the input and no node writes it; it is always empty.",
                fix=f"return {key!r} from the node that computes it, or remove it from the state schema.",
            ))
    return findings


def format_findings(findings: Iterable[Finding]) -> str:
    """One line a finding, each line terminal-safe: node names, routers and state keys are the graph's own
    text, and a name holding ESC or CR could restyle the terminal or overwrite a finding."""
    items = list(findings)
    if not items:
        return "no findings: the graph lints clean"
    return "\n".join(one_line(f) for f in items)


def main(argv: Optional[list[str]] = None) -> int:
    """Exit 0 when clean, 1 with findings, 2 when the graph could not be loaded."""
    from rag_debugger.debugger.errors import GraphLoadError
    from rag_debugger.debugger.loading import load_graph

    parser = argparse.ArgumentParser(prog="python -m rag_debugger.debugger.lint", description=__doc__.splitlines()[0])
    parser.add_argument("graph", help="package.module:attr (a compiled graph, a StateGraph, or a factory)")
    args = parser.parse_args(argv)
    try:
        graph = load_graph(args.graph, checkpointer=False)
    except GraphLoadError as exc:
        print(one_line(f"error: {exc}"), file=sys.stderr)
        return 2
    findings = lint_graph(graph)
    print(format_findings(findings))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
