"""Two RAG runs compared: where they diverged, and why.

The alignment and the first divergence are the generic debugger's (`rag_debugger.debugger.alignment`); this module
adds what a RAG run means: a run is its main thread plus the resumes its HITL answers started, the
`rag_trace` is read key by key, the fields that explain a retrieval come first (`retrieval_mode`
before `docs`: with the dense leg off both change, and the mode is the cause), and the cause is
named in the words of the workflow (a different input, settings or prompt, chunks, grade or route).
"""
from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any, Literal, Mapping, Optional, Sequence

from pydantic import BaseModel, PrivateAttr

from rag.errors import RunImportError, UserFixableError
from rag.i18n import _
from rag.runs.document_limits import load_document, parse_document
from rag.runs.document_replay import replay_from_document
from rag.runs.export import export_run
from rag.runs.run_document import RunDocument
from rag_debugger.debugger.alignment import Comparison, Segment, changed_keys, compare_runs, differing_fields
from rag_debugger.debugger.records import LaneRecord, StepRecord
from rag_debugger.debugger.state_diff import same_value

BUNDLE_FORMAT = "rag-debugger-runs"
"""A file holding one run's documents in order: the main run, then each resume (`rag.runs.record_bundle`)."""

#: Fields that differ between any two runs and say nothing about the workflow.
IGNORED_FIELDS = ("step_group", "step_group_label")
#: The fields that explain a RAG step, most telling first; the others follow in write order.
TELLING_FIELDS = ("question", "hitl_answer", "user_answer", "retrieval_mode", "docs", "retrieved_chunks", "grade",
                  "route", "retrieval_status", "complexity", "sub_questions", "query")
#: Trace keys that only echo a setting or a count (their cause is named by the fields above).
ECHO_TRACE_KEYS = ("retrieval_top_k", "candidate_k", "candidate_k_source", "retrieval_candidate_multiplier",
                   "auto_merge_threshold", "auto_merge_enabled", "rerank_enabled", "rerank_min_score")
SETTINGS_NOT_COMPARED = ("openai_api_key", "rerank_api_key")

Cause = Literal["none", "input", "settings", "prompt", "chunks", "grade_or_route", "other", "different_graphs",
                "graph_input", "edited", "path", "value"]
"""The last four are said of runs of a graph of your own (no RAG fields): a different input, a what-if
fork's edited field, a step only one run has, a node that wrote a different value."""


class CompareError(UserFixableError):
    """A side that cannot be compared: unknown run id, a corrupt export, a run still in progress."""


class RunSide(BaseModel):
    """One run to compare, as its export documents (main run first, then resumes)."""

    ref: str
    documents: list[RunDocument]
    _segments: Optional[list[Segment]] = PrivateAttr(default=None)

    @property
    def main(self) -> RunDocument:
        return self.documents[0]

    @property
    def last(self) -> RunDocument:
        return self.documents[-1]

    def segments(self) -> list[Segment]:
        """The documents as replayed segments (built once: a replay parses every checkpoint)."""
        if self._segments is None:
            self._segments = [Segment(label=doc.graph, steps=replay_from_document(doc).all_steps)
                              for doc in self.documents]
        return self._segments


class ChunkChange(BaseModel):
    chunk_id: str
    filename: str = ""
    change: Literal["added", "removed", "moved_up", "moved_down", "same"]
    rank_a: Optional[int] = None
    rank_b: Optional[int] = None
    score_a: Optional[float] = None
    score_b: Optional[float] = None


class RunComparison(BaseModel):
    a: str
    b: str
    comparison: Comparison
    cause: Cause
    settings: list[tuple[str, Any, Any]]
    prompt_versions: tuple[Optional[str], Optional[str]]
    prompt_diffs: dict[str, str]
    route: tuple[Optional[str], Optional[str]]
    answer_same: bool
    answered: bool = True
    """Both runs recorded an answer; otherwise `answer_same` compares the evidence handed to the answerer."""
    graphs: tuple[str, str]
    generic: bool = False
    """A run of a graph of your own is one of the two: the cause is said in generic terms, the outcome is
    the final state (`final_fields`), and no RAG view is drawn."""
    final_fields: tuple[str, ...] = ()
    """Generic runs: the fields whose final values differ."""
    edit: Optional[tuple[int, str]] = None
    """Generic runs: (step, field) of the what-if fork's edit that explains the divergence, when one does."""

    @property
    def same_outcome(self) -> bool:
        return self.route[0] == self.route[1] and self.answer_same


