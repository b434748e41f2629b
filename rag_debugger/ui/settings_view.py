"""Settings of this browser session: model provider, endpoint, key, knowledge base, retrieval knobs.

The key is a password field that is never pre-filled or echoed; it is kept in this session's
memory only (not written to disk, not logged, not exported).
"""
from __future__ import annotations

import streamlit as st
from pydantic import SecretStr, ValidationError

from rag.i18n import N_, _
from rag.i18n.formatting import duration_ms
from rag.models.call_limits import DEFAULT_MAX_TOKENS
from rag.redaction import redact_url
from rag.settings import (
    MAX_TOKENS_ROLES,
    OFFLINE_PROVIDER,
    endpoint_problem,
    is_really_set,
    model_settings_locked,
    session_settings,
    uses_foreign_endpoint_without_key,
)
from rag_debugger.ui.language import in_this_language
from rag_debugger.ui.streamlit_state import (
    PERSON_KEY,
    current_settings,
    flash,
    get_session,
    settings_overrides,
    show_flash,
    signed_in_email,
)
from rag_debugger.views.icons import MATERIAL
from rag_debugger.views.markdown_text import as_text, in_code

METHODS = ["json_schema", "function_calling", "json_mode"]
BUNDLED_KB = N_("Bundled demo knowledge base (zh/en)")
PYDOC_KB = N_("Python language reference (pydoc topics, stdlib)")
NAMED_KB = "Knowledge base: "
"""The knowledge base picker's options are these English labels (stable across languages, so a choice
survives switching language); `kb_option_label` shows them in the reader's language."""


def kb_option_label(option: str) -> str:
    if option.startswith(NAMED_KB):
        return _("Knowledge base: {name}").format(name=option[len(NAMED_KB):])
    return _(option)


def _apply(changes: dict) -> bool:
    overrides = dict(settings_overrides())
    overrides.update(changes)
    try:
        settings = session_settings(overrides)
    except ValidationError as exc:
        err = exc.errors()[0]
        flash("error", _("Not saved: {field}: {problem}").format(field=as_text(".".join(str(p) for p in err["loc"])),
                                                                 problem=as_text(err["msg"])))
        return False
    st.session_state["settings_overrides"] = overrides
    get_session().settings = settings
    return True


def _typed_model_changes() -> tuple[dict, str]:
    """The model settings as typed in the form (submitted or not yet saved), and why they cannot be used
    ("" when they can). The key field is emptied: a typed key is never kept in a widget."""
    s = st.session_state
    base_url = (s.get("set_base_url") or "").strip() or None
    current = current_settings().openai_base_url
    if base_url and base_url == redact_url(current):
        base_url = current  # the field shows the URL without its credentials: unchanged means keep them
    key = s.get("set_api_key", "")
    s["set_api_key"] = ""
    problem = endpoint_problem(base_url) if base_url != current else None
    if problem:
        return {}, problem
    changes = {
        "model_provider": s.get("set_provider", "auto"),
        "openai_base_url": base_url,
        "fast_model": (s.get("set_fast_model") or "").strip() or "gpt-4o-mini",
        "grade_model": (s.get("set_grade_model") or "").strip() or "gpt-4o-mini",
        "structured_output_method": s.get("set_method", "json_schema"),
        "model_timeout_seconds": float(s.get("set_timeout", 30.0)),
        "model_max_retries": int(s.get("set_retries", 2)),
        "model_concurrency": int(s["set_concurrency"]) if s.get("set_concurrency") else None,
    }
    for role in MAX_TOKENS_ROLES:
        value = s.get(f"set_max_tokens_{role}")
        changes[f"max_tokens_{role}"] = int(value) if value and int(value) != DEFAULT_MAX_TOKENS[role] else None
    if key:
        changes["openai_api_key"] = SecretStr(key)
    return changes, ""


