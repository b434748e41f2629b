"""Find a graph by its import path (`package.module:attr`), the way ASGI servers find an app.

`attr` may be a compiled graph, a functional-API workflow (`@entrypoint`, a `Pregel` with no builder), a
`StateGraph` builder (compiled here, with an in-memory checkpointer when `checkpointer=True`, because
stepping needs one), or a factory that returns one of them: with no arguments, or with only `config`
(a LangGraph server's factory; it gets an empty config), sync or async. Every failure is a
`GraphLoadError` whose message says what was found and what was expected, so a command line or a page
can show it as is.
"""
from __future__ import annotations

import importlib
import inspect
import json
from typing import Any

from rag_debugger.debugger.errors import DebuggerUserError, GraphLoadError
from rag_debugger.debugger.i18n import _


def _is_compiled(obj: Any) -> bool:
    """A graph that runs here: a compiled `StateGraph`, or any `Pregel` (an `@entrypoint` workflow has no
    builder). Not a `RemoteGraph`: it has the same methods but runs on another host, and the page makes no
    request to any host but its own."""
    from langgraph.pregel import Pregel

    return isinstance(obj, Pregel)


def _is_builder(obj: Any) -> bool:
    return hasattr(obj, "compile") and hasattr(obj, "add_node") and hasattr(obj, "branches")


def malformed(spec: str) -> GraphLoadError:
    return GraphLoadError(_("expected 'package.module:attr', got {spec}").format(spec=repr(spec)))


def resolve(spec: str) -> Any:
    """The object named by `module:attr` (attr may be dotted), without calling or compiling it."""
    module_name, sep, attr = (spec or "").strip().partition(":")
    if not sep or not module_name or not attr:
        raise malformed(spec)
    try:
        obj: Any = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - any import failure is the user's to fix
        raise GraphLoadError(_("could not import {module}: {error}").format(
            module=repr(module_name), error=f"{type(exc).__name__}: {exc}")) from exc
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise GraphLoadError(_("{module} has no attribute {attr}").format(module=repr(module_name), attr=repr(attr)))
        obj = getattr(obj, part)
    return obj


def defines(spec: str, obj: Any) -> bool:
    """True when `obj`, named by `spec`, is a plain function its module defines at top level: the only kind
    of object a name typed in a browser may call. Not a class (its `__init__` runs), not a method or a
    callable instance (`Admin.reset_all`, whose `__module__` is the module too), not an import (`os.abort`)."""
    module, _sep, attr = (spec or "").strip().partition(":")
    return (inspect.isfunction(obj) and getattr(obj, "__module__", None) == module and "." not in attr
            and "." not in str(getattr(obj, "__qualname__", ".")))  # top level: `graph = make_graph` counts


def load_graph(spec: str, *, checkpointer: bool = True, call_factory: bool = True) -> Any:
    """A compiled graph from `module:attr`. A builder is compiled (with an `InMemorySaver` when
    `checkpointer`); a factory is called once with no arguments. With `call_factory` False (a name typed
    in a browser that the operator did not give: `rag_debugger.debugger.allowlist.operator_named`) only a function
    defined in the named module itself is called, never one it imported (`os.abort`)."""
    obj = resolve(spec)
    if callable(obj) and not _is_compiled(obj) and not _is_builder(obj) and not (call_factory or defines(spec, obj)):
        raise GraphLoadError(_("{spec} is not a function the module defines (a class, a method, an object or a "
                               "function it imported): it is not called (only a graph the operator named may be "
                               "such a factory)").format(spec=spec))
    if callable(obj) and not _is_compiled(obj) and not _is_builder(obj):
        try:
            params = [p for p in inspect.signature(obj).parameters.values()
                      if p.default is inspect.Parameter.empty
                      and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        except (TypeError, ValueError):
            params = []
        # a LangGraph server's graph factory may take the run's config: it gets an empty one
        takes_config = [p.name for p in params] == ["config"]
        if params and not takes_config:
            raise GraphLoadError(_("{spec} is a function that needs arguments ({names}); point at a compiled graph, "
                                   "a StateGraph, or a zero-argument factory").format(
                spec=spec, names=", ".join(p.name for p in params)))
        try:
            obj = obj({"configurable": {}}) if takes_config else obj()
            if inspect.iscoroutine(obj):  # an async factory, as `langgraph.json` allows
                import asyncio

                obj = asyncio.run(obj)
        except Exception as exc:  # noqa: BLE001
            raise GraphLoadError(_("{spec}() raised {error}").format(spec=spec, error=f"{type(exc).__name__}: {exc}")) from exc
    if _is_builder(obj):
        saver = None
        if checkpointer:
            from langgraph.checkpoint.memory import InMemorySaver

            saver = InMemorySaver()
        try:
            return obj.compile(checkpointer=saver)
        except Exception as exc:  # noqa: BLE001 - LangGraph's own validation message is the useful part
            raise GraphLoadError(_("{spec} did not compile: {error}").format(spec=spec, error=exc)) from exc
    if _is_compiled(obj):
        return obj
    raise GraphLoadError(_("{spec} is a {type}; expected a compiled graph, a StateGraph or a zero-argument factory "
                           "returning one").format(spec=spec, type=type(obj).__name__))


def with_checkpointer(graph: Any) -> Any:
    """The graph, with an in-memory checkpointer when it was compiled without one: stepping and
    `interrupt()` need one. A copy: the user's object is left as it was."""
    if getattr(graph, "checkpointer", None) not in (None, False):
        return graph
    from langgraph.checkpoint.memory import InMemorySaver

    return graph.copy(update={"checkpointer": InMemorySaver()})


def _own_dataclass(spec: str, obj: Any) -> bool:
    """A dataclass the module defines at top level: the usual runtime context, whose `__init__` is generated."""
    import dataclasses

    module, _sep, attr = (spec or "").strip().partition(":")
    return (inspect.isclass(obj) and dataclasses.is_dataclass(obj) and obj.__module__ == module
            and obj.__qualname__ == attr)


def load_context(spec: str, *, trusted: bool = True) -> Any:
    """The runtime context named by `module:attr`: a class or function is called with no
    arguments, anything else is used as it is. Not `trusted` (typed in a browser): only a function or a
    dataclass defined at the top of that module is called, never one it imported, a method or another class."""
    obj = resolve(spec)
    if (inspect.isclass(obj) or inspect.isfunction(obj)) and (trusted or defines(spec, obj) or _own_dataclass(spec, obj)):
        try:
            return obj()
        except Exception as exc:  # noqa: BLE001 - the user's code: say what happened
            raise DebuggerUserError(_("{spec}() raised {error}").format(spec=spec, error=f"{type(exc).__name__}: {exc}")) from exc
    return obj


def load_saved_input(path: str) -> Any:
    """A saved input (`--input file.json`): any JSON value, as the graph takes it (an object for a state
    of fields; a list, a number or a string for a graph whose input is one value). Whether it fits the
    graph is the input form's to say (`rag_debugger.debugger.input_form.graph_fields`)."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except OSError as exc:
        raise DebuggerUserError(_("could not read the input file {path}: {error}").format(
            path=repr(path), error=exc.strerror or exc)) from exc
    except json.JSONDecodeError as exc:
        raise DebuggerUserError(_("the input file {path} is not valid JSON: {error} at line {line}").format(
            path=repr(path), error=exc.msg, line=exc.lineno)) from exc