# ----------------------------------------------------------------------------------------------
# loading
# ----------------------------------------------------------------------------------------------

def read_run_documents(path: Path) -> list[Any]:
    """The raw run documents a file holds: one export, or a bundle of them (`rag.runs.record_bundle`), in order.
    Not yet checked as exports; a file that is not JSON text says so."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise CompareError(_("{ref}: the file is not UTF-8 text; is it a run export?").format(ref=path)) from None
    except FileNotFoundError:
        raise CompareError(_("{ref}: no such file").format(ref=path)) from None
    except OSError as exc:
        raise CompareError(_("{ref}: cannot read it ({error})").format(ref=path, error=exc.strerror or exc)) from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise CompareError(_("{ref}: the JSON nests too deeply to be a run export").format(ref=path)) from None
    except ValueError as exc:
        raise CompareError(_("{ref}: not valid JSON ({error})").format(ref=path, error=exc)) from None
    raw = data.get("runs") if isinstance(data, Mapping) and data.get("format") == BUNDLE_FORMAT else [data]
    if not isinstance(raw, list) or not raw:
        raise CompareError(_("{ref}: the file holds no run").format(ref=path))
    return raw


def side_from_file(path: Path) -> RunSide:
    return RunSide(ref=str(path), documents=[_document(item, str(path)) for item in read_run_documents(path)])


def _document(item: Any, ref: str) -> RunDocument:
    try:
        return parse_document(load_document(item))
    except RunImportError as exc:
        raise CompareError(f"{ref}: {exc}") from None


def side_from_history(history: Any, run_id: str) -> RunSide:
    """A run of the history; a resume comes after the runs it resumed (as the debugger's timeline
    shows it), so two answers to one HITL question align on their shared main run. A what-if fork is
    one document already: its thread holds its parent's steps up to the edit."""
    if not history.has_run(run_id):
        raise CompareError(_("{ref}: no run with this id in the history").format(ref=run_id))
    info = history.get_run(run_id)
    if info.status == "running":
        raise CompareError(_("{ref}: the run is still in progress; compare it when it has finished").format(ref=run_id))
    ids = [run_id]
    while info.kind == "resume" and info.parent_run_id and info.parent_run_id not in ids \
            and history.has_run(info.parent_run_id):
        info = history.get_run(info.parent_run_id)
        ids.insert(0, info.run_id)
    docs = []
    for rid in ids:
        try:
            docs.append(parse_document(export_run(history, rid)))
        except RunImportError as exc:
            raise CompareError(f"{rid}: {exc}") from None
    return RunSide(ref=run_id, documents=docs)


def load_side(ref: str, history: Any = None) -> RunSide:
    """A file path (an export or a bundle), else a run id of `history`."""
    path = Path(ref)
    if path.suffix.lower() == ".json" or path.exists():
        if not path.exists():
            raise CompareError(_("{ref}: no such file").format(ref=ref))
        return side_from_file(path)
    if history is None:
        raise CompareError(_("{ref}: not a file, and no run history is configured to look the id up").format(ref=ref))
    return side_from_history(history, ref)


# ----------------------------------------------------------------------------------------------
# reading the RAG state
# ----------------------------------------------------------------------------------------------

def lane_key(lane: LaneRecord) -> str:
    """A `Send` lane is the sub-question it answered (its writes carry it in `sub_results`)."""
    writes = lane.writes or {}
    for item in writes.get("sub_results") or ():
        if isinstance(item, Mapping) and item.get("question"):
            return str(item["question"])
    return str(writes.get("question") or lane.node)


