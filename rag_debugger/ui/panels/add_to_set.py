"""Add to a question set: keep a run as an evaluation case, on Run history (the selected run) and in the
step debugger (the run at the position shown).

One folded panel for both pages (built only while open: a Step must not pay for it). The form starts
from the run (rag/eval/from_run.py): the question, the HITL answer given, the expected route (the run's,
or the `expected_route` a caller passes, such as a feedback's corrected route), the expected sources
(the run's evidence files, one a line, editable) and tags; the set is picked or created by name here.
What happened is said inside the panel, next to the button that did it.
"""
from __future__ import annotations

import logging
from typing import Any, Callable, Optional

import streamlit as st

from rag.errors import UserFixableError
from rag.eval.from_run import RunFacts, case_from_run, run_facts, split_items
from rag.eval.scoring import ROUTES
from rag.i18n import _, ngettext
from rag_debugger.ui.language import in_this_language
from rag_debugger.ui.panels.lazy import lazy_expander
from rag_debugger.views.markdown_text import as_text

log = logging.getLogger("rag_debugger.question_sets")

NEW_SET = "__new_set__"
"""The set picker's "New set…" option (a key no set id takes)."""
LAST_SET_KEY = "add_to_set_last"
"""The set a case was last added to in this browser session: the picker's default next time."""


def set_store() -> Any:
    """The question sets of the app's run history (`rag_debugger.ui.history_store`); raises when it cannot be used."""
    from rag.eval.question_sets import QuestionSetStore
    from rag_debugger.ui.history_store import history

    return QuestionSetStore(history().storage)


def listed_sets() -> Optional[list[Any]]:
    """The stored sets, or None after saying on the page that the history holding them cannot be used."""
    try:
        return list(set_store().list_sets())
    except Exception as exc:  # noqa: BLE001 - no usable history: say so, keep the page
        st.warning(_("Question sets live in the run history, which cannot be used now: {error}").format(
            error=as_text(str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__)))
        return None


def facts_for_run(history: Any, run_id: str) -> RunFacts:
    """The form's starting point for a recorded run: its chain of parents and the answers it was given."""
    from rag.eval.from_run import answers_to
    from rag_debugger.workbench.replay_chain import run_chain

    return run_facts(run_chain(history, run_id), answers_to(history, run_id))


def facts_for_session(session: Any, travel: Optional[int] = None) -> Optional[RunFacts]:
    """The run of the position the debugger shows (time travel may show an earlier run of the session, such as
    the main run before its HITL resume): from the history when it is recorded there, else from the session; a
    run not finished yet takes the route and evidence of its current state."""
    seg = session.current
    pairs = session.all_steps() if isinstance(travel, int) else []
    if isinstance(travel, int) and 0 <= travel < len(pairs):
        seg = pairs[travel][0]
    if seg is None:
        return None
    facts = None
    history = getattr(session, "history", None)
    if seg.run_id and history is not None:
        try:
            facts = facts_for_run(history, seg.run_id)
        except Exception:  # noqa: BLE001 - not (yet) in the history: the session's own view below
            facts = None
    values = seg.stepper.current_values() if seg.stepper is not None else {}
    if facts is None:
        from rag.eval.runner import result_sources

        facts = RunFacts(run_id=None, question=session.question or "", hitl_answer=seg.answer,
                         route=values.get("route") if values.get("route") in ROUTES else None,
                         sources=result_sources(values))
    elif facts.route is None and values.get("route") in ROUTES:
        from dataclasses import replace

        from rag.eval.runner import result_sources

        facts = replace(facts, route=values["route"], sources=facts.sources or result_sources(values))
    return facts


