"""The prompt playground: edit one role's prompt (variant B), run A and B from the same checkpoint,
compare outcomes side by side; save, load, compare and activate prompt versions.

Why the fork matters to the page: `rag.playground.run_ab` runs everything upstream of the role's
node once and starts both variants from that one checkpoint, so any difference shown here comes
from the prompt, not from retrieval or another model call.

Edits to B are kept per role outside the widget's own state (`pg_bstore_<role>`), because
Streamlit forgets a widget's value when a rerun does not draw it (switching roles would lose them).

The fourth role, `answerer`, is the answering agent after the graph: its A/B runs the graph once
and compares the two answers from the same evidence, so its sides show answers, not routes.
Role, node and field names are data and stay as they are in every language.
"""
from __future__ import annotations

from typing import Optional

import pandas as pd
import streamlit as st

from rag.errors import PromptTemplateError
from rag.i18n import N_, _, ngettext
from rag.playground.ab_fork import ANSWER_STEP, FORK_NODES, ABResult, VariantResult, run_ab
from rag.prompts.templates import ALLOWED_VARIABLES, REQUIRED_VARIABLES, ROLES, PromptSet, validate_template
from rag_debugger.debugger import diff_table
from rag_debugger.ui.grids import data_grid
from rag_debugger.ui.language import with_headings
from rag_debugger.ui.streamlit_state import current_settings, flash, friendly, guarded, show_flash
from rag_debugger.views.icons import MATERIAL
from rag_debugger.views.markdown_text import as_text, code_span, in_code
from rag_debugger.views.progress_html import progress_frame

ROLE_KEY = "pg_role"
QUESTION_KEY = "pg_question"
RESULT_KEY = "pg_result"
COMPARE_KEY = "pg_compare_result"
#: Demo categories whose run reaches each role's node (offline provider, bundled knowledge base).
ROLE_DEMOS = {
    "planner": ("complex",),
    "grader": ("answer", "rewrite_then_answer", "clarify", "scope_select"),
    "rewriter": ("rewrite_then_answer",),
    "answerer": ("answer", "rewrite_then_answer"),
}
ROLE_HELP = {
    "planner": N_("decides simple vs complex and plans sub-questions (not called on the local fast path)"),
    "grader": N_("grades the retrieved evidence and proposes a route"),
    "rewriter": N_("rewrites the question once (step-back or HyDE) when the grade asks for it"),
    "answerer": N_("writes the answer with numbered citations from the evidence of an `answer` route; offline "
                   "the answer is extractive (quoted from the evidence) and does not read this prompt"),
}
#: Display headings of the tables (the frames keep their data keys).
VERSION_HEADINGS = {"name": N_("name"), "date": N_("date"), "note": N_("note"), "active": N_("active")}
DIFF_HEADINGS = {"field": N_("field"), "kind": N_("kind")}


def widget_key(role: str) -> str:
    return f"pg_b_{role}"


def store_key(role: str) -> str:
    return f"pg_bstore_{role}"


def current_prompts() -> PromptSet:
    """Variant A: the configured prompt version, else the active one, else the built-in prompts
    (the same choice the step debugger makes)."""
    from rag.prompts import load_prompts

    settings = current_settings()
    return load_prompts(settings.prompt_version or "active")


def _versions_dir_note() -> str:
    from rag.prompts.versions import versions_dir

    return versions_dir().name  # the folder's name, not the server's path (RAG_PROMPT_DIR says where)


def template_b(role: str) -> str:
    """B as the user last typed it (the widget's fresh value first: a click may come with it)."""
    s = st.session_state
    if widget_key(role) in s:
        return s[widget_key(role)]
    return s.get(store_key(role), "")


def edited_prompt_set(base: PromptSet) -> PromptSet:
    """Every role's B edits (roles never edited keep A's text), named after nothing yet."""
    texts = {role: (template_b(role) if store_key(role) in st.session_state or widget_key(role) in st.session_state
                    else base.get(role)) for role in ROLES}
    return PromptSet(**texts, version="playground-B")


