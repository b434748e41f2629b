"""Answering `interrupt()` on the Your graph page: one box per pending interrupt, answered as LangGraph takes it.

An answer is any JSON value (`debugger.answers`): words, a number, true/false or JSON, a typed form when the
interrupt's value carries a JSON schema, option buttons when it offers options. Several pending interrupts
(parallel lanes, several in one node) are answered by id, one at a time or all together
(`Command(resume={id: value, ...})`), and any answer may carry a state update (`Command(resume=..., update=...)`).
Widget keys carry the interrupt's id: answering one does not hand its text to the next.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Optional

import streamlit as st

from rag.i18n import N_, _
from rag_debugger.debugger.answers import ANSWER_KINDS, default_kind, parse_answer, parse_update, shown
from rag_debugger.debugger.errors import DebuggerUserError
from rag_debugger.debugger.input_form import ANSWER_MISFIT, parse_form
from rag_debugger.debugger.interrupts import InterruptAsk, ask_for
from rag_debugger.debugger.records import PendingInterrupt
from rag_debugger.debugger.session import GraphSession
from rag_debugger.ui.step_controller import answered
from rag_debugger.ui.streamlit_state import flash
from rag_debugger.views.icons import MATERIAL
from rag_debugger.views.markdown_text import as_text, in_code

UPDATE_KEY = "yg_ans_update"
KIND_LABELS = {"text": N_("Text"), "number": N_("Number"), "bool": N_("True / false"), "json": N_("JSON")}

SessionGetter = Callable[[], Optional[GraphSession]]
FieldRenderer = Callable[[Any, str], None]
Seeder = Callable[[str, Any], None]


def _key(p: PendingInterrupt, part: str) -> str:
    """`yg_ans_<slot>_<part>`: the slot is 0 while one interrupt waits, the interrupt's id while several do (so
    answering one does not hand its text to the next)."""
    return f"yg_ans_{_slot(p)}_{part}"


_SLOT_KEY = "_yg_ans_slots"


def _slot(p: PendingInterrupt) -> str:
    slots = st.session_state.get(_SLOT_KEY) or {}
    return slots.get(p.interrupt_id, "0")


def _set_slots(pending: tuple[PendingInterrupt, ...]) -> None:
    several = len(pending) > 1
    st.session_state[_SLOT_KEY] = {p.interrupt_id: ((p.interrupt_id or p.task_id)[:16] if several else "0")
                                   for p in pending}


def staged_answer(p: PendingInterrupt, ask: InterruptAsk) -> Any:
    """The answer typed (or picked) for `p` so far; a `DebuggerUserError` says what does not fit."""
    if ask.kind == "options":
        choice = st.session_state.get(_key(p, "opt"))
        if choice is None:
            raise DebuggerUserError(_("pick an answer for {node} first").format(node=p.node))
        return choice
    if ask.kind == "form":
        raw = {f.name: st.session_state.get(_key(p, f.name)) for f in ask.fields}
        value = parse_form(ask.fields, raw, what=ANSWER_MISFIT)
        return value.get("value") if ask.bare_value else value
    kind = st.session_state.get(_key(p, "kind")) or default_kind(p.value)
    field = {"bool": "bool", "number": "number"}.get(kind, "text")
    return parse_answer(kind, st.session_state.get(_key(p, field)))


def _update() -> Optional[dict]:
    return parse_update(st.session_state.get(UPDATE_KEY))


def _said(sent: tuple[Any, Optional[dict]]) -> str:
    """The page's message once an answer went (and the update box is emptied)."""
    value, update = sent
    text = _("Resumed with {value}. Step on, or Continue.").format(value=as_text(shown(value)))
    if update:
        text += " " + _("The state update {fields} went with it.").format(fields=as_text(", ".join(sorted(update))))
    st.session_state.pop(UPDATE_KEY, None)
    return text


def send_one(get_session: SessionGetter, interrupt_id: str, value: Any = None, staged: bool = True) -> None:
    """Answer the pending interrupt `interrupt_id` (with `value`, or what was typed for it)."""
    session = get_session()
    if session is None:
        return
    pending = {p.interrupt_id: p for p in session.pending_interrupts()}
    p = pending.get(interrupt_id)
    if p is None:
        flash("warning", _("That question has been answered already."))
        return

    def go() -> Any:
        answer = staged_answer(p, ask_for(p.value)) if staged else value
        update = _update()
        target = interrupt_id if len(pending) > 1 else None
        session.resume(answer, target, update=update)
        return answer, update
    answered(go, _said)