def correction(run_id: Optional[str]) -> Any:
    """What people said the run should have done, or None: the route and sources of the newest "wrong"
    feedback naming a route (`rag.runs.feedback.expected_from_feedback`) and the words the answer must
    say (that feedback's, else the newest feedback naming some). Read every time the form is drawn or
    used, never kept from when it was first drawn: feedback saved after the panel opened still counts."""
    if not run_id:
        return None
    from rag.runs.feedback import Expected, expected_from_feedback, feedback_for_run
    from rag_debugger.ui.history_store import history

    try:
        items = feedback_for_run(history(), run_id)
    except Exception:  # noqa: BLE001 - no usable history: the run's own outcome is the default
        log.debug("no feedback to start the case from", exc_info=True)
        return None
    corrected = expected_from_feedback(items)
    worded = sorted(((f.given_at, f.expected.answer_words) for f in items
                     if f.expected is not None and f.expected.answer_words), key=lambda pair: pair[0])
    words = (corrected.answer_words if corrected is not None and corrected.answer_words
             else worded[-1][1] if worded else [])
    if corrected is None and not words:
        return None
    return Expected(route=corrected.route if corrected else None, sources=corrected.sources if corrected else [],
                    answer_words=list(words))


SEEDED = ("route", "sources", "words")
"""The form's fields that start from the run and the feedback (the seed), re-seeded when that changes."""


def form_seed(facts: RunFacts, corrected: Any, expected_route: Optional[str] = None) -> dict[str, str]:
    """The values the seeded fields start from: a caller's or a person's corrected route, else the run's;
    the corrected sources, else the run's evidence files; the words the feedback says the answer must say."""
    route = expected_route or (corrected.route if corrected is not None and corrected.route else None)
    default = route if route in ROUTES else (facts.route or "answer")
    sources = corrected.sources if corrected is not None and corrected.sources else facts.sources
    words = corrected.answer_words if corrected is not None else []
    return {"route": default, "sources": "\n".join(sources), "words": ", ".join(words)}


def seed_fields(state: Any, field_key: str, seed: dict[str, str]) -> None:
    """Put the seed into the form's fields when it changed since they were last seeded (feedback saved, or
    withdrawn, while the panel was open) and into any field Streamlit forgot while the panel was folded.
    A field a person edited keeps their text until the seed itself changes."""
    changed = state.get(f"{field_key}_seed") != seed
    for name in SEEDED:
        if changed or f"{field_key}_{name}" not in state:
            state[f"{field_key}_{name}"] = seed[name]
    state[f"{field_key}_seed"] = dict(seed)


def _say(key: str, kind: str, text: str) -> None:
    st.session_state[f"{key}_msg"] = (kind, text)


def on_add(key: str, facts: RunFacts, field_key: str) -> None:
    """Store the case the form describes; the outcome is said in the panel."""
    from rag_debugger.ui.streamlit_state import current_person

    state = st.session_state
    choice = state.get(f"{field_key}_set")
    seed_fields(state, field_key, form_seed(facts, correction(facts.run_id), state.get(f"{field_key}_caller_route")))
    try:
        case = case_from_run(facts, question=state.get(f"{field_key}_question", facts.question),
                             hitl_answer=state.get(f"{field_key}_hitl", "") or "",
                             expected_route=state.get(f"{field_key}_route") or None,
                             expected_sources=split_items(state.get(f"{field_key}_sources", ""), lines=True),
                             expected_answer_contains=split_items(state.get(f"{field_key}_words", "")),
                             tags=split_items(state.get(f"{field_key}_tags", "")))
        store = set_store()
        who = current_person()
        if choice == NEW_SET or choice is None:
            made = store.create(state.get(f"{field_key}_new_name", ""), [case], by=who, permit=_permit())
            set_id, name, count, case_id = made.set_id, made.name, len(made.cases), made.cases[0].case.id
        else:
            stored = store.add_case(choice, case, by=who, permit=_permit())
            found = store.get(choice)
            set_id, name, count, case_id = choice, found.name, len(found.cases), stored.case.id
    except UserFixableError as exc:
        _say(key, "warning", str(exc))
        return
    except Exception as exc:  # noqa: BLE001 - a defect or a lost history: logged, said briefly
        log.exception("adding a case to a question set failed")
        _say(key, "error", _("The case could not be stored: {error}").format(error=str(exc).splitlines()[0][:300]))
        return
    state[LAST_SET_KEY] = set_id
    _say(key, "success", ngettext("Added case {case} to question set “{name}” ({n} case). Run it on the Evaluate "
                                  "page.", "Added case {case} to question set “{name}” ({n} cases). Run it on the "
                                  "Evaluate page.", count).format(case=case_id, name=name, n=count))


