"""The Evaluate page's question sets: the named sets kept in the run history (rag/eval/question_sets.py),
listed and edited (add, edit, remove a case; rename; delete), downloaded as JSON Lines in the
`python -m rag.eval` format and uploaded back; and the agreement between the judge and people shown
under an evaluation whose cases carry people's verdicts (rag/eval/agreement.py).

A stored set is run like a shipped one: it is offered in the page's "Question set" picker as
`stored:<set id>` (`STORED_PREFIX`).

Two people may edit a set at once. Every edit sends the version it was made on (the one shown when
the widgets were drawn, passed to the button's callback), so the second writer is told who changed
the case or set and nothing is overwritten; the form then shows the stored case again.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Optional, Sequence

import pandas as pd
import streamlit as st

from rag.errors import UserFixableError
from rag.eval.agreement import agreement
from rag.eval.cases import EvalCase, cases_from_upload
from rag.eval.from_run import make_case, split_items
from rag.eval.scoring import ROUTES, CaseResult
from rag.i18n import N_, _, ngettext
from rag_debugger.ui.grids import data_grid
from rag_debugger.ui.language import in_this_language, with_headings
from rag_debugger.ui.panels.add_to_set import listed_sets, set_store
from rag_debugger.ui.streamlit_state import refusal
from rag_debugger.views.icons import MATERIAL
from rag_debugger.views.markdown_text import as_text
from rag_debugger.views.run_link import run_href

log = logging.getLogger("rag_debugger.question_sets")

STORED_PREFIX = "stored:"
PICK_KEY = "qs_pick"
MSG_KEY = "qs_msg"
CONFIRM_KEY = "qs_confirm_delete"
NO_ROUTE = ""
"""The expected-route picker's "none" option (a case that expects no route is only run, not judged)."""
MAX_UPLOAD_BYTES = 5 * 1024 * 1024
VERDICTS = {"": N_("no verdict"), "good": N_("good"), "wrong": N_("wrong")}
HEADINGS = {"id": N_("id"), "question": N_("question"), "expected route": N_("expected route"),
            "HITL answer": N_("HITL answer"), "expected sources": N_("expected sources"), "tags": N_("tags"),
            "verdict": N_("verdict"), "from run": N_("from run"), "route": N_("route"), "people": N_("people"),
            "judge": N_("judge"), "both": N_("both"), "agreement": N_("agreement"), "person": N_("person")}


# ----- pure helpers -------------------------------------------------------------------------------

def stored_choice(set_id: str) -> str:
    return STORED_PREFIX + set_id


def cases_table(cases: Sequence[EvalCase]) -> pd.DataFrame:
    """One row per case of a set (data keys in English; `with_headings` translates them as drawn)."""
    rows = [{"id": c.id, "question": c.question, "expected route": c.expected_route or "",
             "HITL answer": c.hitl_answer or "", "expected sources": ", ".join(c.expected_sources),
             "tags": ", ".join(c.tags), "verdict": c.verdict or "",
             "from run": run_href(c.from_run) if c.from_run else None} for c in cases]
    return pd.DataFrame(rows, columns=["id", "question", "expected route", "HITL answer", "expected sources", "tags",
                                       "verdict", "from run"])


def agreement_frames(results: Sequence[CaseResult]) -> Optional[tuple[Any, pd.DataFrame, pd.DataFrame]]:
    """(the Agreement, its per-route table, its disagreeing cases) or None when no case carries a verdict."""
    found = agreement(results)
    if found is None:
        return None
    per_route = pd.DataFrame([{"route": r.route, "people": r.people, "judge": r.judge, "both": r.both,
                               "agreement": None if r.agreement is None else round(r.agreement, 3)}
                              for r in found.per_route], columns=["route", "people", "judge", "both", "agreement"])
    wrong = pd.DataFrame([{"id": r.id, "question": r.question, "person": r.expected_route or "",
                           "judge": r.route or _("error"), "verdict": r.verdict or "",
                           "from run": run_href(r.from_run) if r.from_run else None} for r in found.disagreements],
                         columns=["id", "question", "person", "judge", "verdict", "from run"])
    return found, per_route, wrong