def send_all(get_session: SessionGetter) -> None:
    """Answer every pending interrupt at once: `Command(resume={id: value, ...})`."""
    session = get_session()
    if session is None:
        return

    def go() -> Any:
        answers = {p.interrupt_id: staged_answer(p, ask_for(p.value)) for p in session.pending_interrupts()}
        update = _update()
        session.resume_all(answers, update=update)
        return answers, update
    answered(go, _said)


def _text_answer(p: PendingInterrupt, get_session: SessionGetter) -> None:
    kind_key = _key(p, "kind")
    if kind_key not in st.session_state:
        st.session_state[kind_key] = default_kind(p.value)
    kind = st.radio(_("Answer as"), ANSWER_KINDS, key=kind_key, horizontal=True,
                    format_func=lambda k: _(KIND_LABELS[k]),
                    help=_("What interrupt() returns to the node: a string, a number, a boolean or any JSON value"))
    if kind == "bool":
        st.checkbox(_("Yes (true)"), key=_key(p, "bool"))
    elif kind == "number":
        st.text_input(_("Your answer (a number)"), key=_key(p, "number"))
    elif kind == "json":
        st.text_area(_("Your answer (JSON)"), key=_key(p, "text"), height=90,
                     placeholder='{"data": "…"}')
    else:
        st.text_area(_("Your answer"), key=_key(p, "text"), height=68)


def render_interrupt(index: int, p: PendingInterrupt, *, several: bool, get_session: SessionGetter,
                     render_field: FieldRenderer, seed: Seeder) -> None:
    ask = ask_for(p.value)
    with st.container(border=True, key=f"yg_interrupt_{index}"):
        st.markdown(f"### {MATERIAL['ask']} " + _("`{node}` asks you (interrupt)").format(node=in_code(p.node)))
        st.text(ask.question)
        if ask.kind == "options" and not several:
            cols = st.columns(min(len(ask.options), 4))
            for i, option in enumerate(ask.options):
                cols[i % len(cols)].button(option, key=f"yg_opt_{_slot(p)}_{i}", on_click=send_one,
                                           args=(get_session, p.interrupt_id, option, False), width="stretch")
        else:
            if ask.kind == "options":
                st.radio(_("Your answer"), ask.options, key=_key(p, "opt"), index=None, horizontal=True)
            elif ask.kind == "form" and not several:  # a form: sent as one, its fields read on submit
                with st.form(key=f"yg_answer_form_{_slot(p)}", border=False):
                    _form_fields(p, ask, render_field, seed)
                    st.form_submit_button(_("Send answer"), on_click=send_one, args=(get_session, p.interrupt_id),
                                          type="primary")
            elif ask.kind == "form":  # several: plain fields, so "send all together" can read them
                _form_fields(p, ask, render_field, seed)
            else:
                _text_answer(p, get_session)
            if several or ask.kind != "form":
                st.button(_("Send this answer") if several else _("Send answer"), key=_key(p, "send"),
                          on_click=send_one, args=(get_session, p.interrupt_id),
                          type="secondary" if several else "primary")
        with st.expander(_("The value passed to interrupt()")):
            st.json(json.loads(json.dumps(p.value, ensure_ascii=False, default=str)))


def _form_fields(p: PendingInterrupt, ask: InterruptAsk, render_field: FieldRenderer, seed: Seeder) -> None:
    for f in ask.fields:
        key = _key(p, f.name)
        seed(key, f)
        render_field(f, key)


def render_interrupts(session: GraphSession, get_session: SessionGetter, *, render_field: FieldRenderer,
                      seed: Seeder) -> None:
    pending = session.pending_interrupts()
    if not pending or session.replay_mode:
        return
    _set_slots(pending)
    several = len(pending) > 1
    if several:
        st.info(_("{n} interrupts wait for an answer. Answer them one at a time, or fill in each and send them "
                  "together.").format(n=len(pending)), icon=MATERIAL["ask"])
    for index, p in enumerate(pending):
        render_interrupt(index, p, several=several, get_session=get_session, render_field=render_field, seed=seed)
    with st.expander(_("Also update the state with the answer (Command(resume=..., update=...))")):
        st.text_area(_("State update (a JSON object of fields; blank: none)"), key=UPDATE_KEY, height=68,
                     placeholder='{"approved": true}')
    if several:
        st.button(_("Send all {n} answers together").format(n=len(pending)), key="yg_send_all", type="primary",
                  on_click=send_all, args=(get_session,))
    st.caption(_("The answer goes back as `Command(resume=...)`; the node runs again from the top and "
                 "`interrupt()` returns it."))


__all__ = ["render_interrupts", "send_all", "send_one", "staged_answer"]
