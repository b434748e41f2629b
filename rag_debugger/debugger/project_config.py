"""A LangGraph project as its `langgraph.json` describes it, so it opens as it is (`--config langgraph.json`).

The file names graphs by file path (`"agent": "./src/agent/graph.py:graph"`), lists local `dependencies`
(folders whose code the graphs import) and an `env` (a `.env` file, or the variables themselves). The
debugger loads graphs by `module:attr` only (the allow-list in rag_debugger/debugger/allowlist.py decides on that text),
so each path becomes the module name it has under the folder it is imported from, and that folder goes on
`sys.path`; the operator named the file, so its graphs are the operator's. Nothing here imports a graph.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Mapping, Optional

from pydantic import BaseModel, ConfigDict

from rag_debugger.debugger.allowlist import SPEC
from rag_debugger.debugger.errors import DebuggerUserError
from rag_debugger.debugger.i18n import _


class Project(BaseModel):
    """`graphs`: name → `module:attr`, in the file's order; `roots`: folders to import from; `env`: the
    variables the project sets (values are never shown or logged)."""

    model_config = ConfigDict(frozen=True)

    path: str
    graphs: dict[str, str]
    roots: tuple[str, ...] = ()
    env: dict[str, str] = {}


def parse_env(text: str) -> dict[str, str]:
    """A `.env` file's variables: `NAME=value` lines, `export ` allowed, quotes taken off, `#` comments."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export "):].strip()
        name, sep, value = line.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier():
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        out[name] = value
    return out


def _graph_path(value: Any) -> Optional[str]:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and isinstance(value.get("path"), str):
        return value["path"]
    return None


def _module_spec(where: str, roots: list[Path], base: Path) -> str:
    """`./src/agent/graph.py:graph` → `agent.graph:graph` under the deepest root holding the file (a module
    path such as `agent.graph:graph` is kept as it is)."""
    target, sep, attr = where.rpartition(":")
    if not sep or not target or not attr:
        raise DebuggerUserError(_("a graph in {file} is {value}; expected ./path/to/file.py:attr").format(
            file="langgraph.json", value=repr(where)))
    if not (target.endswith(".py") or "/" in target or "\\" in target):
        return f"{target}:{attr}"
    file = (base / target).resolve()
    holders = [r for r in roots if r == file.parent or r in file.parents]
    if not holders:
        raise DebuggerUserError(_("{path} is outside the project's folder").format(path=target))
    root = max(holders, key=lambda r: len(r.parts))
    parts = list(file.relative_to(root).with_suffix("").parts)
    spec = ".".join(parts) + ":" + attr
    if SPEC.fullmatch(spec) is None:
        raise DebuggerUserError(_("{path} cannot be imported as a module (each folder and the file name must be a "
                                  "Python name, e.g. my_agent/graph.py)").format(path=target))
    found = _found_elsewhere(parts[0], tuple(str(r) for r in roots))
    if found is not None:  # the project's folders go last on sys.path: what is found now would win
        raise DebuggerUserError(_("{path}: its module {module} is found elsewhere first ({found}), so the "
                                  "project's file would not be imported; rename the project's module or start the "
                                  "app from another folder").format(path=target, module=repr(parts[0]), found=found))
    return spec


def read_project(path: str) -> Project:
    """The project of a `langgraph.json` (DebuggerUserError with a readable message when it is not one)."""
    file = Path(path).expanduser()
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DebuggerUserError(_("could not read {path}: {error}").format(path=repr(path),
                                                                           error=exc.strerror or exc)) from None
    except json.JSONDecodeError as exc:
        raise DebuggerUserError(_("{path} is not valid JSON: {error} at line {line}").format(
            path=repr(path), error=exc.msg, line=exc.lineno)) from None
    if not isinstance(data, dict) or not isinstance(data.get("graphs"), dict) or not data["graphs"]:
        raise DebuggerUserError(_("{path} names no graphs (expected \"graphs\": {{\"name\": "
                                  "\"./file.py:graph\"}})").format(path=repr(path)))
    base = file.resolve().parent
    roots = [base]
    for dep in data.get("dependencies") or ():
        if isinstance(dep, str) and (dep.startswith(".") or dep.startswith("/")):
            folder = (base / dep).resolve()
            if folder.is_dir() and folder not in roots:
                roots.append(folder)
    graphs = {}
    for name, value in data["graphs"].items():
        where = _graph_path(value)
        if where is None:
            raise DebuggerUserError(_("graph {name} in {path} has no path").format(name=repr(name), path=repr(path)))
        graphs[str(name)] = _module_spec(where, roots, base)
    env: dict[str, str] = {}
    if isinstance(data.get("env"), dict):
        env = {str(k): str(v) for k, v in data["env"].items()}
    elif isinstance(data.get("env"), str):
        env_file = base / data["env"]
        try:
            env = parse_env(env_file.read_text(encoding="utf-8"))
        except OSError as exc:
            raise DebuggerUserError(_("could not read the env file {path}: {error}").format(
                path=repr(data["env"]), error=exc.strerror or exc)) from None
    return Project(path=str(file), graphs=graphs, roots=tuple(str(r) for r in roots), env=env)


def apply_project(project: Project, environ: Optional[dict] = None) -> None:
    """Make the project importable (its folders on `sys.path`) and set its variables where the environment
    does not set them already (what the operator exported wins, as with LangGraph's own server)."""
    target = os.environ if environ is None else environ
    for name, value in project.env.items():
        target.setdefault(name, value)
    for root in project.roots:
        if root not in sys.path:
            sys.path.append(root)


def _found_elsewhere(top: str, roots: tuple[str, ...]) -> Optional[str]:
    """Where Python would import the top-level module `top` from, when that is not inside the project (another
    installed package, or a module of the folder the app started in): searched, not imported."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    places = [spec.origin] if spec.origin and spec.origin not in ("built-in", "frozen") else []
    places += list(spec.submodule_search_locations or [])
    if not places:
        return str(spec.origin or top)
    inside = [p for p in places if any(Path(p).resolve().is_relative_to(Path(r)) for r in roots)]
    return None if inside else str(places[0])


__all__ = ["Project", "apply_project", "parse_env", "read_project"]