def _link_column() -> dict:
    return {"from run": st.column_config.LinkColumn(_("from run"), display_text=r"run=(.*)$",
                                                     help=_("The run the case was made from, in the step debugger"))}


def _headed(frame: pd.DataFrame) -> pd.DataFrame:
    return with_headings(frame, {k: v for k, v in HEADINGS.items() if k != "from run"})


# ----- stored sets in the page's picker -----------------------------------------------------------

def stored_choices() -> dict[str, str]:
    """`stored:<id>` -> the set's name, for the page's "Question set" picker ({} without a usable history)."""
    try:
        return {stored_choice(s.set_id): s.name for s in set_store().list_sets()}
    except Exception:  # noqa: BLE001 - no history: the shipped sets and uploads still work
        return {}


def load_stored(choice: str) -> tuple[str, list[EvalCase]]:
    """(set name, cases) of the stored set a picker choice names."""
    from rag.eval.question_sets import QuestionSetError

    found = set_store().get(choice[len(STORED_PREFIX):])
    if not found.cases:
        raise QuestionSetError(_("question set {name}: no cases").format(name=repr(found.name)))
    return found.name, found.eval_cases()


def render_source_link(result: CaseResult) -> None:
    """A link to the run an evaluated case was made from (a replay in the step debugger; a new tab)."""
    if result.from_run:
        st.link_button(_("Open the run it came from ({run})").format(run=as_text(result.from_run)), run_href(result.from_run),
                       icon=MATERIAL["open"], help=_("The run the case was made from, in the step debugger"))


# ----- agreement under an evaluation --------------------------------------------------------------

def render_agreement(results: Sequence[CaseResult], key: str) -> None:
    """The judge against people, when some case carries a person's verdict; nothing otherwise."""
    frames = agreement_frames(results)
    if frames is None:
        return
    found, per_route, wrong = frames
    with st.container(border=True, key=f"qs_agreement_{key}"):
        st.markdown("**" + _("Agreement between the judge and people") + "**")
        st.caption(ngettext("Over {n} case a person gave a verdict on: the route the judge ended in against the "
                            "route the person expects.", "Over {n} cases people gave a verdict on: the route the "
                            "judge ended in against the route the person expects.", found.cases).format(n=as_text(found.cases)))
        cols = st.columns(3)
        cols[0].metric(_("Agreed"), f"{found.agreed}/{found.cases}")
        cols[1].metric(_("Agreement"), f"{found.rate:.3f}")
        cols[2].metric(_("Cohen's kappa"), _("undefined") if found.kappa is None else f"{found.kappa:.3f}")
        if found.kappa_note:
            st.info(as_text(found.kappa_note))
        else:
            st.caption(_("Kappa discounts the agreement expected by chance: 1 is full agreement, 0 no better than "
                         "chance, below 0 worse."))
        shown = per_route.assign(agreement=[_("n/a") if v is None or v != v else f"{v:.3f}"
                                            for v in per_route["agreement"]])
        st.markdown(_("**Agreement per route** (2 × both / (people + judge))"))
        st.table(_headed(shown).set_index(_("route")))
        if wrong.empty:
            st.success(_("The judge agrees with people on every case."))
        else:
            st.markdown("**" + _("Cases where the judge and people disagree") + "**")
            data_grid(_headed(wrong), hide_index=True, width="stretch", column_config=_link_column(),
                         key=f"qs_disagree_{key}")


# ----- callbacks ----------------------------------------------------------------------------------

def _say(kind: str, text: str) -> None:
    st.session_state[MSG_KEY] = (kind, text)


def _act(action, success: Optional[str] = None) -> Any:
    """Run a store action; a user error or a conflict is said in the section, a defect logged."""
    try:
        out = action()
    except UserFixableError as exc:
        _say("warning", str(exc))
        return None
    except Exception as exc:  # noqa: BLE001 - never a traceback in the page
        log.exception("question set action failed")
        _say("error", _("Something went wrong: {error}").format(error=str(exc).splitlines()[0][:300] if str(exc)
                                                                 else type(exc).__name__))
        return None
    if success:
        _say("success", success)
    return out if out is not None else True