def refine(a: StepRecord, b: StepRecord, fields: tuple[str, ...]) -> tuple[str, ...]:
    """Open `rag_trace` key by key (its echoes of settings left out) and put the telling fields first."""
    out = [f for f in fields if f != "rag_trace"]
    if "rag_trace" in fields:
        ta, tb = a.values_after.get("rag_trace") or {}, b.values_after.get("rag_trace") or {}
        if isinstance(ta, Mapping) and isinstance(tb, Mapping):
            own = set(changed_keys(a.values_before.get("rag_trace") or {}, ta)) | set(
                changed_keys(b.values_before.get("rag_trace") or {}, tb))
            out += [k for k in differing_fields(ta, tb, ignore=ECHO_TRACE_KEYS) if k not in out and k in own]
        else:
            out.append("rag_trace")
    rank = {name: i for i, name in enumerate(TELLING_FIELDS)}
    return tuple(sorted(out, key=lambda f: (rank.get(f, len(rank)), out.index(f))))


def chunk_changes(docs_a: Sequence[Mapping], docs_b: Sequence[Mapping]) -> list[ChunkChange]:
    """The retrieved chunks as a set change with rank shifts (1 = first) and score changes."""
    def index(docs: Sequence[Mapping]) -> dict[str, tuple[int, Mapping]]:
        out: dict[str, tuple[int, Mapping]] = {}
        for rank, doc in enumerate(docs or (), start=1):
            if isinstance(doc, Mapping):
                out.setdefault(str(doc.get("chunk_id") or doc.get("text", "")[:80]), (rank, doc))
        return out

    ia, ib = index(docs_a), index(docs_b)
    changes = []
    for cid in [*ia, *(k for k in ib if k not in ia)]:
        ra, da = ia.get(cid, (None, {}))
        rb, db = ib.get(cid, (None, {}))
        if ra is None:
            kind = "added"
        elif rb is None:
            kind = "removed"
        else:
            kind = "same" if ra == rb else ("moved_up" if rb < ra else "moved_down")
        doc = da or db
        changes.append(ChunkChange(chunk_id=cid, filename=str(doc.get("filename") or ""), change=kind, rank_a=ra,
                                   rank_b=rb, score_a=_score(da), score_b=_score(db)))
    return changes


def _score(doc: Mapping) -> Optional[float]:
    value = doc.get("score") if doc else None
    return float(value) if isinstance(value, (int, float)) else None


def prompt_version_name(version: Optional[str]) -> str:
    """How a run's prompt version is shown and compared: no version recorded is the built-in `default`, so
    one run never reads `null` beside another's `default` for the same prompts."""
    return str(version) if version else "default"