def _save_model() -> None:
    if model_settings_locked():  # the form is read-only; a forged submit changes nothing either
        st.session_state["set_api_key"] = ""
        flash("warning", _("The model settings are locked on this server (RAG_LOCK_MODEL_SETTINGS)."))
        return
    changes, problem = _typed_model_changes()
    if problem:
        flash("error", _("Not saved: {problem}.").format(problem=as_text(problem)))
        return
    if _apply(changes):
        st.session_state.pop("tested_changes", None)
        flash("success", _("Model settings saved for this browser session. New runs use them."))


def _forget_key() -> None:
    if model_settings_locked():
        return
    if _apply({"openai_api_key": None}):
        flash("info", _("The API key was removed from this session."))


def _save_retrieval() -> None:
    s = st.session_state
    if _apply({
        "kb_dir": _knowledge_bases().get(s["set_kb_label"]) or None,
        "top_k": int(s["set_top_k"]),
        "dense_enabled": bool(s["set_dense"]),
        "auto_merge_enabled": bool(s["set_merge"]),
        "min_score": float(s["set_min_score"]) if s["set_min_score"] else None,
    }):
        flash("success", _("Retrieval settings saved. New runs use them."))


def _test_connection() -> None:
    """Test what is typed in the form, saved or not: the page's settings with the typed ones over them,
    under the same rules as a save (the server's key goes only to the server's endpoint; locked settings
    are the server's)."""
    try:
        from rag.models.connection import test_connection
    except ImportError:
        flash("warning", _("The connection test is not available in this build."))
        return
    if model_settings_locked():
        st.session_state["set_api_key"] = ""
        changes: dict = {}
    else:
        changes, problem = _typed_model_changes()
        if problem:
            flash("error", _("Not tested: {problem}.").format(problem=as_text(problem)))
            return
    try:
        settings = session_settings({**settings_overrides(), **changes})
    except ValidationError as exc:
        err = exc.errors()[0]
        flash("error", _("Not tested: {field}: {problem}").format(field=as_text(".".join(str(p) for p in err["loc"])),
                                                                  problem=as_text(err["msg"])))
        return
    if not is_really_set(settings.openai_api_key) and not is_really_set(settings.openai_base_url):
        flash("warning", _("Type a base URL (and an API key if the endpoint needs one) first."))
        return
    with st.spinner(_("Sending one structured call…")):
        report = test_connection(settings)
    st.session_state["connection_report"] = report.model_dump() | {"switch_method": report.switch_method}
    st.session_state["tested_changes"] = changes  # "Save the tested settings" saves exactly these


def _use_method(method: str) -> None:
    if model_settings_locked():
        return
    changes = dict(st.session_state.get("tested_changes") or {})
    changes["structured_output_method"] = method
    if _apply(changes):
        st.session_state["set_method"] = method
        st.session_state.pop("tested_changes", None)
        report = st.session_state.get("connection_report") or {}
        report["switch_method"] = None
        flash("success", _("This session now uses {method} (and the settings tested). To make it the server's "
                           "default, set RAG_STRUCTURED_OUTPUT_METHOD={method} in its environment.").format(
                               method=as_text(method)))


def provider_choice(value: str) -> str:
    """The provider choice as the rest of the page names it: the environment's `offline` is shown as the
    provider it runs (`rag.settings.OFFLINE_PROVIDER`), the name the active provider and the sidebar use."""
    return OFFLINE_PROVIDER if value == "offline" else value