def render_add_to_set(load: Callable[[], Optional[RunFacts]], *, key: str,
                      expected_route: Optional[str] = None) -> None:
    """The folded form. `load` gives the run's facts (called only while open); `expected_route` replaces
    the run's route as the default (e.g. a person's corrected route)."""
    with lazy_expander(_("Add to a question set"), key=f"{key}_folded") as is_open:
        if not is_open:
            return
        message = st.session_state.pop(f"{key}_msg", None)
        if message:
            getattr(st, message[0])(as_text(message[1]))
        facts = load()
        if facts is None:
            st.caption(_("Run a question first (or open a recorded run): a case is made from a run."))
            return
        sets = listed_sets()
        if sets is None:
            return
        field_key = f"{key}_{facts.run_id or 'unrecorded'}"
        corrected = correction(facts.run_id)
        st.session_state[f"{field_key}_caller_route"] = expected_route
        seed_fields(st.session_state, field_key, form_seed(facts, corrected, expected_route))
        if corrected is not None and corrected.route and expected_route is None:
            st.caption(_("Starts from the feedback that marked this run wrong: route {route}.").format(
                route=as_text(corrected.route)))
        names = {s.set_id: ngettext("{name} ({n} case)", "{name} ({n} cases)", s.cases).format(name=s.name, n=s.cases)
                 for s in sets}
        options = [*names, NEW_SET]
        if st.session_state.get(f"{field_key}_set") not in options:
            last = st.session_state.get(LAST_SET_KEY)
            st.session_state[f"{field_key}_set"] = last if last in names else options[0]
        left, right = st.columns(2)
        choice = left.selectbox(_("Question set"), options, key=f"{field_key}_set",
                                format_func=in_this_language(lambda v: _("New set…") if v == NEW_SET else names.get(v, v)))
        if choice == NEW_SET:
            right.text_input(_("Name of the new set"), key=f"{field_key}_new_name", max_chars=80)
        st.text_area(_("Question"), value=facts.question, key=f"{field_key}_question", height=68)
        left, right = st.columns(2)
        left.selectbox(_("Expected route"), list(ROUTES), key=f"{field_key}_route",
                       help=_("The route the run should end in. It starts as the run's route; a different one "
                              "records that a person found the run wrong."))
        right.text_input(_("HITL answer"), value=facts.hitl_answer or "", key=f"{field_key}_hitl",
                         help=_("The answer given when the run asked (clarify / scope_select); the evaluation "
                                "gives it again and judges the resumed run. Empty: not answered."))
        left.text_area(_("Expected sources (one file a line)"), key=f"{field_key}_sources", height=90,
                       help=_("The files the answer should rest on; they start as the run's evidence."))
        right.text_input(_("The answer must say (comma-separated)"), key=f"{field_key}_words",
                         help=_("Words or phrases the evaluation looks for in the answer; they start as the "
                                "feedback's. Empty: the answer is not judged."))
        right.text_input(_("Tags (comma-separated)"), key=f"{field_key}_tags")
        if facts.run_id:
            st.caption(_("The case links back to run {run}.").format(run=as_text(facts.run_id)))
        else:
            st.caption(_("This run is not in the run history, so the case will not link back to it."))
        st.button(_("Add to the set"), key=f"{key}_add", type="primary", on_click=on_add,
                  args=(key, facts, field_key))


def render_for_run(history: Any, info: Any, *, expected_route: Optional[str] = None) -> None:
    """Run history: the selected run (a run still running has no route yet, so it is left out)."""
    if info.status == "running":
        return
    render_add_to_set(lambda: facts_for_run(history, info.run_id), key="history_add_to_set",
                      expected_route=expected_route)


def render_for_session(session: Any, travel: Optional[int] = None, *, expected_route: Optional[str] = None) -> None:
    """The step debugger: the run of the position the page shows (`travel`: the time-travel index, or None)."""
    render_add_to_set(lambda: facts_for_session(session, travel), key="debugger_add_to_set",
                      expected_route=expected_route)


def _permit():
    from rag_debugger.ui.streamlit_state import permit

    return permit()
