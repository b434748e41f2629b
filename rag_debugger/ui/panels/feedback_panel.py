"""Feedback on a run, beside the debugger's position: the feedback people gave on the run being viewed, and
a form to give one (verdict, reason, note, optionally the expected outcome). The same panel shows on Run
history for the selected run.

Why the viewed run and not the newest: time travel to a step of the main run while a resume follows it
shows the main run, and the feedback is about what is on screen. Folded and built only while open
(rag_debugger/ui/panels/lazy.py): a Step pays for one indexed count, not for the form.

Everything people typed (notes, names, sources, words) is shown through `as_text`: markup in a note is
text, never a link, an image or a style.
"""
from __future__ import annotations

import logging
from typing import Any, Optional

import streamlit as st

from rag.errors import UserFixableError
from rag.i18n import _
from rag.i18n.formatting import date_time
from rag.runs.feedback import (
    EXPECTED_ROUTES,
    NOTE_MAX_CHARS,
    REASONS,
    VERDICTS,
    Expected,
    Feedback,
    FeedbackError,
    Summary,
    feedback_for_run,
    give_feedback,
    new_feedback,
    require_run,
    split_items,
    summary_text,
    withdraw_feedback,
)
from rag_debugger.ui.language import in_this_language
from rag_debugger.ui.panels.lazy import lazy_expander
from rag_debugger.views.markdown_text import as_text

log = logging.getLogger("rag_debugger.ui")

REDACTED = "[redacted]"
NONE = "-"
"""The "none chosen" option of the reason and expected-route boxes (a value, shown as "—")."""


def viewed_run_id(session: Any, travel: Optional[int]) -> Optional[str]:
    """The recorded run the page shows at this position (the RAG session knows which segment a time-travel
    step belongs to; a session without `viewed` shows its current segment)."""
    if not getattr(session, "segments", None):
        return None
    viewed = getattr(session, "viewed", None)
    seg = viewed(travel)[0] if callable(viewed) else getattr(session, "current", None)
    return getattr(seg, "run_id", None) if seg is not None else None


def render_feedback_panel(session: Any, travel: Optional[int], *, key: str = "feedback") -> None:
    """The one call a debugger page makes: the panel for the run at the viewed position."""
    if not getattr(session, "segments", None):
        return
    from rag_debugger.ui.streamlit_state import current_person, shared_history

    history = getattr(session, "history", None) or shared_history()
    render_feedback(history, viewed_run_id(session, travel), key=key, person=current_person())


def _summary(items: list[Feedback]) -> Summary:
    given = [f for f in items if f.origin == "given"]
    return Summary(good=sum(f.verdict == "good" for f in given), wrong=sum(f.verdict == "wrong" for f in given),
                   carried=len(items) - len(given))


def render_feedback(history: Any, run_id: Optional[str], *, key: str, person: str = "") -> None:
    """The panel for `run_id` in `history` (None when the history is off)."""
    items: list[Feedback] = []
    problem: Optional[str] = None
    try:
        if history is None:
            problem = _("The run history is off, so feedback cannot be kept (see the notice in the sidebar).")
        else:
            require_run(history, run_id)
            items = feedback_for_run(history, run_id or "")
    except FeedbackError as exc:
        problem = str(exc)
    except Exception:  # noqa: BLE001 - the history failed meanwhile: say so, keep the page
        log.warning("could not read the feedback of run %s", run_id, exc_info=True)
        problem = _("The feedback of this run cannot be read right now; the run history does not answer.")
    counts = summary_text(_summary(items))
    if counts:  # outside the label: a label that changes would be a new expander, closing it on every save
        st.caption(_("Feedback on this run: {counts}").format(counts=as_text(counts)))
    with lazy_expander(_("Feedback on this run"), key=f"{key}_folded") as is_open:
        if not is_open:
            return
        message = st.session_state.pop(f"{key}_message", None)
        if message:
            getattr(st, message[0], st.info)(message[1])
        if problem:
            st.info(as_text(problem))
            return
        info = history.get_run(run_id)
        if info.origin == "imported":
            st.caption(_("An imported run: feedback that came with its file is marked “from the file”. Feedback given "
                         "here is kept on this copy (run {run}) and goes with it when it is exported.").format(
                run=as_text(run_id)))
        render_list(items, key=key, person=person, run_id=run_id or "")
        render_form(run_id or "", key=key, person=person)