# ----- callbacks -------------------------------------------------------------------------------

def on_edit(role: str) -> None:
    st.session_state[store_key(role)] = st.session_state.get(widget_key(role), "")


def on_reset_b(role: str) -> None:
    text = guarded(lambda: current_prompts().get(role))
    if text is not None:
        st.session_state[store_key(role)] = text
        st.session_state.pop(widget_key(role), None)


def on_demo(question: str) -> None:
    st.session_state[QUESTION_KEY] = question


def on_run_ab() -> None:
    role = st.session_state.get(ROLE_KEY, ROLES[0])
    question = st.session_state.get(QUESTION_KEY, "")
    text = template_b(role)
    st.session_state[store_key(role)] = text
    st.session_state.pop(RESULT_KEY, None)

    def run() -> ABResult:
        validate_template(role, text)  # refused with its rule before anything runs
        return run_ab(question, role, text, settings=current_settings(), base_prompts=current_prompts())

    result = guarded(run)
    if result is not None:
        st.session_state[RESULT_KEY] = result


VERSION_KEY = "pg_version"
"""The one version picker: what Load into B, Set active and Compare act on."""
SAVED_KEY = "pg_saved_message"


def on_save() -> None:
    from rag.prompts.versions import save_version

    s = st.session_state

    def save():
        from rag_debugger.ui.streamlit_state import permit

        return save_version(s.get("pg_save_name", ""), edited_prompt_set(current_prompts()), s.get("pg_save_note", ""),
                            overwrite=bool(s.get("pg_save_overwrite")), permit=permit())

    info = guarded(save)
    if info is not None:  # said beside the Save button, where the eye is
        s[SAVED_KEY] = _("Saved prompt version “{name}” in {folder}.").format(name=as_text(info.name),
                                                                             folder=as_text(_versions_dir_note()))


def on_load() -> None:
    from rag.prompts.versions import load_version

    name = st.session_state.get(VERSION_KEY) or "default"
    prompts = guarded(load_version, name)
    if prompts is not None:
        for role in ROLES:
            st.session_state[store_key(role)] = prompts.get(role)
            st.session_state.pop(widget_key(role), None)
        flash("success", _("Loaded version “{name}” into variant B (every role).").format(name=as_text(name)))


def on_compare() -> None:
    from rag.prompts.versions import compare_versions

    a = st.session_state.get(VERSION_KEY) or "default"
    b = st.session_state.get("pg_cmp_b") or "default"
    diffs = guarded(compare_versions, a, b)
    if diffs is not None:
        st.session_state[COMPARE_KEY] = (a, b, diffs)


def on_set_active() -> None:
    from rag.prompts.versions import set_active

    name = st.session_state.get(VERSION_KEY) or "default"

    def activate() -> bool:
        from rag_debugger.ui.streamlit_state import permit

        set_active(name, permit=permit())  # the admins' (rag/access.py): refused here, not only by the button
        return True

    if guarded(activate):
        flash("success", _("Active prompt version: “{name}”. New debugger runs and variant A use it; outside the "
                           "app, RAG_PROMPT_VERSION=active follows it.").format(name=as_text(name)))


# ----- rendering ---------------------------------------------------------------------------------

def used_by(role: str) -> str:
    if FORK_NODES[role] == ANSWER_STEP:
        return _("used by the answer step after the graph (`{step}`)").format(step=ANSWER_STEP)
    return _("used by node `{node}`").format(node=FORK_NODES[role])


