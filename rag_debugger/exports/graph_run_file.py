"""A Your-graph run of the history as one HTML file (Run history's Download as HTML).

Why the allow-list here too: the file draws the graph, and a run of the history names its graph by
`module:attr` (an imported file can name anything). The graph is loaded only when the allow-list lets the
Your graph page load it (rag_debugger/debugger/allowlist.py, checked on the name before any import); otherwise the
drawing is made from the recording alone (`rag_debugger.debugger.recorded_graph`: the nodes the run went through, in the
order they ran) and the file says why. Either way nothing runs: the recording is replayed.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from rag.i18n import N_, _
from rag_debugger.debugger.allowlist import GraphPolicy, allowed

NOT_ALLOWED = N_("{spec} is not on this server's list of graphs, so it was not imported: the graph drawn here has "
                 "only the nodes this run went through, joined in the order they ran.")
NOT_LOADED = N_("{spec} could not be loaded here, so the graph drawn here has only the nodes this run went "
                "through, joined in the order they ran.")


def shell_policy() -> GraphPolicy:
    """The allow-list outside a browser (`python -m rag_debugger.run_to_html`): the bundled examples, the graph of
    `RAG_DEBUG_GRAPH` and the patterns of `RAG_DEBUG_GRAPHS`, as the Your graph page reads them."""
    import os
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "examples"
    examples = sorted(f"rag_debugger.examples.{p.stem}" for p in folder.glob("*.py") if not p.stem.startswith("_"))
    return GraphPolicy.from_text(os.environ.get("RAG_DEBUG_GRAPH"), examples, os.environ.get("RAG_DEBUG_GRAPHS"))


def graph_run_session(history: Any, run_id: str, policy: GraphPolicy) -> tuple[Any, Optional[Callable[[], str]]]:
    """(the run replayed to its end in a GraphSession, a note for the file or None). Raises UnknownRunError,
    or ValueError when the run is no Your-graph run or kept nothing to replay."""
    from rag.runs.graph_runs import recorded
    from rag_debugger.debugger.recorded_graph import graph_from_steps
    from rag_debugger.debugger.replay import RecordedCheckpoint, ReplayStepper
    from rag_debugger.debugger.session import GraphSession

    info, doc = recorded(history, run_id)
    spec = str(info.graph_spec)
    session, why = None, NOT_ALLOWED
    if allowed(spec, policy):  # decided on the name alone: nothing is imported before this says yes
        try:
            session = GraphSession.open(spec, policy=policy)  # no hooks: replaying records nothing
        except Exception:  # noqa: BLE001 - a module that fails to import: the recording still draws
            session, why = None, NOT_LOADED
    note = None
    # validated once and the raw document let go: the file's memory is a small multiple of the run's
    checkpoints = [RecordedCheckpoint.model_validate(c) for c in doc.pop("checkpoints", None) or []]
    if session is None:
        note = lambda: _(why).format(spec=spec)  # noqa: E731 - said in the language being drawn
        steps = ReplayStepper(checkpoints, head=doc.get("head_checkpoint_id")).all_steps
        session = GraphSession(spec=spec, graph=graph_from_steps(steps))
        del steps
    seg = session.open_recorded(checkpoints, head=doc.get("head_checkpoint_id"),
                                inp=doc.get("input"), run_id=info.run_id, info=info)
    seg.stepper.run_to_end()
    return session, note


def graph_run_report(history: Any, run_id: str, policy: GraphPolicy, *, lang: str = "en",
                     step: Optional[int] = None) -> str:
    """The file of a Your-graph run of `history`, opening after step `step` (0-based; None: the end)."""
    from rag_debugger.exports.run_file import graph_report

    session, note = graph_run_session(history, run_id, policy)
    return graph_report(session, start=step, lang=lang, note=note)
