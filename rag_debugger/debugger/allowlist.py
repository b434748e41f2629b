"""Which graphs a page may load by name: a rule, decided on the text of `module:attr` alone.

Why before any import: loading `module:attr` imports the module (its top-level code runs) and may call
a zero-argument factory. On a server a team shares, a visitor who can type `this:s` makes the server run
code, and `os:abort` stops it for everyone. So a name typed in a browser is checked against an
allow-list first, and only an allowed one is ever imported: the graph the app was started with (and the
other attributes of its module), the bundled examples, and the patterns the operator lists.
"""
from __future__ import annotations

import re
from fnmatch import fnmatchcase
from typing import Iterable, Optional

from pydantic import BaseModel, ConfigDict

from rag_debugger.debugger.i18n import _

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
SPEC = re.compile(rf"(?P<module>{_IDENT}(?:\.{_IDENT})*):(?P<attr>{_IDENT}(?:\.{_IDENT})*)")
#: What a browser may name in an allowed module: one public attribute (no path through what the module
#: imported, such as `os.abort`, and no dunder such as `__builtins__`).
PUBLIC_ATTR = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


class GraphPolicy(BaseModel):
    """What may be loaded. `launch`: the spec named when the app was started (trusted: the operator typed
    it); `examples`: module names of the bundled examples; `patterns`: `fnmatch` patterns over the whole
    `module:attr` (`my_pkg.*:graph`)."""

    model_config = ConfigDict(frozen=True)

    launch: Optional[str] = None
    examples: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()

    @classmethod
    def from_text(cls, launch: Optional[str], examples: Iterable[str], patterns: Optional[str]) -> "GraphPolicy":
        """`patterns`: the comma-separated list of `RAG_DEBUG_GRAPHS`."""
        listed = tuple(p.strip() for p in (patterns or "").split(",") if p.strip())
        return cls(launch=(launch or "").strip() or None, examples=tuple(examples), patterns=listed)


def well_formed(spec: str) -> bool:
    """`package.module:attr` with identifiers only (no paths, no spaces, no leading dots)."""
    return SPEC.fullmatch((spec or "").strip()) is not None


def allowed(spec: str, policy: GraphPolicy) -> bool:
    """True when `spec` may be imported: decided on its text, nothing is imported here. Apart from the
    exact name the operator started the app with, a name is one public attribute of its module, even when
    an operator's pattern matches it."""
    spec = (spec or "").strip()
    match = SPEC.fullmatch(spec)
    if match is None:
        return False
    if spec == policy.launch:
        return True
    module, attr = match.group("module"), match.group("attr")
    if PUBLIC_ATTR.fullmatch(attr) is None:
        return False  # whatever a pattern says: `pkg.agent:*` must not reach `Admin.reset_all`
    if any(fnmatchcase(spec, pattern) for pattern in policy.patterns):
        return True
    launched = SPEC.fullmatch(policy.launch or "")
    return module in policy.examples or (launched is not None and module == launched.group("module"))


def operator_named(spec: str, policy: GraphPolicy) -> bool:
    """The exact graph the operator started the app with: only it may be any factory the loader calls.
    Every other allowed name is called only when its module defines it (`rag_debugger.debugger.loading.load_graph`),
    so naming something a module imported (`os.abort`), even under a broad pattern, calls nothing."""
    spec = (spec or "").strip()
    return bool(policy.launch) and spec == policy.launch


def refusal(spec: str) -> str:
    """Why a typed name is not loaded, and how an operator allows it."""
    return _("{spec} is not on this server's list of graphs, so it was not loaded (nothing was imported). A page "
             "may load the graph the app was started with (and the other graphs of its module), the bundled "
             "examples (rag_debugger.examples.chain:graph, rag_debugger.examples.fanout:graph, …), and the graphs "
             "the operator lists in "
             "RAG_DEBUG_GRAPHS, e.g. RAG_DEBUG_GRAPHS='my_pkg.*:graph'.").format(spec=repr(spec))