def _person() -> str:
    from rag_debugger.ui.streamlit_state import current_person

    return current_person()


def _permit():
    """This session's permit (rag/access.py): the store refuses what it may not do."""
    from rag_debugger.ui.streamlit_state import permit

    return permit()


def on_create() -> None:
    name = st.session_state.get("qs_new_name", "")
    made = _act(lambda: set_store().create(name, by=_person(), permit=_permit()))
    if made:
        st.session_state[PICK_KEY] = made.set_id
        st.session_state["qs_new_name"] = ""
        _say("success", _("Created question set “{name}”.").format(name=made.name))


def _upload_cases() -> tuple[str, list[EvalCase]]:
    from rag.errors import UserInputError

    upload = st.session_state.get("qs_upload")
    if upload is None:
        raise UserInputError(_("Choose a JSON Lines or CSV file first."))
    data = upload.getvalue()
    if len(data) > MAX_UPLOAD_BYTES:
        raise UserInputError(_("{name} has {size} bytes; the limit is {limit}").format(
            name=upload.name, size=len(data), limit=MAX_UPLOAD_BYTES))
    return upload.name, cases_from_upload(upload.name, data)


def on_upload_create() -> None:
    def create():
        name, cases = _upload_cases()
        wanted = st.session_state.get("qs_upload_name", "").strip() or Path(name).stem
        return set_store().create(wanted, cases, by=_person(), permit=_permit())

    made = _act(create)
    if made:
        st.session_state[PICK_KEY] = made.set_id
        _say("success", ngettext("Created question set “{name}” from the file: {n} case.",
                                 "Created question set “{name}” from the file: {n} cases.",
                                 len(made.cases)).format(name=made.name, n=len(made.cases)))


def _form_case(prefix: str, case_id: Optional[str], base: Optional[EvalCase] = None) -> EvalCase:
    """The case the form describes; fields the form does not show (`expected_passages`) are kept from `base`."""
    state = st.session_state
    kept = base.model_dump() if base is not None else {}
    return make_case({**kept, "id": case_id, "question": state.get(f"{prefix}_question", ""),
                      "expected_route": state.get(f"{prefix}_route") or None,
                      "hitl_answer": (state.get(f"{prefix}_hitl") or "").strip() or None,
                      "expected_sources": split_items(state.get(f"{prefix}_sources", ""), lines=True),
                      "tags": split_items(state.get(f"{prefix}_tags", "")),
                      "verdict": state.get(f"{prefix}_verdict") or None,
                      "from_run": state.get(f"{prefix}_from_run") or None})


def on_save_case(set_id: str, case_id: str, version: int, prefix: str, base: EvalCase) -> None:
    _act(lambda: set_store().update_case(set_id, case_id, _form_case(prefix, case_id, base), version=version,
                                         by=_person(), permit=_permit()),
         _("Saved case {case}.").format(case=case_id))


def on_remove_case(set_id: str, case_id: str, version: int) -> None:
    _act(lambda: set_store().remove_case(set_id, case_id, version=version, by=_person(), permit=_permit()),
         _("Removed case {case}.").format(case=case_id))


def on_add_case(set_id: str) -> None:
    stored = _act(lambda: set_store().add_case(set_id, _form_case("qs_add", None), by=_person(), permit=_permit()))
    if stored:
        st.session_state["qs_add_question"] = ""
        _say("success", _("Added case {case}.").format(case=stored.case.id))


def on_rename(set_id: str, version: int) -> None:
    name = st.session_state.get(f"qs_rename_{set_id}", "")
    _act(lambda: set_store().rename(set_id, name, version=version, by=_person(), permit=_permit()),
         _("Renamed the set to “{name}”.").format(name=" ".join(name.split())))


def on_delete_request(set_id: str, version: int) -> None:
    st.session_state[CONFIRM_KEY] = (set_id, version)