def settings_diff(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[tuple[str, Any, Any]]:
    keys = sorted((set(a) | set(b)) - set(SETTINGS_NOT_COMPARED))

    def shown(settings: Mapping[str, Any], key: str) -> Any:
        return prompt_version_name(settings.get(key)) if key == "prompt_version" else settings.get(key)

    return [(k, shown(a, k), shown(b, k)) for k in keys if not same_value(shown(a, k), shown(b, k))]


def prompt_diffs(a: Optional[Mapping[str, str]], b: Optional[Mapping[str, str]]) -> dict[str, str]:
    """Per role, the unified diff of the rendered prompt texts that differ."""
    out = {}
    for role in sorted(set(a or {}) | set(b or {})):
        ta, tb = (a or {}).get(role) or "", (b or {}).get(role) or ""
        if ta != tb:
            out[role] = "".join(difflib.unified_diff(ta.splitlines(True), tb.splitlines(True), "a", "b"))
    return out


def _final(side: RunSide) -> Mapping[str, Any]:
    return side.last.result or {}


def classify(comparison: Comparison, settings: Sequence, prompts_differ: bool) -> Cause:
    first = comparison.first
    if first is None:
        return "none"
    if first.from_input:
        return "input"
    if first.field in ("docs", "retrieved_chunks", "retrieval_mode", "context", "retrieval_candidates",
                       "initial_retrieved_chunks", "recall_count"):
        return "chunks"
    if first.field in ("grade", "route", "retrieval_status", "evidence_reason", "evidence_relevance",
                       "evidence_answerability", "evidence_confidence"):
        return "grade_or_route"
    if prompts_differ:
        return "prompt"
    if settings:
        return "settings"
    return "other"


def graph_name(doc: RunDocument) -> str:
    """What a document ran: `main` / `resume` for the RAG workflow, a Your-graph run's `module:attr`."""
    return (doc.run.graph_spec or doc.graph) if doc.graph == "graph" else doc.graph


def classify_generic(first: Any, graphs_differ: bool, edits: Sequence[tuple[int, str]]) -> tuple[Cause, Any]:
    """The cause of a divergence between runs of a graph of your own, in generic terms (pure: a table
    test). `first`: the `Divergence` (None: the runs agree); `edits`: (step, field) of each side's
    what-if fork edit (applied after that step). Returns the cause and the edit that explains it."""
    if first is None:
        return "none", None
    if graphs_differ:
        return "different_graphs", None
    if first.from_input:
        return "graph_input", None
    before = [e for e in edits if e[0] < first.step]
    if before:
        return "edited", before[0]
    if first.kind in ("only_a", "only_b"):
        return "path", None
    return "value", None


def _final_values(side: RunSide) -> Mapping[str, Any]:
    for seg in reversed(side.segments()):
        if seg.steps:
            return seg.steps[-1].values_after
    return {}


def _compare_generic(a: RunSide, b: RunSide, comparison: Comparison) -> RunComparison:
    graphs = ("+".join(graph_name(d) for d in a.documents), "+".join(graph_name(d) for d in b.documents))
    edits = [(d.run.fork.step, d.run.fork.field) for side in (a, b) for d in side.documents if d.run.fork]
    cause, edit = classify_generic(comparison.first, graphs[0] != graphs[1], edits)
    final = differing_fields(_final_values(a), _final_values(b), ignore=IGNORED_FIELDS)
    return RunComparison(a=a.ref, b=b.ref, comparison=comparison, cause=cause, settings=[],
                         prompt_versions=(None, None), prompt_diffs={}, route=(None, None), answer_same=not final,
                         answered=False, graphs=graphs, generic=True, final_fields=final, edit=edit)


def compare_sides(a: RunSide, b: RunSide) -> RunComparison:
    """Two runs compared. A run of a graph of your own on either side: the alignment and the per-step
    state diff, said in generic terms (`classify_generic`), the outcome being the final state."""
    if any(d.graph == "graph" for d in (*a.documents, *b.documents)):
        return _compare_generic(a, b, compare_runs(a.segments(), b.segments(), ignore=IGNORED_FIELDS))
    comparison = compare_runs(a.segments(), b.segments(), lane_key=lane_key, ignore=IGNORED_FIELDS, refine=refine)
    sets = settings_diff(a.main.settings, b.main.settings)
    prompts = prompt_diffs(a.main.prompts, b.main.prompts)
    versions = (prompt_version_name(a.main.prompt_version), prompt_version_name(b.main.prompt_version))
    graphs = ("+".join(d.graph for d in a.documents), "+".join(d.graph for d in b.documents))
    cause = classify(comparison, sets, bool(prompts) or versions[0] != versions[1])
    if graphs[0] != graphs[1] and comparison.first is not None and not comparison.first.from_input:
        cause = cause if cause != "other" else "different_graphs"
    fa, fb = _final(a), _final(b)
    answered = bool(fa.get("answer") and fb.get("answer"))
    # one basis for both sides: the answers when both runs recorded one, else the evidence of each
    same = (same_value(_answer(fa), _answer(fb)) if answered
            else same_value(_evidence(fa), _evidence(fb)))
    return RunComparison(
        a=a.ref, b=b.ref, comparison=comparison, cause=cause, settings=sets, prompt_versions=versions,
        prompt_diffs=prompts, route=(fa.get("route"), fb.get("route")),
        answer_same=same, answered=answered, graphs=graphs)


def _evidence(result: Mapping[str, Any]) -> list[Any]:
    return [d.get("chunk_id") for d in result.get("docs") or () if isinstance(d, Mapping)]


def outcome_differences(rc: RunComparison) -> list[str]:
    """What differs between two runs besides their steps (stable English keys: route, answer, evidence,
    settings, prompts, final_state): a comparison says "no divergence" only when this is empty too."""
    out = []
    if rc.generic:
        return ["final_state"] if rc.final_fields else []
    if rc.route[0] != rc.route[1]:
        out.append("route")
    if not rc.answer_same:
        out.append("answer" if rc.answered else "evidence")
    if rc.settings:
        out.append("settings")
    if rc.prompt_diffs or rc.prompt_versions[0] != rc.prompt_versions[1]:
        out.append("prompts")
    return out


ANSWER_TIMING = ("elapsed_ms",)
"""Parts of a recorded answer that say how long it took, not what it said: two runs that answered the same
words with the same citations answered the same, however long each took."""


def _answer(result: Mapping[str, Any]) -> Any:
    """What the run answered: its final answer when one was written (without its timing), else the cited
    evidence."""
    answer = result.get("answer")
    if isinstance(answer, Mapping):
        return {k: v for k, v in answer.items() if k not in ANSWER_TIMING}
    return answer or [d.get("chunk_id") for d in result.get("docs") or () if isinstance(d, Mapping)]


# ----------------------------------------------------------------------------------------------
# text
# ----------------------------------------------------------------------------------------------

def divergence_line(rc: RunComparison) -> str:
    """The first line, for scripts: stable English keys."""
    first = rc.comparison.first
    if first is None:
        return "first_divergence: none"
    return f"first_divergence: step={first.step} node={first.node or '-'} field={first.field or '-'}"


def summary_lines(rc: RunComparison, a: RunSide, b: RunSide) -> list[str]:
    """A short summary per differing step (English: a CLI's output for logs and CI)."""
    lines = [divergence_line(rc), f"cause: {rc.cause}"]
    if rc.generic:
        if rc.graphs[0] != rc.graphs[1]:
            lines.append(f"graphs: {rc.graphs[0]} -> {rc.graphs[1]}")
        if rc.edit is not None:
            lines.append(f"edited: step={rc.edit[0]} field={rc.edit[1]}")
        lines.append("final state: differs (" + ", ".join(rc.final_fields) + ")" if rc.final_fields
                     else "final state: same")
    else:
        lines += _rag_outcome_lines(rc)
    steps_a = [s for seg in a.segments() for s in seg.steps]
    steps_b = [s for seg in b.segments() for s in seg.steps]
    for row in rc.comparison.differing_rows:
        if row.kind == "only_a":
            lines.append(f"step {row.a} {row.node}: only in A")
            continue
        if row.kind == "only_b":
            lines.append(f"step B{row.b} {row.node}: only in B")
            continue
        detail = list(row.fields[:6])
        assert row.a is not None and row.b is not None  # a row in both runs has both step numbers
        sa, sb = steps_a[row.a - 1], steps_b[row.b - 1]
        if "docs" in row.fields and not rc.generic:
            moved = chunk_changes(sa.values_after.get("docs") or [], sb.values_after.get("docs") or [])
            counts = {k: sum(1 for c in moved if c.change == k) for k in ("added", "removed", "moved_up", "moved_down")}
            counts["rescored"] = sum(1 for c in moved if c.change == "same" and c.score_a != c.score_b)
            detail[detail.index("docs")] = "docs (" + ", ".join(f"{n} {k.replace('_', ' ')}"
                                                                 for k, n in counts.items() if n) + ")"
        missing = [key for key, x, y in row.lanes if x is None or y is None]
        if missing:
            detail.append(f"lanes only in one run: {len(missing)}")
        lines.append(f"step {row.a} {row.node}: " + ", ".join(detail))
    return lines


def _rag_outcome_lines(rc: RunComparison) -> list[str]:
    """Route, answer (or evidence), settings and prompts of two RAG runs."""
    lines = []
    lines.append(f"route: {rc.route[0]} -> {rc.route[1]}" if rc.route[0] != rc.route[1] else f"route: {rc.route[0]}")
    what = "answer" if rc.answered else "evidence"
    lines.append(f"{what}: same" if rc.answer_same else f"{what}: differs")
    for name, va, vb in rc.settings:
        lines.append(f"setting {name}: {json.dumps(va, default=str)} -> {json.dumps(vb, default=str)}")
    if rc.prompt_versions[0] != rc.prompt_versions[1]:
        lines.append(f"prompt_version: {rc.prompt_versions[0]} -> {rc.prompt_versions[1]}")
    for role in rc.prompt_diffs:
        lines.append(f"prompt {role}: differs")
    return lines
