"""The prompt playground: edit one role's prompt (variant B), run A and B from the same checkpoint,
compare outcomes side by side; save, load, compare and activate prompt versions.

Why the fork matters to the page: `rag.playground.run_ab` runs everything upstream of the role's
node once and starts both variants from that one checkpoint, so any difference shown here comes
from the prompt, not from retrieval or another model call.

Edits to B are kept per role outside the widget's own state (`pg_bstore_<role>`), because
Streamlit forgets a widget's value when a rerun does not draw it (switching roles would lose them).
"""
from __future__ import annotations

from typing import Optional

import pandas as pd
import streamlit as st

from debugger import diff_table
from rag.playground import FORK_NODES, ABResult, VariantResult, run_ab
from rag.prompts import (
    ALLOWED_VARIABLES,
    REQUIRED_VARIABLES,
    ROLES,
    PromptSet,
    PromptTemplateError,
    validate_template,
)
from ui.panels.icons import MATERIAL
from ui.panels.progress import progress_frame
from ui.streamlit_state import current_settings, flash, friendly, guarded, show_flash
from ui.text import as_text

ROLE_KEY = "pg_role"
QUESTION_KEY = "pg_question"
RESULT_KEY = "pg_result"
COMPARE_KEY = "pg_compare_result"
#: Demo categories whose run reaches each role's node (offline provider, bundled knowledge base).
ROLE_DEMOS = {
    "planner": ("complex",),
    "grader": ("answer", "rewrite_then_answer", "clarify", "scope_select"),
    "rewriter": ("rewrite_then_answer",),
}
ROLE_HELP = {
    "planner": "decides simple vs complex and plans sub-questions (not called on the local fast path)",
    "grader": "grades the retrieved evidence and proposes a route",
    "rewriter": "rewrites the question once (step-back or HyDE) when the grade asks for it",
}


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

    return str(versions_dir())


def template_b(role: str) -> str:
    """B as the user last typed it (the widget's fresh value first: a click may come with it)."""
    s = st.session_state
    if widget_key(role) in s:
        return s[widget_key(role)]
    return s.get(store_key(role), "")


def edited_prompt_set(base: PromptSet) -> PromptSet:
    """All three roles' B edits (roles never edited keep A's text), named after nothing yet."""
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


def on_save() -> None:
    from rag.prompts.versions import save_version

    s = st.session_state

    def save():
        return save_version(s.get("pg_save_name", ""), edited_prompt_set(current_prompts()), s.get("pg_save_note", ""),
                            overwrite=bool(s.get("pg_save_overwrite")))

    info = guarded(save)
    if info is not None:
        flash("success", f"Saved prompt version “{info.name}” in {_versions_dir_note()}.")


def on_load() -> None:
    from rag.prompts.versions import load_version

    name = st.session_state.get("pg_load_choice") or "default"
    prompts = guarded(load_version, name)
    if prompts is not None:
        for role in ROLES:
            st.session_state[store_key(role)] = prompts.get(role)
            st.session_state.pop(widget_key(role), None)
        flash("success", f"Loaded version “{name}” into variant B (all three roles).")


def on_compare() -> None:
    from rag.prompts.versions import compare_versions

    a = st.session_state.get("pg_cmp_a") or "default"
    b = st.session_state.get("pg_cmp_b") or "default"
    diffs = guarded(compare_versions, a, b)
    if diffs is not None:
        st.session_state[COMPARE_KEY] = (a, b, diffs)


def on_set_active() -> None:
    from rag.prompts.versions import set_active

    name = st.session_state.get("pg_active_choice") or "default"

    def activate() -> bool:
        set_active(name)
        return True

    if guarded(activate):
        flash("success", f"Active prompt version: “{name}”. New debugger runs and variant A use it; outside the app, "
                         "RAG_PROMPT_VERSION=active follows it.")


# ----- rendering ---------------------------------------------------------------------------------