def render_editor(role: str, prompts: PromptSet) -> str:
    st.markdown(_("**{role}** — {what}; {used_by}.").format(
        role=as_text(role), what=_(ROLE_HELP[role]), used_by=used_by(role)))
    required = ", ".join(code_span("{" + v + "}") for v in sorted(REQUIRED_VARIABLES[role]))
    optional = ", ".join(code_span("{" + v + "}")
                         for v in sorted(ALLOWED_VARIABLES[role] - REQUIRED_VARIABLES[role])) or _("none")
    st.markdown(_("Input variables — required: {required} · optional: {optional}. Literal braces are written "
                  "{braces}.").format(required=required, optional=optional, braces="`{{` `}}`"))
    a_text = prompts.get(role)
    if store_key(role) not in st.session_state:
        st.session_state[store_key(role)] = a_text
    st.session_state[widget_key(role)] = st.session_state[store_key(role)]
    left, right = st.columns(2)
    with left:
        st.markdown(_("**Variant A — current** (version `{version}`)").format(version=in_code(prompts.version)))
        st.code(a_text, language="markdown", wrap_lines=True)
    with right:
        st.markdown(_("**Variant B — edit me**"))
        text = st.text_area(_("Variant B template"), key=widget_key(role), height=320, on_change=on_edit, args=(role,),
                            label_visibility="collapsed")
        try:
            names = validate_template(role, text)
        except PromptTemplateError as exc:
            st.error(_("Not runnable: {reason}").format(reason=as_text(exc)), icon=MATERIAL["invalid"])
        else:
            uses = ", ".join("{" + n + "}" for n in sorted(names))
            message = (_("Valid template (identical to A) — uses {variables}") if text == a_text
                       else _("Valid template — uses {variables}"))
            st.success(message.format(variables=as_text(uses)), icon=MATERIAL["valid"])
        st.button(_("Reset B to A"), key="pg_reset_b", on_click=on_reset_b, args=(role,))
    return text


def render_question(role: str) -> None:
    st.text_input(_("Question"), key=QUESTION_KEY, placeholder=_("A question whose run reaches the role's node"))
    demos = _demos()
    good = [d for d in demos if d.expected_route in ROLE_DEMOS[role]]
    if good:
        st.caption(_("Demo questions that reach `{node}`:").format(node=FORK_NODES[role]))
        cols = st.columns(min(len(good), 4))
        for i, demo in enumerate(good):
            cols[i % len(cols)].button(demo.display_label, key=f"pg_demo_{demo.id}", on_click=on_demo, args=(demo.question,),
                                       help=as_text(demo.question), width="stretch")


def _demos() -> list:
    try:
        from rag.demo import load_demo_questions

        return load_demo_questions()
    except Exception:  # noqa: BLE001 - demos are a convenience
        return []


def render_notes(result: ABResult) -> None:
    for hint in result.hints:
        if hint.kind == "offline":
            if result.role == "answerer":
                st.warning(_(
                    "**Offline, the answer is extractive**: it quotes the evidence and reads no prompt, so A and B "
                    "give the same answer. Connect an OpenAI-compatible endpoint on the **Settings** page (and use "
                    "“Test connection”) to compare what two answerer prompts write."), icon=MATERIAL["offline"])
            else:
                st.warning(_(
                    "**The offline rule-based provider ignores prompt text**, so A and B can only differ with a "
                    "model. Connect an OpenAI-compatible endpoint on the **Settings** page (and use “Test "
                    "connection”) to see what your edit changes."), icon=MATERIAL["offline"])
        elif hint.kind == "same":
            continue  # said once, below the two sides
        elif hint.kind == "failed":
            st.error(as_text(hint.text[:1].upper() + hint.text[1:]))
        elif hint.kind == "not_called" and result.role == "answerer" and any(h.kind == "offline" for h in result.hints):
            continue  # the offline warning above already says it
        else:
            st.info(as_text(hint.text[:1].upper() + hint.text[1:]))


def render_answer(answer: Optional[dict]) -> None:
    """One side's answer: how it was made, its text with `[n]` citations, and the cited chunks."""
    if not answer:
        st.caption(_("No answer."))
        return
    if answer.get("mode") == "extractive":
        st.markdown(_("**Extractive answer** — sentences quoted from the evidence; no model wrote this"))
    else:
        st.markdown(_("**Answer** — generated by `{model}` from the evidence").format(model=in_code(answer.get("model") or "?")))
    if answer.get("error"):
        st.warning(as_text(answer["error"]))
    if answer.get("text"):
        st.markdown(as_text(answer["text"]))
    for cite in answer.get("citations") or []:
        page = (" · " + _("page {page}").format(page=cite["page_number"])) if cite.get("page_number") is not None else ""
        st.caption(f"[{as_text(cite['n'])}] {as_text(cite.get('filename'))}{as_text(page)}")