def entry_markdown(item: Feedback) -> str:
    """One entry as markdown, with everything people typed escaped."""
    verdict = _(VERDICTS[item.verdict])
    head = f"**{verdict}**" + (f" · {_(REASONS[item.reason])}" if item.reason else "")
    who = as_text(item.given_by) if item.given_by else _("(no name)")
    if item.origin == "imported":  # what a file claims: nobody here gave it
        head += " · " + _("claimed by {person}, {date}").format(person=who, date=as_text(date_time(item.given_at)))
        head += " · " + _("from the file")
    else:
        head += " · " + _("by {person}, {date}").format(person=who, date=as_text(date_time(item.given_at)))
    lines = [head]
    if item.note:
        lines.append("> " + as_text(item.note).replace("\n", "  \n> "))
    expected = item.expected
    if expected is not None:
        parts = []
        if expected.route:
            parts.append(_("route {route}").format(route=as_text(expected.route)))
        if expected.sources:
            parts.append(_("cites {sources}").format(sources=", ".join(as_text(s) for s in expected.sources)))
        if expected.answer_words:
            parts.append(_("the answer says {words}").format(
                words=", ".join(as_text(w) for w in expected.answer_words)))
        lines.append(_("Expected: {parts}").format(parts="; ".join(parts)))
    return "  \n".join(lines)


def render_list(items: list[Feedback], *, key: str, person: str, run_id: str) -> None:
    if not items:
        st.caption(_("No feedback on this run yet."))
        return
    for item in items:
        left, right = st.columns([6, 1])
        left.markdown(entry_markdown(item))
        if _may_withdraw(item, person):
            right.button(_("Withdraw"), key=f"{key}_withdraw_{item.feedback_id}", on_click=_on_withdraw,
                         args=(key, run_id, item.feedback_id, person), help=_("Remove your feedback from this run"))


def _may_withdraw(item: Feedback, person: str) -> bool:
    """The Withdraw button: the same rule `withdraw_feedback` applies (rag/access.py)."""
    from rag.access import norm
    from rag_debugger.ui.streamlit_state import permit

    mine = permit()
    if not mine.allows("withdraw_feedback", item.owner):
        return False
    if mine.settings.login:
        return mine.settings.is_admin(mine.actor) or (bool(norm(item.owner)) and norm(item.owner) == norm(
            mine.actor.identity))
    return item.origin == "given" and bool(person) and item.given_by == person


def render_form(run_id: str, *, key: str, person: str) -> None:
    """Verdict first; the reason is asked only for a wrong run."""
    from rag_debugger.ui.streamlit_state import refusal

    refused = refusal("give_feedback")
    if refused:
        st.caption(as_text(refused))
        return
    verdict = st.radio(_("Verdict"), list(VERDICTS), key=f"{key}_verdict", horizontal=True, index=None,
                       format_func=in_this_language(lambda v: _(VERDICTS[v])))
    if verdict == "wrong":
        st.selectbox(_("Reason"), [NONE, *REASONS], key=f"{key}_reason",
                     format_func=in_this_language(lambda v: "—" if v == NONE else _(REASONS[v])))
    st.text_area(_("Note"), key=f"{key}_note", height=80,
                 help=_("At most {limit} characters. Shown as plain text.").format(limit=f"{NOTE_MAX_CHARS:,}"))
    with st.container(border=True):
        st.caption(_("Expected outcome (optional)"))
        st.selectbox(_("Route"), [NONE, *EXPECTED_ROUTES], key=f"{key}_route",
                     format_func=lambda v: "—" if v == NONE else v,
                     help=_("The route the run should have ended in"))
        st.text_input(_("Sources that should be cited"), key=f"{key}_sources",
                      help=_("File names, separated by commas"))
        st.text_input(_("Words the answer must contain"), key=f"{key}_words",
                      help=_("Separated by commas"))
    if person:
        st.caption(_("Given as {person}. Giving feedback again on this run replaces yours.").format(
            person=as_text(person)))
    else:
        st.caption(_("Given without a name: set yours on the Settings page so people know whose feedback it is."))
    st.button(_("Save feedback"), key=f"{key}_save", type="primary", on_click=_on_save, args=(key, run_id, person),
              disabled=verdict is None)


