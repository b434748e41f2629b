"""The allow-list for graphs named in a browser: decided on the text alone, before any import."""
from __future__ import annotations

import pytest

from rag_debugger.debugger.allowlist import GraphPolicy, allowed, well_formed

POLICY = GraphPolicy.from_text("my_pkg.agent:graph", ["rag_debugger.examples.chain", "rag_debugger.examples.fanout"],
                               "team_graphs.*:graph, other.mod:build")


@pytest.mark.parametrize("spec, ok", [
    ("my_pkg.agent:graph", True),            # named at launch
    ("my_pkg.agent:other_graph", True),      # another attribute of the launch module
    ("my_pkg.agent.sub:graph", False),       # another module, even below it
    ("my_pkg:graph", False),
    ("rag_debugger.examples.chain:graph", True),          # bundled examples
    ("rag_debugger.examples.fanout:anything", True),
    ("rag_debugger.examples.missing:graph", False),
    ("team_graphs.sales:graph", True),       # RAG_DEBUG_GRAPHS patterns
    ("team_graphs.sales.deep:graph", True),  # fnmatch's * crosses dots
    ("team_graphs.sales:factory", False),
    ("other.mod:build", True),
    ("this:s", False),                       # the attacks of the review
    ("os:abort", False),
    ("os.path:join", False),
    ("builtins:exit", False),
    ("subprocess:run", False),
    ("", False), ("graph", False), (":graph", False), ("my_pkg.agent:", False),
    (".relative:graph", False), ("my_pkg.agent:graph extra", False), ("../evil:graph", False),
    ("my_pkg.agent:__builtins__", False),    # no dunder, no path through what the module imported
    ("rag_debugger.examples.fanout:os.abort", False),
    ("rag_debugger.examples.fanout:_private", False),
])
def test_only_listed_graphs_may_be_loaded(spec, ok):
    assert allowed(spec, POLICY) is ok


def test_no_policy_allows_nothing_but_well_formed_names_are_still_told_apart():
    empty = GraphPolicy()
    assert not allowed("rag_debugger.examples.chain:graph", empty)
    assert well_formed("a.b:c") and not well_formed("a b:c") and not well_formed("a:b;c")


@pytest.mark.parametrize("spec, called", [
    ("my_pkg.agent:graph", True), ("team_graphs.sales:graph", False), ("other.mod:build", False),
    ("my_pkg.agent:make", False), ("rag_debugger.examples.chain:graph", False),
])
def test_only_a_name_the_operator_gave_may_be_a_factory_that_is_called(spec, called):
    from rag_debugger.debugger.allowlist import operator_named

    assert operator_named(spec, POLICY) is called


def test_a_function_a_module_imported_is_never_called(tmp_path, monkeypatch):
    """`from os import abort` in an allowed module: naming it loads nothing and calls nothing."""
    from rag_debugger.debugger.errors import GraphLoadError
    from rag_debugger.debugger.loading import load_graph

    (tmp_path / "yg_attack_mod.py").write_text("from os import abort\nCALLED = []\n"
                                               "def graph():\n    CALLED.append(1)\n    return 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(GraphLoadError, match="not a function the module defines"):
        load_graph("yg_attack_mod:abort", call_factory=False)  # it would have killed this test process
    with pytest.raises(GraphLoadError, match="is a int"):
        load_graph("yg_attack_mod:graph", call_factory=False)  # defined there: called (and found wanting)
    import yg_attack_mod

    assert yg_attack_mod.CALLED == [1]


@pytest.mark.parametrize("spec", [
    "pkg.agent:Admin.reset_all",        # a pattern like `pkg.agent:*` matched: still one public attribute only
    "team_graphs.sales:graph.invoke",
    "team_graphs.sales:_hidden",
    "team_graphs.sales:__builtins__",
    "team_graphs.x:os.system",
])
def test_a_pattern_never_lifts_the_one_public_attribute_rule(spec):
    policy = GraphPolicy.from_text("launch.mod:graph", [], "pkg.agent:*, team_graphs.*")
    assert not allowed(spec, policy)


def test_the_launch_name_may_still_be_dotted():
    """The operator typed it: trusted as it is."""
    assert allowed("launch.mod:Factory.graph", GraphPolicy.from_text("launch.mod:Factory.graph", [], ""))


def test_only_a_function_the_module_defines_is_called_whatever_the_pattern(tmp_path, monkeypatch):
    """Hole 8 of the second review: `pkg.agent:Admin.reset_all` ran that method under `pkg.agent:*`."""
    from rag_debugger.debugger.allowlist import GraphPolicy as Policy
    from rag_debugger.debugger.errors import DebuggerUserError, GraphLoadError
    from rag_debugger.debugger.session import GraphSession

    (tmp_path / "yg_admin_mod.py").write_text(
        "CALLED = []\n"
        "class Admin:\n"
        "    @staticmethod\n"
        "    def reset_all():\n        CALLED.append('reset')\n        return 1\n"
        "    def __call__(self):\n        CALLED.append('instance')\n        return 1\n"
        "    def __init__(self):\n        CALLED.append('init')\n"
        "admin = Admin.__new__(Admin)\n"
        "reset = Admin.reset_all\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    policy = Policy.from_text("launch.mod:graph", [], "yg_admin_mod:*")
    with pytest.raises(DebuggerUserError):
        GraphSession.open("yg_admin_mod:Admin.reset_all", policy=policy)
    for name in ("Admin", "admin"):  # a class (its __init__ would run) and a callable instance
        with pytest.raises(GraphLoadError, match="not called"):
            GraphSession.open(f"yg_admin_mod:{name}", policy=policy)
    import yg_admin_mod

    assert yg_admin_mod.CALLED == []