def render_editor(role: str, prompts: PromptSet) -> str:
    st.markdown(f"**{role}** — {ROLE_HELP[role]}; used by node `{FORK_NODES[role]}`.")
    required = ", ".join(f"`{{{v}}}`" for v in sorted(REQUIRED_VARIABLES[role]))
    optional = ", ".join(f"`{{{v}}}`" for v in sorted(ALLOWED_VARIABLES[role] - REQUIRED_VARIABLES[role])) or "none"
    st.markdown(f"Input variables — required: {required} · optional: {optional}. Literal braces are written `{{{{` `}}}}`.")
    a_text = prompts.get(role)
    if store_key(role) not in st.session_state:
        st.session_state[store_key(role)] = a_text
    st.session_state[widget_key(role)] = st.session_state[store_key(role)]
    left, right = st.columns(2)
    with left:
        st.markdown(f"**Variant A — current** (version `{prompts.version}`)")
        st.code(a_text, language="markdown", wrap_lines=True)
    with right:
        st.markdown("**Variant B — edit me**")
        text = st.text_area("Variant B template", key=widget_key(role), height=320, on_change=on_edit, args=(role,),
                            label_visibility="collapsed")
        try:
            names = validate_template(role, text)
        except PromptTemplateError as exc:
            st.error(f"Not runnable: {exc}", icon=MATERIAL["invalid"])
        else:
            same = " (identical to A)" if text == a_text else ""
            st.success(f"Valid template{same} — uses {', '.join('{' + n + '}' for n in sorted(names))}", icon=MATERIAL["valid"])
        st.button("Reset B to A", key="pg_reset_b", on_click=on_reset_b, args=(role,))
    return text


def render_question(role: str) -> None:
    st.text_input("Question", key=QUESTION_KEY, placeholder="A question whose run reaches the role's node")
    demos = _demos()
    good = [d for d in demos if d.expected_route in ROLE_DEMOS[role]]
    if good:
        st.caption(f"Demo questions that reach `{FORK_NODES[role]}`:")
        cols = st.columns(min(len(good), 4))
        for i, demo in enumerate(good):
            cols[i % len(cols)].button(demo.display_label, key=f"pg_demo_{demo.id}", on_click=on_demo, args=(demo.question,),
                                       help=demo.question, width="stretch")


def _demos() -> list:
    try:
        from rag.demo import load_demo_questions

        return load_demo_questions()
    except Exception:  # noqa: BLE001 - demos are a convenience
        return []


def render_notes(result: ABResult) -> None:
    for note in result.notes:
        if "offline" in note:
            st.warning(
                "**The offline rule-based provider ignores prompt text**, so A and B can only differ with a model. "
                "Connect an OpenAI-compatible endpoint on the **Settings** page (and use “Test connection”) to see "
                "what your edit changes.", icon=MATERIAL["offline"],
            )
        elif "ended in the same state" in note:
            continue  # said once, below the two sides
        elif "failed" in note:
            st.error(note[:1].upper() + note[1:])
        else:
            st.info(note[:1].upper() + note[1:])


def render_side(side: VariantResult, title: str, fork_node: str) -> None:
    with st.container(border=True, key=f"pg_side_{side.label.lower()}"):
        st.markdown(f"### {title}")
        if side.error:
            st.error(f"This variant failed: {as_text(side.error)}")
        route = side.route or "?"
        st.markdown(f"`{fork_node}` decided `{side.decided_route or '—'}` → final **`{route}`** / "
                    f"`{side.retrieval_status}`")
        st.caption(f"{side.role_calls} call(s) to the role's model after the fork")
        st.markdown("**Structured output**")
        st.json(side.role_output or {}, expanded=True)
        if side.progress:
            with st.expander(f"Progress after the fork ({len(side.progress)})"):
                st.dataframe(progress_frame([p.model_dump() for p in side.progress]), hide_index=True, width="stretch")


def render_result(result: ABResult) -> None:
    st.markdown("### A/B result")
    st.caption(f"“{as_text(result.question)}” · role `{result.role}` · both variants started from checkpoint "
               f"`{result.fork_checkpoint_id}` before `{result.fork_node}` — upstream (retrieval included) ran once "
               f"({len(result.upstream_progress)} progress steps) and is identical for A and B.")
    render_notes(result)
    left, right = st.columns(2)
    with left:
        render_side(result.a, "A — current", result.fork_node)
    with right:
        render_side(result.b, "B — edited", result.fork_node)
    st.markdown("#### What differs downstream (A → B)")
    if result.diff:
        frame = diff_table(result.diff, max_chars=300).rename(columns={"before": "A", "after": "B"})
        st.dataframe(frame, hide_index=True, width="stretch", key="pg_diff")
    else:
        st.success("A and B ended in the same state.")