def on_delete_confirm(set_id: str, version: int) -> None:
    st.session_state.pop(CONFIRM_KEY, None)
    if _act(lambda: set_store().delete(set_id, version=version, permit=_permit()), _("Deleted the question set.")):
        st.session_state.pop(PICK_KEY, None)


def on_evaluate(set_id: str) -> None:
    """Pick the set in the page's "Question set" picker above (the run itself is the page's Run button)."""
    st.session_state["eval_set"] = stored_choice(set_id)
    _say("info", _("The set is picked above: press “Run evaluation”."))


# ----- rendering ----------------------------------------------------------------------------------

def _case_fields(prefix: str, case: Optional[EvalCase]) -> None:
    """The fields of one case (empty for a new one). Keys carry the case's version, so a saved or
    conflicting edit redraws them from the stored case."""
    routes = [NO_ROUTE, *ROUTES]
    st.text_area(_("Question"), value=case.question if case else "", key=f"{prefix}_question", height=68)
    left, middle, right = st.columns(3)
    route = case.expected_route if case and case.expected_route else NO_ROUTE
    left.selectbox(_("Expected route"), routes, index=routes.index(route), key=f"{prefix}_route",
                   format_func=in_this_language(lambda r: r or _("(none: only run)")))
    middle.text_input(_("HITL answer"), value=(case.hitl_answer or "") if case else "", key=f"{prefix}_hitl")
    verdict = (case.verdict or "") if case else ""
    right.selectbox(_("Person's verdict"), list(VERDICTS), index=list(VERDICTS).index(verdict),
                    key=f"{prefix}_verdict", format_func=in_this_language(lambda v: _(VERDICTS[v])),
                    help=_("A person's verdict on the run the case came from: such cases count for the agreement "
                           "between the judge and people."))
    left, right = st.columns(2)
    left.text_area(_("Expected sources (one file a line)"), value="\n".join(case.expected_sources) if case else "",
                   key=f"{prefix}_sources", height=68)
    right.text_input(_("Tags (comma-separated)"), value=", ".join(case.tags) if case else "", key=f"{prefix}_tags")
    right.text_input(_("From run"), value=(case.from_run or "") if case else "", key=f"{prefix}_from_run",
                     help=_("The run id the case links back to (empty: none)"))


def render_set(found: Any) -> None:
    from rag.eval.question_sets import set_jsonl

    st.caption(ngettext("Version {version} · {n} case · changed {when} by {person}",
                        "Version {version} · {n} cases · changed {when} by {person}", len(found.cases)).format(
        version=as_text(found.version), n=len(found.cases), when=as_text(found.updated_at[:19].replace("T", " ")),
        person=as_text(found.updated_by or _("someone"))))
    refused = refusal("edit_set", found.owner)  # the store refuses too (rag/access.py); this only says so early
    if refused:
        st.caption(as_text(refused))
    c1, c2, c3 = st.columns(3)
    c1.button(_("Evaluate this set"), key="qs_evaluate", icon=MATERIAL["play"], on_click=on_evaluate,
              args=(found.set_id,), width="stretch")
    c2.download_button(_("Download (JSON Lines)"), set_jsonl(found.eval_cases()), file_name=f"{found.name}.jsonl",
                       mime="application/jsonl", key="qs_download", icon=MATERIAL["download"], width="stretch",
                       help=_("The `python -m rag.eval` format: run it with `python -m rag.eval FILE`, or upload it back"))
    c3.button(_("Delete the set"), key="qs_delete", icon=MATERIAL["delete"], on_click=on_delete_request,
              args=(found.set_id, found.version), width="stretch", disabled=bool(refusal("delete_set", found.owner)))
    if st.session_state.get(CONFIRM_KEY, (None,))[0] == found.set_id:
        st.warning(_("Delete question set “{name}” and its {n} cases? This cannot be undone.").format(
            name=as_text(found.name), n=len(found.cases)))
        d1, d2, _rest = st.columns([1, 1, 4])
        d1.button(_("Yes, delete"), key="qs_delete_confirm", type="primary", on_click=on_delete_confirm,
                  args=st.session_state[CONFIRM_KEY])
        d2.button(_("Cancel"), key="qs_delete_cancel", on_click=lambda: st.session_state.pop(CONFIRM_KEY, None))
    if found.cases:
        data_grid(_headed(cases_table(found.eval_cases())), hide_index=True, width="stretch",
                     column_config=_link_column(), key="qs_cases_table")
        ids = [c.case.id for c in found.cases]
        if st.session_state.get("qs_case") not in ids:
            st.session_state["qs_case"] = ids[0]
        with st.expander(_("Edit a case"), expanded=True):
            case_id = st.selectbox(_("Case"), ids, key="qs_case")
            stored = found.case(case_id)
            prefix = f"qs_edit_{found.set_id}_{case_id}_{stored.version}"
            _case_fields(prefix, stored.case)
            b1, b2, _rest = st.columns([1, 1, 3])
            b1.button(_("Save the case"), key="qs_save", type="primary", on_click=on_save_case,
                      args=(found.set_id, case_id, stored.version, prefix, stored.case), disabled=bool(refused))
            b2.button(_("Remove the case"), key="qs_remove", on_click=on_remove_case,
                      args=(found.set_id, case_id, stored.version), disabled=bool(refused))
    else:
        st.info(_("This set has no case yet: add one below, or use “Add to a question set” on a run."))
    with st.expander(_("Add a case"), expanded=not found.cases):
        _case_fields("qs_add", None)
        st.button(_("Add the case"), key="qs_add", on_click=on_add_case, args=(found.set_id,), disabled=bool(refused))
    with st.expander(_("Rename the set")):
        st.text_input(_("New name"), value=found.name, key=f"qs_rename_{found.set_id}", max_chars=80)
        st.button(_("Rename"), key="qs_rename", on_click=on_rename, args=(found.set_id, found.version),
                  disabled=bool(refused))