def render_page() -> None:
    st.title(f"{MATERIAL['settings']} " + _("Settings"))
    show_flash()
    settings = current_settings()
    st.markdown("**" + _("Active provider:") + f"** `{in_code(settings.provider_label())}`")
    if not settings.models_configured():
        st.info(_("Running on `{provider}`, the rule-based provider: deterministic rules stand in for the planner, "
                  "grader and rewriter. Everything works without a key or network; connect a model below for real "
                  "grading.").format(provider=in_code(OFFLINE_PROVIDER)), icon=MATERIAL["offline"])

    locked = model_settings_locked()
    with st.form("model_form"):
        st.subheader(_("Model (OpenAI-compatible)"))
        if locked:
            st.info(_("The model settings are locked on this server (RAG_LOCK_MODEL_SETTINGS=1): every session uses "
                      "the server's endpoint, models and key. They are shown here read-only."), icon=MATERIAL["lock"])
        elif uses_foreign_endpoint_without_key(settings_overrides()):
            st.warning(_("This base URL is not the server's endpoint, so the server's API key is not sent to it. "
                         "Type a key for this endpoint, or clear the base URL to use the server's endpoint."))
        st.selectbox(_("Provider"), ["auto", "offline", "openai"], key="set_provider", format_func=provider_choice,
                     index=["auto", "offline", "openai"].index(settings.model_provider),
                     help=_("auto = the model when a key is set, else {offline}. In the server's environment: "
                            "RAG_MODEL_PROVIDER=auto, offline or openai").format(offline=OFFLINE_PROVIDER),
                     disabled=locked)
        st.text_input(_("Base URL"), key="set_base_url", value=redact_url(settings.openai_base_url) or "",
                      placeholder=_("https://api.openai.com/v1 or http://localhost:8000/v1"), disabled=locked,
                      help=_("The API root, without a query string. The server's own key is sent only to the "
                             "server's own endpoint: for another one, type its key below."))
        st.text_input(_("API key"), key="set_api_key", type="password", value="", disabled=locked,
                      placeholder=_("set — type to replace") if is_really_set(settings.openai_api_key) else _("not set"))
        c1, c2 = st.columns(2)
        c1.text_input(_("FAST_MODEL (planner, rewriter)"), key="set_fast_model", value=settings.fast_model,
                      disabled=locked)
        c2.text_input(_("GRADE_MODEL (grader)"), key="set_grade_model", value=settings.grade_model, disabled=locked)
        c1, c2, c3 = st.columns(3)
        c1.selectbox(_("Structured output method"), METHODS, key="set_method",
                     index=METHODS.index(settings.structured_output_method), disabled=locked)
        c2.number_input(_("Timeout (s)"), key="set_timeout", min_value=1.0, max_value=600.0,
                        value=float(settings.model_timeout_seconds), disabled=locked)
        c3.number_input(_("Retries"), key="set_retries", min_value=0, max_value=10,
                        value=int(settings.model_max_retries), disabled=locked)
        _render_bounds(settings, locked)
        c1, c2 = st.columns(2)
        c1.form_submit_button(_("Save model settings"), on_click=_save_model, type="primary", disabled=locked)
        c2.form_submit_button(_("Test connection"), key="test_connection", on_click=_test_connection,
                              help=_("Tests what is typed above, saved or not"))
    st.button(_("Forget API key"), key="forget_key", on_click=_forget_key,
              disabled=locked or not is_really_set(settings.openai_api_key))
    _render_report(locked)

    with st.form("retrieval_form"):
        st.subheader(_("Knowledge base and retrieval"))
        kbs = _knowledge_bases()
        current = str(settings.kb_dir) if settings.kb_dir else ""
        labels = list(kbs)
        st.selectbox(_("Knowledge base"), labels, key="set_kb_label", format_func=in_this_language(kb_option_label),
                     index=[kbs[x] for x in labels].index(current) if current in kbs.values() else 0)
        c1, c2, c3, c4 = st.columns(4)
        c1.number_input("top_k", key="set_top_k", min_value=1, max_value=50, value=settings.top_k)
        c2.checkbox(_("Dense leg (embeddings)"), key="set_dense", value=settings.dense_enabled)
        c3.checkbox(_("Auto-merge"), key="set_merge", value=settings.auto_merge_enabled)
        c4.text_input(_("Min score"), key="set_min_score",
                      value="" if settings.min_score is None else str(settings.min_score))
        st.form_submit_button(_("Save retrieval settings"), on_click=_save_retrieval)
    render_person()
    from rag_debugger.ui.telemetry_view import render_telemetry

    render_telemetry()
    with st.expander(_("All effective settings (secrets hidden)")):
        st.json(settings.public_dict())