def render_side(side: VariantResult, title: str, fork_node: str) -> None:
    with st.container(border=True, key=f"pg_side_{side.label.lower()}"):
        st.markdown(f"### {as_text(title)}")
        if side.error:
            st.error(_("This variant failed: {error}").format(error=as_text(side.error)))
        if fork_node == ANSWER_STEP:
            st.caption(ngettext("{n} call to the answering model", "{n} calls to the answering model",
                                side.role_calls).format(n=as_text(side.role_calls)))
            render_answer(side.role_output)
        else:
            route = side.route or "?"
            st.markdown(_("`{node}` decided `{decided}` → final **`{route}`** / `{status}`").format(
                node=in_code(fork_node), decided=in_code(side.decided_route or "—"), route=in_code(route),
                    status=in_code(side.retrieval_status)))
            st.caption(ngettext("{n} call to the role's model after the fork",
                                "{n} calls to the role's model after the fork",
                                    side.role_calls).format(n=as_text(side.role_calls)))
            st.markdown(_("**Structured output**"))
            st.json(side.role_output or {}, expanded=True)
        if side.progress:
            with st.expander(_("Progress after the fork ({n})").format(n=len(side.progress))):
                data_grid(progress_frame([p.model_dump() for p in side.progress]), hide_index=True, width="stretch")


def render_result(result: ABResult) -> None:
    st.markdown(_("### A/B result"))
    if result.fork_node == ANSWER_STEP:
        st.caption(_("“{question}” · role `{role}` · the graph ran once to the end (checkpoint `{checkpoint}`, "
                     "{n} progress steps); A and B answered from the same evidence.").format(
            question=as_text(result.question), role=in_code(result.role), checkpoint=in_code(result.fork_checkpoint_id),
            n=len(result.upstream_progress)))
    else:
        st.caption(_("“{question}” · role `{role}` · both variants started from checkpoint `{checkpoint}` before "
                     "`{node}` — upstream (retrieval included) ran once ({n} progress steps) and is identical for A "
                     "and B.").format(question=as_text(result.question), role=in_code(result.role),
                                      checkpoint=in_code(result.fork_checkpoint_id), node=in_code(result.fork_node),
                                      n=len(result.upstream_progress)))
    render_notes(result)
    left, right = st.columns(2)
    with left:
        render_side(result.a, _("A — current"), result.fork_node)
    with right:
        render_side(result.b, _("B — edited"), result.fork_node)
    if result.fork_node == ANSWER_STEP:
        st.markdown(_("#### What differs between the answers (A → B)"))
    else:
        st.markdown(_("#### What differs downstream (A → B)"))
    if result.diff:
        frame = diff_table(result.diff, max_chars=300).rename(columns={"before": "A", "after": "B"})
        data_grid(with_headings(frame, DIFF_HEADINGS), hide_index=True, width="stretch", key="pg_diff")
    elif result.fork_node == ANSWER_STEP:
        st.success(_("A and B gave the same answer."))
    else:
        st.success(_("A and B ended in the same state."))


def version_rows(versions: list, active: str) -> "pd.DataFrame":
    """The versions table: the built-in `default` first, then the saved ones; the active one marked, so the
    column is never empty while the page names an active version."""
    rows = [{"name": "default", "date": "—", "note": _("the built-in prompts"),
             "active": _("active") if active == "default" else ""}]
    rows += [{"name": v.name, "date": v.created_at.replace("T", " ")[:19], "note": v.note,
              "active": _("active") if v.name == active else ""} for v in versions]
    return pd.DataFrame(rows, columns=["name", "date", "note", "active"])