def render_question_sets() -> None:
    """The section: pick a set and edit it, make a new one, upload one."""
    st.subheader(MATERIAL["evaluate"] + " " + _("Question sets"))
    st.caption(_("Named sets kept in the run history, shared by everyone who uses it. Add cases from a run with "
                 "“Add to a question set” (Run history, or the step debugger), or here; run one by picking it in "
                 "“Question set” above, or from a terminal with `python -m rag.eval --set NAME`."))
    message = st.session_state.pop(MSG_KEY, None)
    with st.container(key="qs_message"):
        if message:
            getattr(st, message[0])(as_text(message[1]))
    sets = listed_sets()
    if sets is None:
        return
    new_col, upload_col = st.columns(2)
    with new_col.container(border=True):
        st.text_input(_("New set"), key="qs_new_name", max_chars=80, placeholder=_("name"))
        st.button(_("Create the set"), key="qs_create", on_click=on_create, disabled=bool(refusal("create_set")))
    with upload_col.container(border=True):
        st.file_uploader(_("Upload a set (JSON Lines or CSV)"), type=["jsonl", "csv", "json"], key="qs_upload")
        st.text_input(_("Name of the uploaded set (default: the file's name)"), key="qs_upload_name", max_chars=80)
        st.button(_("Create the set from the file"), key="qs_upload_create", on_click=on_upload_create,
                  disabled=bool(refusal("create_set")))
    if not sets:
        st.info(_("No question set yet."))
        return
    by_id = {s.set_id: s for s in sets}
    if st.session_state.get(PICK_KEY) not in by_id:
        st.session_state[PICK_KEY] = sets[0].set_id
    pick = st.selectbox(_("Set"), list(by_id), key=PICK_KEY, format_func=in_this_language(lambda sid: ngettext(
        "{name} ({n} case)", "{name} ({n} cases)", by_id[sid].cases).format(name=by_id[sid].name, n=by_id[sid].cases)))
    try:
        found = set_store().get(pick)
    except UserFixableError as exc:  # deleted by someone else meanwhile
        st.warning(as_text(str(exc)))
        return
    render_set(found)


__all__ = ["render_question_sets", "render_agreement", "render_source_link", "stored_choices", "load_stored", "stored_choice",
           "cases_table", "agreement_frames", "STORED_PREFIX"]