def form_feedback(state: Any, key: str, run_id: str, person: str) -> Feedback:
    """The entry the form's boxes describe (pure over `state`, a mapping like `st.session_state`);
    a FeedbackError says what to change."""
    verdict = state.get(f"{key}_verdict")
    reason = state.get(f"{key}_reason") if verdict == "wrong" else None
    route = state.get(f"{key}_route")
    expected = Expected(route=None if route in (None, NONE) else route,
                        sources=split_items(state.get(f"{key}_sources")),
                        answer_words=split_items(state.get(f"{key}_words")))
    return new_feedback(run_id, verdict=verdict, reason=None if reason in (None, NONE) else reason,
                        note=str(state.get(f"{key}_note") or "").strip(), expected=expected, given_by=person)


def without_keys(item: Feedback) -> Feedback:
    """`item` with this session's configured keys masked in what people typed: a key pasted into a note must
    not reach a history other people read (exports redact again, on their own)."""
    from rag.redaction import redact_text
    from rag_debugger.ui.streamlit_state import current_settings

    secrets = [s for s in current_settings().secret_strings() if len(s) >= 4]
    if not secrets:
        return item
    expected = item.expected
    if expected is not None:
        expected = expected.model_copy(update={
            "sources": [redact_text(s, secrets, REDACTED) for s in expected.sources],
            "answer_words": [redact_text(w, secrets, REDACTED) for w in expected.answer_words]})
    return item.model_copy(update={"note": redact_text(item.note, secrets, REDACTED), "expected": expected})


def _history() -> Any:
    from rag_debugger.ui.streamlit_state import shared_history

    return shared_history()


def _on_save(key: str, run_id: str, person: str) -> None:
    try:
        history = _history()
        if history is None:
            raise FeedbackError(_("The run history is off, so feedback cannot be kept (see the notice in the sidebar)."))
        from rag_debugger.ui.streamlit_state import permit

        item = give_feedback(history, without_keys(form_feedback(st.session_state, key, run_id, person)), permit())
    except UserFixableError as exc:  # FeedbackError, or AccessRefused (rag/access.py)
        st.session_state[f"{key}_message"] = ("warning", as_text(str(exc)))
        return
    except Exception:  # noqa: BLE001 - a defect or a history that failed: the form keeps what was typed
        log.exception("could not save feedback on run %s", run_id)
        st.session_state[f"{key}_message"] = ("error", _("The feedback could not be saved: the run history does not "
                                                         "answer. What you typed is kept; try again."))
        return
    for field in ("note", "sources", "words"):
        st.session_state[f"{key}_{field}"] = ""
    st.session_state[f"{key}_message"] = ("success", _("Feedback saved: {verdict} on run {run}.").format(
        verdict=_(VERDICTS[item.verdict]), run=as_text(run_id)))


def _on_withdraw(key: str, run_id: str, feedback_id: str, person: str) -> None:
    try:
        from rag_debugger.ui.streamlit_state import permit

        withdraw_feedback(_history(), run_id, feedback_id, given_by=person, permit=permit())
    except UserFixableError as exc:  # AccessRefused
        st.session_state[f"{key}_message"] = ("warning", as_text(str(exc)))
        return
    except Exception:  # noqa: BLE001
        log.exception("could not withdraw feedback on run %s", run_id)
        st.session_state[f"{key}_message"] = ("error", _("The feedback could not be withdrawn: the run history does "
                                                         "not answer."))
        return
    st.session_state[f"{key}_message"] = ("info", _("Your feedback was withdrawn."))


__all__ = ["render_feedback_panel", "render_feedback", "viewed_run_id", "form_feedback", "entry_markdown"]