def _render_bounds(settings, locked: bool) -> None:
    """Each role's reply cap and the calls in flight per endpoint (docs/models.md says why the defaults)."""
    from rag.models.call_limits import concurrency_for, max_tokens_for

    st.caption(_("Bounds of every call: the timeout is one role call's whole budget, retries included; a reply "
                 "cut at its token cap is retried once with twice the cap."))
    caps = settings.max_tokens_settings()
    cols = st.columns(len(MAX_TOKENS_ROLES) + 1)
    for col, role in zip(cols, MAX_TOKENS_ROLES, strict=False):
        col.number_input(_("Max tokens: {role}").format(role=as_text(role)), key=f"set_max_tokens_{role}", min_value=16,
                         max_value=65536, step=64, value=max_tokens_for(role, caps), disabled=locked,
                         help=_("RAG_MAX_TOKENS_{ROLE}; default {default}").format(ROLE=as_text(role.upper()),
                                                                                  default=DEFAULT_MAX_TOKENS[role]))
    cols[-1].number_input(_("Parallel calls"), key="set_concurrency", min_value=1, max_value=64,
                          value=concurrency_for(settings.openai_base_url, settings.model_concurrency), disabled=locked,
                          help=_("RAG_MODEL_CONCURRENCY; default 4 for a cloud endpoint, 1 for a server on this "
                                 "machine (it answers one request at a time)"))


def _render_report(locked: bool) -> None:
    report = st.session_state.get("connection_report")
    if not report:
        return
    if report.get("ok"):
        latency = report.get("latency_ms")
        st.success(_("Connected in {duration} with method `{method}` (model {model}).").format(
            duration=duration_ms(latency) if isinstance(latency, (int, float)) else "?",
            method=in_code(report.get("method")), model=as_text(report.get("model"))))
    else:
        st.error(f"{as_text(report.get('error_kind'))}: {as_text(report.get('message'))}")
    failed = [a for a in report.get("attempts") or [] if not a.get("ok")]
    if failed and report.get("ok"):
        st.caption("; ".join(f"{as_text(a.get('method'))}: {as_text(a.get('message'))}" for a in failed))
    if report.get("suggestion"):
        st.info(report["suggestion"])
    method = report.get("switch_method")
    if method and not locked:
        st.button(_("Use {method} for this session").format(method=as_text(method)), key="use_tested_method",
                  on_click=_use_method, args=(method,), type="primary")


def _save_person() -> None:
    name = " ".join(str(st.session_state.get("set_run_by") or "").split())[:200]
    st.session_state[PERSON_KEY] = name
    flash("success", _("Your runs are now recorded as {person}.").format(person=as_text(name)) if name else
          _("Your runs are now recorded without a name."))


def render_person() -> None:
    """Who this browser session's runs are recorded by: the signed-in user when the app has a login
    (`st.login`), else a name typed here (this browser session only, like the other settings)."""
    st.subheader(_("Who is running"))
    email = signed_in_email()
    if email:
        st.caption(_("Signed in as **{person}**: your runs are recorded under that name.").format(person=as_text(email)))
        return
    st.text_input(_("Your name (recorded with your runs; the Run history page filters by it)"), key="set_run_by",
                  value=str(st.session_state.get(PERSON_KEY) or ""), max_chars=200, on_change=_save_person,
                  placeholder=_("e.g. Ana — leave empty to record runs without a name"))


def _knowledge_bases() -> dict[str, str]:
    """Label → kb_dir ("" = the bundled demo knowledge base)."""
    kbs = {BUNDLED_KB: ""}
    try:
        from rag.ingest.pydoc_corpus import pydoc_corpus_dir

        kbs[PYDOC_KB] = str(pydoc_corpus_dir())
    except Exception:  # noqa: BLE001 - optional corpus
        pass
    try:
        from rag.ingest.kbs import kb_folders, list_kbs

        for name in list_kbs():  # created on the Knowledge bases page
            kbs[f"{NAMED_KB}{name}"] = str(kb_folders(name).docs)
    except Exception:  # noqa: BLE001 - a broken cache folder must not hide the settings
        pass
    return kbs