def render_versions(prompts: PromptSet) -> None:
    from rag.prompts.versions import get_active, list_versions

    st.divider()
    st.markdown(_("## Prompt versions"))
    st.caption(_("Versions are JSON files in `{folder}` (RAG_PROMPT_DIR), one line of a template per line of JSON, "
                 "so they diff in git.").format(folder=in_code(_versions_dir_note())))
    versions = list_versions()
    active = get_active() or "default"
    names = ["default"] + [v.name for v in versions]
    with st.container(border=True):
        st.markdown(_("**Save variant B** (every role's B text) as a version"))
        c1, c2, c3, c4 = st.columns([2, 4, 1, 1])
        c1.text_input(_("Name"), key="pg_save_name", placeholder=_("e.g. grader-strict"))
        c2.text_input(_("Note (one line)"), key="pg_save_note", placeholder=_("what changed and why"))
        c3.checkbox(_("Overwrite"), key="pg_save_overwrite")
        c4.button(_("Save"), icon=MATERIAL["save"], key="pg_save", on_click=on_save, width="stretch")
        saved = st.session_state.pop(SAVED_KEY, None)
        if saved:
            st.success(saved)
    data_grid(with_headings(version_rows(versions, active), VERSION_HEADINGS), hide_index=True, width="stretch",
              key="pg_versions")
    if not versions:
        st.caption(_("No saved versions yet."))
    st.caption(_("Active version: **{name}** (variant A and new debugger runs use it).").format(name=as_text(active)))
    if st.session_state.get(VERSION_KEY) not in names:
        st.session_state[VERSION_KEY] = active if active in names else "default"
    # one picker, three things to do with the version it names
    pick, load, activate, other, compare = st.columns([3, 2, 2, 3, 2], vertical_alignment="bottom")
    pick.selectbox(_("Version"), names, key=VERSION_KEY)
    load.button(_("Load into B"), key="pg_load", on_click=on_load, width="stretch")
    from rag_debugger.ui.streamlit_state import refusal

    refused = refusal("activate_prompt_version")
    activate.button(_("Set active"), key="pg_set_active", on_click=on_set_active, width="stretch",
                    disabled=bool(refused), help=refused or None)
    other.selectbox(_("Compare it with"), names, key="pg_cmp_b", index=min(1, len(names) - 1))
    compare.button(_("Compare"), key="pg_compare", on_click=on_compare, width="stretch")
    compared = st.session_state.get(COMPARE_KEY)
    if compared:
        a, b, diffs = compared
        st.markdown(f"**{as_text(a)} → {as_text(b)}**")
        for role in ROLES:
            if diffs.get(role):
                st.markdown(f"`{in_code(role)}`")
                st.code(diffs[role], language="diff")
            else:
                st.caption(_("{role}: identical").format(role=as_text(role)))


def render_page() -> None:
    st.title(MATERIAL["playground"] + " " + _("Prompt playground"))
    show_flash()
    try:
        prompts = current_prompts()
    except ValueError as exc:
        st.error(_("The active prompt version cannot be loaded: {reason}. Showing the built-in prompts.").format(
            reason=as_text(friendly(exc))))
        from rag.prompts.templates import load_default_prompts

        prompts = load_default_prompts()
    if not current_settings().models_configured():
        st.info(_("Offline mode: the rule-based provider does not read prompts and the answer is extractive. You "
                  "can edit, validate, version and fork here, but A and B only differ with a model connected "
                  "(Settings page)."), icon=MATERIAL["offline"])
    role = st.radio(_("Role"), ROLES, key=ROLE_KEY, horizontal=True,
                    format_func=lambda r: f"{r} ({FORK_NODES[r]})")
    render_editor(role, prompts)
    render_question(role)
    help_text = (_("Run the question to the end once, then answer with A and with B from the same evidence")
                 if role == "answerer" else _("Run upstream once, then A and B from the same checkpoint"))
    st.button(_("Run A/B"), icon=MATERIAL["compare"], key="pg_run", on_click=on_run_ab, type="primary",
              help=help_text)
    result: Optional[ABResult] = st.session_state.get(RESULT_KEY)
    if result is not None:
        if result.role != role:
            st.caption(_("Last result is for the {role} role.").format(role=as_text(result.role)))
        render_result(result)
    render_versions(prompts)
