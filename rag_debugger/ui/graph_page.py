"""The "Your graph" page: the step debugger on any LangGraph graph (`module:attr`), with no server
and no account. Lint findings above the graph, an input form generated from the graph's input
schema, the same inspector as the RAG debugger (graph with highlights, Run / Step / Continue /
Restart, Send lanes, reducer-aware diffs, timeline with time travel), `interrupt()` answered in the
page, and export / replay of a run. The RAG panels (evidence, demos, HITL snapshot) do not appear.

The page's logic is here and in `rag_debugger.debugger.session` (the generic session); what the buttons do
and which are on is the controller both debugger pages share (`rag_debugger.ui.step_controller`), which this
page hands the input form as the way a run starts. The panels it shares with the RAG debugger take their RAG
parts as parameters (`rag_debugger.views.inspector_html.InspectorParts`).
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Optional

import streamlit as st

from rag.i18n import N_, _, ngettext
from rag_debugger.debugger.allowlist import GraphPolicy
from rag_debugger.debugger.errors import DebuggerUserError
from rag_debugger.debugger.input_form import FormField, initial_value, parse_input, type_label, with_defaults
from rag_debugger.debugger.loading import load_saved_input
from rag_debugger.debugger.replay import ReplayStepper
from rag_debugger.debugger.session import GraphSession
from rag_debugger.launch import launch_options
from rag_debugger.ui.graph_answers import render_interrupts
from rag_debugger.ui.graph_examples import picked_input, render_example_picker
from rag_debugger.ui.graph_what_if import render_graph_what_if
from rag_debugger.ui.panels.breakpoint_picker import render_breakpoints
from rag_debugger.ui.panels.feedback_panel import render_feedback_panel
from rag_debugger.ui.panels.full_state import render_full_state
from rag_debugger.ui.panels.inspector import full_state_wanted, inspector_style, render_inspector
from rag_debugger.ui.panels.lazy import lazy_expander
from rag_debugger.ui.panels.time_travel import reset_time_travel, travel_step
from rag_debugger.ui.step_controller import StepController
from rag_debugger.ui.streamlit_state import flash, friendly, guarded, guarded_page, show_flash
from rag_debugger.ui.threads_panel import render_thread_banner, render_threads, render_travel_go_on
from rag_debugger.views.graph_parts import graph_parts
from rag_debugger.views.icons import MATERIAL
from rag_debugger.views.markdown_text import as_text, in_code

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
"""The bundled example graphs: any page may load them."""

SESSION_KEY = "any_graph_session"
ERROR_KEY = "any_graph_error"
GRAPH_FIELD = "your_graph_spec"
CONTEXT_FIELD = "your_graph_context"
SAVED_INPUT_KEY = "any_graph_saved_input"
FULL_RERUN_KEY = "any_graph_full_rerun"

BREAKPOINT_SCOPE = "yg"
"""The page's own breakpoints (rag_debugger/ui/panels/breakpoint_picker.py): its nodes are not the RAG workflow's."""


# ----- loading ---------------------------------------------------------------------------------

def _session() -> Optional[GraphSession]:
    return st.session_state.get(SESSION_KEY)


def session_hooks() -> list:
    """What the page keeps of a run: the run history (when it can be used) and OpenTelemetry spans (when
    export is on). The session in debugger/ only calls them."""
    from rag.runs.graph_runs import GraphRunRecorder
    from rag.telemetry.graph_session import TelemetryHook
    from rag_debugger.ui.streamlit_state import current_person, shared_history, signed_in_email

    hooks: list = [TelemetryHook()]
    history = shared_history()
    if history is not None:
        hooks.append(GraphRunRecorder(history, run_by=current_person, owner=signed_in_email))
    return hooks


def graph_policy() -> GraphPolicy:
    """What this page may load by name: the launch graph (and its module's), the bundled examples and
    `RAG_DEBUG_GRAPHS`. The launch's `--context` counts as named by the operator too."""
    import os

    opts = launch_options()
    examples = sorted(f"rag_debugger.examples.{p.stem}" for p in EXAMPLES_DIR.glob("*.py") if not p.stem.startswith("_"))
    patterns = os.environ.get("RAG_DEBUG_GRAPHS", "")
    if opts.context:
        patterns = ",".join(filter(None, [patterns, opts.context]))
    patterns = ",".join(filter(None, [patterns, *(spec for _name, spec in opts.graphs)]))
    return GraphPolicy.from_text(opts.graph, examples, patterns)


def _load(spec: str, context: Optional[str]) -> None:
    """Load `spec` into this browser session (the old run is dropped); a failure is kept to show."""
    st.session_state.pop(ERROR_KEY, None)
    reset_time_travel()
    spec = (spec or "").strip()
    if not spec:
        st.session_state[ERROR_KEY] = _("Type a graph as package.module:attr, e.g. rag_debugger.examples.chain:graph")
        return
    try:
        st.session_state[SESSION_KEY] = GraphSession.open(spec, context_spec=(context or "").strip() or None,
                                                          policy=graph_policy(), hooks=session_hooks())
    except DebuggerUserError as exc:
        st.session_state.pop(SESSION_KEY, None)
        st.session_state[ERROR_KEY] = friendly(exc)
    except Exception as exc:  # noqa: BLE001 - the user's module raised something else while importing
        st.session_state.pop(SESSION_KEY, None)
        st.session_state[ERROR_KEY] = _("{spec} could not be loaded: {error}").format(
            spec=spec, error=f"{type(exc).__name__}: {friendly(exc)}")


PROJECT_PICK = "yg_project_graph"


def on_pick_project() -> None:
    """A graph picked from the `--config` project's list: load it (the operator named it in the file)."""
    spec = st.session_state.get(PROJECT_PICK) or ""
    st.session_state[GRAPH_FIELD] = spec
    st.session_state[CONTEXT_FIELD] = ""
    _load(spec, None)


def on_load() -> None:
    _load(st.session_state.get(GRAPH_FIELD, ""), st.session_state.get(CONTEXT_FIELD, ""))


def _saved_input() -> Any:
    """The launch's `--input` file, read once per browser session (a broken file is reported)."""
    if SAVED_INPUT_KEY not in st.session_state:
        path = launch_options().input
        data: Any = None
        if path:
            try:
                data = load_saved_input(path)
            except DebuggerUserError as exc:
                flash("warning", friendly(exc))
        st.session_state[SAVED_INPUT_KEY] = data
    return st.session_state[SAVED_INPUT_KEY]


# ----- links and runs of the history ---------------------------------------------------------------

OPEN_RUN_KEY = "yg_open_run"
"""(spec, run id, step) that the Run history page asks this page to open (it switches here)."""


def _ensure_graph(spec: str) -> Optional[GraphSession]:
    """The session on `spec`, loaded (through the allow-list) when the page shows another graph or none."""
    session = _session()
    if session is not None and session.parent is None and session.spec == spec and not st.session_state.get(ERROR_KEY):
        return session
    opts = launch_options()
    context = opts.context if spec == opts.graph else None
    st.session_state[GRAPH_FIELD] = spec
    st.session_state[CONTEXT_FIELD] = context or ""
    _load(spec, context)
    return _session()


def open_run(run_id: str, step: Optional[int], spec: Optional[str] = None) -> list[str]:
    """Show recorded run `run_id` at `step` (None: its end); returns messages for people. A run this browser
    session holds travels there; any other is replayed from the run history, on its own graph loaded
    through the allow-list (never because the history names it)."""
    from rag.errors import UnknownRunError
    from rag.runs.graph_runs import recorded
    from rag_debugger.ui.panels.time_travel import travel_to
    from rag_debugger.ui.streamlit_state import shared_history
    from rag_debugger.views.run_link import placement

    session = _session()
    if session is not None and run_id in {seg.run_id for seg in session.segments if seg.run_id}:
        total = len(session.all_steps())
        at = total if step is None else min(step, total)
        if at == total:
            reset_time_travel()
        else:
            travel_to(max(at, 1) - 1)
        return []
    history = shared_history()
    if history is None:
        return [_("The run history is not available, so the run in the link cannot be opened.")]
    from rag_debugger.ui.streamlit_state import permit

    mine = permit()
    try:
        history.visible_run(run_id, mine)  # another's private run: "not available", like a missing one
        info, doc = recorded(history, run_id)
    except UnknownRunError:
        if mine.private_runs:
            return [_("The run in the link is not available. Pick a run on the Run history page.")]
        return [_("The link names run “{run}”, which is not in this app's run history (it may have been deleted, or "
                  "recorded by another installation). Pick a run on the Run history page.").format(run=run_id[:40])]
    except ValueError as exc:
        return [_("The run in the link cannot be shown: {error}").format(error=friendly(exc))]
    if spec and spec != info.graph_spec:
        return [_("Run {run} is a run of {graph}, not of {spec}.").format(run=run_id, graph=info.graph_spec, spec=spec)]
    session = _ensure_graph(info.graph_spec)
    if session is None:
        return []  # the page shows why the graph was not loaded
    reset_time_travel()
    try:
        session.open_recorded(doc.get("checkpoints") or [], head=doc.get("head_checkpoint_id"), inp=doc.get("input"),
                              run_id=info.run_id, info=info, label=N_("recorded run"))
        current = session.current
        assert current is not None and isinstance(current.stepper, ReplayStepper)  # open_recorded made it
        at, _travel, note = placement([len(current.stepper.all_steps)], step)
        session.seek(at)
    except DebuggerUserError as exc:
        return [_("The run in the link cannot be shown: {error}").format(error=friendly(exc))]
    return [_("The link's step: {note}").format(note=note)] if note else []


def follow_link() -> None:
    """Follow a `?graph=&run=&step=` the page did not write itself (a reload, a bookmark, a link), or a run
    the Run history page sent here. Problems become a message on the page, never a traceback."""
    from rag_debugger.views.graph_link import GRAPH_PARAM, RECEIVED_KEY, WRITTEN_KEY, link_params, parse_graph_link

    messages: list[str] = []
    asked = st.session_state.pop(OPEN_RUN_KEY, None)
    params = link_params(st.query_params)
    known = (st.session_state.get(RECEIVED_KEY), st.session_state.get(WRITTEN_KEY))
    st.session_state[RECEIVED_KEY] = params
    try:
        if asked is not None:
            spec, run_id, step = asked
            messages += open_run(run_id, step, spec)
        elif GRAPH_PARAM in params and params not in known:
            link = parse_graph_link(params)
            messages += list(link.problems)
            if link.run.run_id is not None:
                messages += open_run(link.run.run_id, link.run.step, link.spec)
            elif link.spec is not None:
                _ensure_graph(link.spec)
    except Exception as exc:  # noqa: BLE001 - a link must never break the page
        messages.append(_("The link could not be opened: {error}").format(error=friendly(exc)))
    if messages:
        flash("warning", as_text(" ".join(messages)))


# ----- the input form ----------------------------------------------------------------------------

def _field_key(session: GraphSession, name: str) -> str:
    digest = hashlib.sha1(session.spec.encode("utf-8")).hexdigest()[:8]
    return f"yg_{digest}_{name}"


def _saved_misfit(fields: list[FormField]) -> Optional[str]:
    """Why the launch's `--input` cannot start this graph: a value that is not an object, for a graph of
    fields (a graph whose input is one value takes any JSON value)."""
    saved = _saved_input()
    if saved is None or isinstance(saved, dict) or (len(fields) == 1 and fields[0].root):
        return None
    return _("the input file {path} must hold a JSON object, not {type}").format(
        path=repr(launch_options().input), type=type(saved).__name__)


def _fields(session: GraphSession) -> list[FormField]:
    fields = session.input_fields()
    picked = picked_input(session.spec)
    if picked is not None:
        return with_defaults(fields, picked)
    return fields if _saved_misfit(fields) else with_defaults(fields, _saved_input())


def _forget_form(spec: str) -> None:
    """Drop the typed values of `spec`'s input form, so it starts again from its defaults."""
    prefix = f"yg_{hashlib.sha1(spec.encode('utf-8')).hexdigest()[:8]}_"
    for key in [k for k in st.session_state if isinstance(k, str) and k.startswith(prefix)]:
        del st.session_state[key]


def _seed(key: str, field: FormField) -> None:
    if key not in st.session_state:
        st.session_state[key] = initial_value(field)


def render_field(field: FormField, key: str) -> None:
    label = as_text(f"{field.name}{' *' if field.required else ''} · {type_label(field)}")  # names from a schema
    help_text = field.help or None
    if field.kind == "bool":
        st.checkbox(label, key=key, help=help_text)
    elif field.kind == "int":
        st.number_input(label, key=key, step=1, format="%d", help=help_text, placeholder=_("(not set)"))
    elif field.kind == "float":
        st.number_input(label, key=key, help=help_text, placeholder=_("(not set)"))
    elif field.messages:
        st.text_area(label, key=key, height=68, help=help_text,
                     placeholder=_('a message, or JSON: [{"role": "user", "content": "hi"}]'))
    elif field.kind == "json":
        st.text_area(label + " (JSON)", key=key, height=68, help=help_text, placeholder=_("JSON, e.g. [] or {}"))
    else:
        st.text_input(label, key=key, help=help_text, placeholder=_("(not set)"))


def _form_input(session: GraphSession) -> dict:
    fields = _fields(session)
    raw = {f.name: st.session_state.get(_field_key(session, f.name)) for f in fields}
    return parse_input(session.graph, fields, raw)


def render_input_form(session: GraphSession) -> None:
    fields = _fields(session)
    if session.segments and session.last_input is not None:
        summary = json.dumps(session.last_input, ensure_ascii=False, default=str)
        label = _("Input of this run: {summary} — open to change it").format(
            summary=as_text(summary[:100] + ("…" if len(summary) > 100 else "")))
    else:
        label = ngettext("Input ({n} field from the graph's input schema)",
                         "Input ({n} fields from the graph's input schema)", len(fields)).format(n=len(fields))
    # a new label is a new expander: open before the first run, folded once a run uses the input
    misfit = _saved_misfit(session.input_fields())
    if misfit:
        st.warning(misfit)
    with st.expander(label, expanded=not session.segments):
        if not fields:
            st.caption(_("The graph declares no input fields; it starts from an empty dict."))
        cols = st.columns(min(len(fields), 3)) if len(fields) > 1 else [st.container()]
        for i, f in enumerate(fields):
            key = _field_key(session, f.name)
            _seed(key, f)
            with cols[i % len(cols)]:
                render_field(f, key)
        st.caption(_("Blank fields are left out of the input. `*` = required. Step or Run starts the run; "
                     "“Start with this input” starts over with what is typed here."))
        st.button(_("Start with this input"), key="yg_start", on_click=on_start_from_form,
                  help=_("A new run on a fresh thread, paused before its first node"))


# ----- what this page hands the one controller (rag_debugger/ui/step_controller.py) -------------

def _start_from_form(session: GraphSession) -> None:
    """A run starts from the input form. When that changes what the page was drawn with (the first run,
    another input), the whole page is drawn again: the form, outside the fragment, folds to a summary."""
    before = (bool(session.segments), session.last_input)
    session.start(_form_input(session))
    if (bool(session.segments), session.last_input) != before:
        st.session_state[FULL_RERUN_KEY] = True


def on_start_from_form() -> None:
    session = _session()
    if session is not None:
        guarded(_start_from_form, session)
        reset_time_travel()


def _run_name(session: GraphSession, seg: Any) -> str:
    return session.spec


CONTROLLER = StepController(get_session=_session, start_run=_start_from_form, breakpoint_scope=BREAKPOINT_SCOPE,
                            run_name=_run_name)
"""Run / Step / Continue / Restart; the rule for which are on."""


def on_step_into(name: str) -> None:
    session = _session()
    if session is None:
        return
    child = guarded(session.step_into, name)
    if child is not None:
        st.session_state[SESSION_KEY] = child
        reset_time_travel()
        flash("info", _("Inside the subgraph `{name}`, on the input the parent hands it. Step through it; "
                        "“Back to the parent graph” returns (the parent still runs it as one step).").format(name=in_code(name)))
        st.session_state[FULL_RERUN_KEY] = True


def on_step_out() -> None:
    session = _session()
    if session is not None and session.parent is not None:
        st.session_state[SESSION_KEY] = session.parent
        reset_time_travel()
        st.session_state[FULL_RERUN_KEY] = True


def render_subgraph_controls(session: GraphSession) -> None:
    if session.parent is not None:
        with st.container(border=True, key="yg_inside"):
            st.markdown(_("**Inside a subgraph:** `{spec}` — a run of its own on the input the parent "
                          "hands it; the parent's run has not moved.").format(spec=in_code(session.spec)))
            st.button(_("Back to the parent graph"), icon=":material/arrow_upward:", key="yg_step_out",
                      on_click=on_step_out)
    for name in session.subgraphs_next():
        st.button(_("Step into the subgraph `{name}`").format(name=in_code(name)), icon=":material/subdirectory_arrow_right:",
                  key=f"yg_into_{name}", on_click=on_step_into, args=(name,),
                  help=_("Run the subgraph node by node on the input the parent would give it now"))


def on_open_recording() -> None:
    session = _session()
    upload = st.session_state.get("yg_replay_file")
    if session is None or upload is None:
        return
    try:
        data = json.loads(upload.getvalue().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        flash("warning", _("{file} is not a JSON file: {error}").format(file=as_text(upload.name), error=as_text(friendly(exc))))
        return
    if guarded(open_any_recording, session, data) is not None:
        reset_time_travel()
        flash("info", _("Opened {file} read-only: Step walks the recording, nothing runs.").format(file=as_text(upload.name)))


def open_any_recording(session: GraphSession, data: Any) -> Any:
    """This page's own export, or a Your-graph run exported from Run history (checked like an import there:
    format, checksum, shape)."""
    from rag.runs.document_limits import parse_document
    from rag.runs.run_document import FORMAT

    if isinstance(data, dict) and data.get("format") == FORMAT:
        doc = parse_document(data)  # a RunImportError says what is wrong with the file
        if doc.graph != "graph":
            raise DebuggerUserError(_("run {run} is a run of the RAG workflow: open it on the Step debugger").format(
                run=doc.run.run_id))
        return session.open_recorded(doc.checkpoints, head=doc.head_checkpoint_id, inp=data.get("input"))
    return session.open_replay(data)


# ----- rendering -----------------------------------------------------------------------------------

def render_source() -> None:
    opts = launch_options()
    if GRAPH_FIELD not in st.session_state:
        st.session_state[GRAPH_FIELD] = opts.graph or ""
        st.session_state[CONTEXT_FIELD] = opts.context or ""
    if opts.config_error:
        st.error(opts.config_error)
    if len(opts.graphs) > 1:
        names = {spec: name for name, spec in opts.graphs}
        st.selectbox(_("Graphs of {file}").format(file=as_text(os.path.basename(opts.config or "langgraph.json"))),
                     list(names), key=PROJECT_PICK, format_func=lambda spec: f"{names[spec]} · {spec}",
                     index=list(names).index(opts.graph) if opts.graph in names else 0, on_change=on_pick_project)
    # the button column holds "Load graph" whole down to a 1024 px wide window (at [5, 4, 1.4] it read "Load …")
    c1, c2, c3 = st.columns([4, 3, 1.5], vertical_alignment="bottom")
    c1.text_input(_("Graph (package.module:attr)"), key=GRAPH_FIELD, placeholder=_("e.g. rag_debugger.examples.chain:graph"),
                  help=_("A compiled graph, a StateGraph builder, or a zero-argument function returning either. "
                         "The module must be importable from where the app runs."))
    c2.text_input(_("Runtime context (optional, module:attr)"), key=CONTEXT_FIELD,
                  help=_("Passed as `context=` to the graph; a class or function is called with no arguments"))
    c3.button(_("Load graph"), key="yg_load", on_click=on_load, type="primary", width="stretch")
    render_example_picker(EXAMPLES_DIR, graph_field=GRAPH_FIELD, load=on_load, forget_form=_forget_form)


def render_lint(session: GraphSession) -> None:
    findings = session.lint()
    if not findings:
        st.caption(_("Graph lint: no findings for `{spec}`.").format(spec=in_code(session.spec)))
        return
    with st.container(border=True, key="yg_lint"):
        st.markdown(ngettext("**Graph lint: {n} finding** (also `python -m rag_debugger.debugger.lint {spec}`)",
                             "**Graph lint: {n} findings** (also `python -m rag_debugger.debugger.lint {spec}`)",
                             len(findings)).format(n=len(findings), spec=as_text(session.spec)))
        for f in findings:
            # the finding's own words are the lint CLI's (English); the frame around them is the page's
            st.warning(_("**{code}** · `{node}` — {message} *Fix:* {fix}").format(code=as_text(f.code), node=in_code(f.node),
                                                                              message=as_text(f.message), fix=as_text(f.fix)),
                       icon=":material/warning:")


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def export_json(session: GraphSession) -> str:
    return json.dumps(session.export_run(), ensure_ascii=False, indent=1, default=str)


def render_history(session: GraphSession) -> None:
    """Export the run (every checkpoint with each task's writes) and open an export read-only. Outside the
    workbench fragment, and both files are built only when clicked: a Step neither redraws this panel nor
    serialises the whole run again (the JSON of a 300-step run was written on every Step while it was open)."""
    with lazy_expander(_("Export or replay a run"), key="yg_history") as is_open:
        if not is_open:
            return
        if session.segments:
            name = session.spec.replace(":", "_").replace(".", "_")
            st.download_button(_("Download this run (JSON)"), data=lambda: export_json(session),
                               file_name=f"{name}_run.json", mime="application/json", key="yg_export",
                               on_click="ignore")
            from rag.i18n import current_language
            from rag_debugger.exports.run_file import graph_report

            lang = current_language()
            st.download_button(_("Download as HTML"), data=lambda: graph_report(session, lang=lang),
                               file_name=f"{name}_run.html", mime="text/html", key="yg_report", on_click="ignore",
                               help=_("One file that opens in any browser with no app and no network"))
        st.file_uploader(_("Open an exported run (read-only replay: nothing runs)"), type=["json"],
                         key="yg_replay_file", on_change=on_open_recording)


def render_page() -> None:
    follow_link()
    render_source()
    error = st.session_state.get(ERROR_KEY)
    session = _session()
    spec = (st.session_state.get(GRAPH_FIELD) or "").strip()
    if session is None and error is None and spec:
        _load(spec, st.session_state.get(CONTEXT_FIELD))
        error, session = st.session_state.get(ERROR_KEY), _session()
    if error:
        st.error(error, icon=":material/block:")
        return
    if session is None:
        st.info(_("Name a graph above (`package.module:attr`) and press **Load graph**, or start the app with "
                  "`streamlit run app.py -- --graph package.module:attr`. Try `rag_debugger.examples.fanout:graph`."))
        return
    if session.subgraphs():
        st.caption(_("Subgraphs ({names}) are drawn as clusters. A step of this graph runs a subgraph as one task; "
                     "when one is next, “Step into” runs it node by node on its own.").format(
            names=as_text(", ".join(session.subgraphs()))))
    render_lint(session)
    render_threads(session)
    render_input_form(session)
    # outside the fragment, as on the RAG debugger: a Step does not send them again (a change in the picker
    # reruns the whole page; Continue reads the breakpoints from the session state)
    render_breakpoints(session.node_names(), scope=BREAKPOINT_SCOPE,
                       help=_("Continue stops before the next step that would run one of them (before all the lanes "
                              "of a Send fan-out); Step ignores them; Run runs to the end."))
    inspector_style()  # outside the fragment: a Step does not send the style sheet again
    workbench()
    render_history(session)


@st.fragment
def workbench() -> None:
    """Everything a Step changes (a fragment: a Step reruns only this part)."""
    guarded_page(_workbench)


def _workbench() -> None:
    session = _session()
    if session is None:
        return
    CONTROLLER.take_click(session)  # the queued click, if its button is on
    if st.session_state.pop(FULL_RERUN_KEY, False):
        st.rerun()  # the whole page: a fragment rerun would leave the input form as it was
    # The first screen holds the controls, the whole graph and the step (docs/first_screen.md), as on the Step
    # debugger: what a run says (its progress box, a breakpoint, a replay banner, the interrupt() question)
    # goes below the inspector; the position line beside the graph says it in a few words.
    inspector_slot = st.container()
    CONTROLLER.run_pending(session)  # Run / Continue, with each step's progress as it comes
    below = st.container()
    with below:
        show_flash()
        if session.replay_mode and session.current and session.current.run_id:
            st.info(_("Replay of run {run} from the run history: Step, Continue and Restart walk the recording; "
                      "nothing runs. What if… forks it live.").format(run=as_text(session.current.run_id)),
                    icon=MATERIAL["replay"])
        elif session.replay_mode and session.current and session.current.thread is not None:
            render_thread_banner(session)
        elif session.replay_mode:
            st.info(_("Replay of an exported run: Step, Continue and Restart walk the recording; nothing runs."),
                    icon=MATERIAL["replay"])
        render_interrupts(session, _session, render_field=render_field, seed=_seed)
        render_subgraph_controls(session)
        travel = travel_step(len(session.all_steps()))
        render_travel_go_on(session, travel)
    with inspector_slot:
        values = render_inspector(session, travel, parts=graph_parts(session))
    from rag_debugger.views.graph_link import WRITTEN_KEY, graph_link_for

    st.session_state[WRITTEN_KEY] = graph_link_for(session, travel)  # the inspector writes it into the URL
    if session.finished and travel is None:
        st.success(_("The run finished. Its final state:"))
        render_full_state(values)
    elif session.current and full_state_wanted():
        render_full_state(values)
    render_graph_what_if(session, travel, _session)
    render_feedback_panel(session, travel, key="yg_feedback")