def render_versions(prompts: PromptSet) -> None:
    from rag.prompts.versions import get_active, list_versions

    st.divider()
    st.markdown("## Prompt versions")
    st.caption(f"Versions are JSON files in `{_versions_dir_note()}` (RAG_PROMPT_DIR), one line of a template per "
               "line of JSON, so they diff in git.")
    versions = list_versions()
    active = get_active() or "default"
    names = ["default"] + [v.name for v in versions]
    with st.container(border=True):
        st.markdown("**Save variant B** (all three roles' B texts) as a version")
        c1, c2, c3, c4 = st.columns([2, 4, 1, 1])
        c1.text_input("Name", key="pg_save_name", placeholder="e.g. grader-strict")
        c2.text_input("Note (one line)", key="pg_save_note", placeholder="what changed and why")
        c3.checkbox("Overwrite", key="pg_save_overwrite")
        c4.button("Save", icon=MATERIAL["save"], key="pg_save", on_click=on_save, width="stretch")
    if versions:
        rows = [{"name": v.name, "date": v.created_at.replace("T", " ")[:19], "note": v.note,
                 "active": "active" if v.name == active else ""} for v in versions]
        st.dataframe(pd.DataFrame(rows, columns=["name", "date", "note", "active"]), hide_index=True,
                     width="stretch", key="pg_versions")
    else:
        st.caption("No saved versions yet.")
    st.caption(f"Active version: **{active}** (variant A and new debugger runs use it).")
    c1, c2 = st.columns(2)
    with c1:
        st.selectbox("Version", names, key="pg_load_choice")
        b1, b2 = st.columns(2)
        b1.button("Load into B", key="pg_load", on_click=on_load, width="stretch")
        st.selectbox("Active version", names, key="pg_active_choice", index=names.index(active) if active in names else 0)
        b2.button("Set active", key="pg_set_active", on_click=on_set_active, width="stretch")
    with c2:
        d1, d2 = st.columns(2)
        d1.selectbox("Compare", names, key="pg_cmp_a")
        d2.selectbox("with", names, key="pg_cmp_b", index=min(1, len(names) - 1))
        st.button("Compare", key="pg_compare", on_click=on_compare)
    compared = st.session_state.get(COMPARE_KEY)
    if compared:
        a, b, diffs = compared
        st.markdown(f"**{a} → {b}**")
        for role in ROLES:
            if diffs.get(role):
                st.markdown(f"`{role}`")
                st.code(diffs[role], language="diff")
            else:
                st.caption(f"{role}: identical")


def render_page() -> None:
    st.title(f"{MATERIAL['playground']} Prompt playground")
    show_flash()
    try:
        prompts = current_prompts()
    except ValueError as exc:
        st.error(f"The active prompt version cannot be loaded: {friendly(exc)}. Showing the built-in prompts.")
        from rag.prompts import load_default_prompts

        prompts = load_default_prompts()
    if not current_settings().models_configured():
        st.info("Offline mode: the rule-based provider does not read prompts. You can edit, validate, version and "
                "fork here, but A and B only differ with a model connected (Settings page).", icon=MATERIAL["offline"])
    role = st.radio("Role", ROLES, key=ROLE_KEY, horizontal=True,
                    format_func=lambda r: f"{r} ({FORK_NODES[r]})")
    render_editor(role, prompts)
    render_question(role)
    st.button("Run A/B", icon=MATERIAL["compare"], key="pg_run", on_click=on_run_ab, type="primary",
              help="Run upstream once, then A and B from the same checkpoint")
    result: Optional[ABResult] = st.session_state.get(RESULT_KEY)
    if result is not None:
        if result.role != role:
            st.caption(f"Last result is for the {result.role} role.")
        render_result(result)
    render_versions(prompts)
