"""The Knowledge bases page: create a named knowledge base, upload documents (or a zip of them),
watch the ingestion, see what each file became, delete a file, and point the debugger at it.

The work happens in `rag.ingest` (names, safe uploads, the background job registry); this page only
draws it. Ingestion runs in a thread of the server, not of this script run, so the page polls the
job with a fragment that reruns itself every half second while the job is active, and finds the job
again by the knowledge base's name after a reload.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rag import kb_jobs
from rag.errors import UserFixableError
from rag.i18n import N_, _, current_language, ngettext
from rag.i18n.formatting import duration_ms
from rag.ingest.kbs import create_kb, delete_document, existing_kb, file_rows, list_kbs
from rag.ingest.models import SkippedFile
from rag.ingest.owners import read_owner
from rag.ingest.paths import kb_label, kbs_root, named_kb_of
from rag.ingest.uploads import UPLOAD_SUFFIXES, UploadLimits, folder_bytes, save_document
from rag.ingest.words import translate_ingest
from rag_debugger.ui import streamlit_state
from rag_debugger.ui.grids import data_grid
from rag_debugger.ui.streamlit_state import apply_overrides, current_settings, flash, friendly, guarded, show_flash
from rag_debugger.views.icons import MATERIAL
from rag_debugger.views.markdown_text import as_text

SELECTED_KEY = "kb_selected"
NEW_NAME_KEY = "kb_new_name"
UPLOAD_ROUND_KEY = "kb_upload_round"  # a new uploader key after each upload empties the widget
WATCHING_KEY = "kb_watching_job"      # the job this page saw running, to refresh once it ends
DELETE_FILE_KEY = "kb_delete_file"
POLL_SECONDS = 0.5
UPLOAD_LIMIT_MB = 50

STAGE_LABELS = {"waiting": N_("waiting"), "parsing": N_("parsing"), "chunking": N_("chunking"),
                "embedding": N_("embedding"), "ingested": N_("ingested"), "unchanged": N_("unchanged"),
                "skipped": N_("skipped"), "removed": N_("removed"), "refused": N_("refused at upload")}
"""A file's stage (data key) -> its label, translated where it is shown."""
FILE_COLUMNS = {"file": N_("file"), "status": N_("status"), "chunks": N_("chunks"), "reason": N_("reason")}
"""The files table's data keys (tests read them) -> the headings people see."""


def _stage(stage: str) -> str:
    return _(STAGE_LABELS[stage]) if stage in STAGE_LABELS else translate_ingest(stage)


def _joined(parts: list[str]) -> str:
    return ("，" if current_language() == "zh" else ", ").join(parts)


def login_configured() -> bool:
    return streamlit_state.login_configured()


def _may_delete(name: str) -> bool:
    return streamlit_state.permit().allows("delete_kb", read_owner(existing_kb(name).root))


def _uploader_key() -> str:
    return f"kb_upload_{st.session_state.get(UPLOAD_ROUND_KEY, 0)}"


# ----- callbacks (run before the script body, so the page draws the new state) --------------

def _on_create() -> None:
    def create():
        folders = create_kb(st.session_state.get(NEW_NAME_KEY, ""), owner=streamlit_state.signed_in_email(),
                            permit=streamlit_state.permit())
        st.session_state[SELECTED_KEY] = folders.name
        st.session_state[NEW_NAME_KEY] = ""
        flash("success", _("Knowledge base **{name}** created. Upload documents to it below.").format(name=as_text(folders.name)))
    guarded(create)


def _on_upload(name: str) -> None:
    files = st.session_state.get(_uploader_key()) or []
    st.session_state[UPLOAD_ROUND_KEY] = st.session_state.get(UPLOAD_ROUND_KEY, 0) + 1
    if not files:
        flash("warning", _("Choose one or more files first."))
        return

    def upload():
        folders = existing_kb(name)
        kb_jobs.require_change(folders.name, streamlit_state.permit())  # before a byte is written
        if kb_jobs.is_busy(folders.name):
            flash("warning", _("**{name}** is being ingested; upload again when it finishes.").format(name=as_text(folders.name)))
            return
        used = folder_bytes(folders.docs)
        total = folder_bytes(kbs_root())  # every knowledge base's documents, chunks and vectors
        limits = UploadLimits.from_env()
        written: list[str] = []
        refused: list[SkippedFile] = []
        for f in files:
            saved = save_document(folders.docs, f.name, f.getvalue(), limits, used_bytes=used, total_used=total)
            written += saved.written
            refused += saved.skipped
            if saved.written:
                used, total = folder_bytes(folders.docs), folder_bytes(kbs_root())
        kb_jobs.start_ingest(folders.name, current_settings(), rejected=refused, permit=streamlit_state.permit())
        note = (" " + ngettext("{n} refused (see the table).", "{n} refused (see the table).",
                               len(refused)).format(n=len(refused))) if refused else ""
        flash("info", ngettext("Saved {n} file; ingestion started.", "Saved {n} files; ingestion started.",
                               len(written)).format(n=len(written)) + as_text(note))
    guarded(upload)


def _on_delete_file(name: str) -> None:
    filename = st.session_state.get(DELETE_FILE_KEY)
    if not filename:
        return

    def delete():
        if kb_jobs.is_busy(name):
            flash("warning", _("Wait for the ingestion to finish before deleting a file."))
            return
        if not streamlit_state.permit().allows("change_kb", read_owner(existing_kb(name).root)):
            flash("warning",
                _("Only the creator of **{name}** or an administrator can delete its files.").format(name=as_text(name)))
            return
        delete_document(name, filename)
        st.session_state[DELETE_FILE_KEY] = None
        kb_jobs.start_ingest(name, current_settings(), permit=streamlit_state.permit())
        flash("info", _("Deleted **{file}**; its chunks leave the index with this ingestion.").format(file=as_text(filename)))
    guarded(delete)


def _on_cancel(name: str) -> None:
    if kb_jobs.cancel_ingest(name):
        flash("info", _("Cancelling: the file in hand is finished, the files done stay searchable."))


def _on_reingest(name: str) -> None:
    guarded(kb_jobs.start_ingest, name, current_settings(), permit=streamlit_state.permit())


def _on_delete_kb(name: str) -> None:
    if not st.session_state.get("kb_delete_confirm"):
        flash("warning", _("Tick the box first: deleting a knowledge base cannot be undone."))
        return

    def delete():
        settings = current_settings()
        kb_jobs.delete_knowledge_base(name, settings, login=login_configured(),
                                   person=streamlit_state.signed_in_email(), permit=streamlit_state.permit())
        if settings.kb_dir is not None and named_kb_of(settings.kb_dir) == name:
            apply_overrides({"kb_dir": None})
        st.session_state.pop(SELECTED_KEY, None)
        st.session_state["kb_delete_confirm"] = False
        flash("success", _("Knowledge base **{name}** deleted.").format(name=as_text(name)))
    guarded(delete)


def _on_use(name: str) -> None:
    def use():
        folders = existing_kb(name)
        apply_overrides({"kb_dir": str(folders.docs)})
        flash("success", _("The debugger now searches **{name}** (in this browser session).").format(name=as_text(folders.name)))
    guarded(use)


def _on_use_bundled() -> None:
    apply_overrides({"kb_dir": None})
    flash("success", _("The debugger searches the bundled demo knowledge base again."))


# ----- drawing ---------------------------------------------------------------------------------

def _summary(state: kb_jobs.JobState) -> str:
    report = state.report
    if state.status == "failed":
        return _("Ingestion failed: {error}").format(error=state.error)
    if report is None:
        return _stage(state.stage)
    if state.status == "cancelled":
        return ngettext("Ingestion cancelled: {done} file ingested before it stopped; the others wait for the next "
                        "ingestion.", "Ingestion cancelled: {done} files ingested before it stopped; the others wait "
                        "for the next ingestion.", len(report.ingested)).format(done=len(report.ingested))
    parts = [_("{n} ingested").format(n=len(report.ingested)), _("{n} unchanged").format(n=len(report.unchanged)),
             _("{n} skipped").format(n=len(report.skipped) + len(state.rejected))]
    if report.removed:
        parts.append(_("{n} removed").format(n=len(report.removed)))
    parts.append(ngettext("{n} chunk embedded", "{n} chunks embedded", report.embedded).format(n=report.embedded))
    if state.index_sync is not None:
        parts.append(_("Milvus: {inserted} rows written, {deleted} deleted").format(
            inserted=state.index_sync.get("inserted", 0), deleted=state.index_sync.get("deleted", 0)))
    return _("Ingestion finished: {parts}.").format(parts=_joined(parts))


def _files_table(name: str, state) -> pd.DataFrame:
    """The documents with what the last (or the running) ingestion did to each."""
    running = state is not None and not state.finished
    progress = {f.filename: f for f in state.files} if state is not None else {}
    rows = []
    for row in file_rows(name, state.skipped_reasons() if state is not None else None):
        now = progress.get(row.filename)
        if running:  # what the job is doing to it; files it has not reached yet wait
            stage, reason = (now.stage, now.reason or "") if now is not None else ("waiting", "")
        else:
            stage, reason = row.status, row.reason if row.status != "ingested" else ""
        chunks = row.chunks or (now.chunks if now is not None else 0)
        rows.append({"file": row.filename, "status": _stage(stage), "chunks": chunks,
                     "reason": translate_ingest(reason)})
    for r in (state.rejected if state is not None else []):
        rows.append({"file": r.filename, "status": _stage("refused"), "chunks": 0, "reason": translate_ingest(r.reason)})
    return pd.DataFrame(rows, columns=["file", "status", "chunks", "reason"])


def _progress_panel(name: str) -> None:
    """The bar and the table; a fragment that polls while the job runs."""
    state = kb_jobs.job_state(name)
    if state is None:
        st.caption(_("Not ingested yet: upload documents to start."))
    elif not state.finished:
        st.progress(state.fraction, text=_("Ingesting: {stage}").format(stage=as_text(_stage(state.stage))))
    elif state.status == "failed":
        st.error(_summary(state))
    elif state.status == "cancelled":
        st.warning(_summary(state))
    else:
        if state.report is not None:
            text = _("All files processed in {duration}").format(duration=duration_ms(state.report.seconds * 1000))
        else:
            text = _("All files processed")
        st.progress(1.0, text=text)
        st.success(_summary(state))
        if state.report is not None and state.report.embedding_error:
            st.warning(_("No dense vectors: {error}. The knowledge base is searched sparse-only.").format(
                error=as_text(state.report.embedding_error)))
    table = _files_table(name, state)
    if table.empty:
        st.caption(_("No documents yet."))
    else:
        config = {key: st.column_config.Column(_(label)) for key, label in FILE_COLUMNS.items()}
        config["chunks"] = st.column_config.NumberColumn(_("chunks"), help=_("searchable (leaf) chunks"))
        data_grid(table, hide_index=True, width="stretch", column_config=config)
    if state is not None and state.finished and st.session_state.get(WATCHING_KEY) == state.job_id:
        st.session_state.pop(WATCHING_KEY, None)
        st.rerun()  # the whole page: the buttons that waited for the job come back


def _create_form() -> None:
    with st.form("kb_create", clear_on_submit=False, border=False):
        st.text_input(_("New knowledge base"), key=NEW_NAME_KEY, placeholder=_("e.g. support-docs"),
                      help=_("1 to 40 characters: lowercase letters, digits, '-' and '_'"))
        refused = streamlit_state.refusal("create_kb")
        st.form_submit_button(_("Create"), key="kb_create_submit", on_click=_on_create, type="primary",
                              disabled=bool(refused), help=refused or None)


def _kb_panel(name: str) -> None:
    settings = current_settings()
    active = settings.kb_dir is not None and named_kb_of(settings.kb_dir) == name
    busy = kb_jobs.is_busy(name)
    unchangeable = not streamlit_state.permit().allows("change_kb", read_owner(existing_kb(name).root))

    c1, c2, c3 = st.columns([1, 2, 1], vertical_alignment="center")
    c1.button(_("Used by the debugger") if active else _("Use in the debugger"), key="kb_use", type="primary",
              disabled=active, on_click=_on_use, args=(name,), width="stretch")
    if active:
        c2.page_link("pages/debugger.py", label=_("Ask it a question in the step debugger"), icon=MATERIAL["debugger"])
    else:
        c2.caption(_("The debugger now searches **{name}**.").format(name=as_text(kb_label(settings.kb_dir))))
    c3.button(_("Use the bundled demo KB"), key="kb_use_bundled", on_click=_on_use_bundled,
              disabled=settings.kb_dir is None, width="stretch")

    with st.form("kb_upload_form", clear_on_submit=False, border=True):
        c1, c2 = st.columns([4, 1], vertical_alignment="bottom")
        c1.file_uploader(_("Add documents: Markdown, text or PDF, or a .zip of them"),
                         type=[s.lstrip(".") for s in UPLOAD_SUFFIXES], accept_multiple_files=True,
                         key=_uploader_key(), max_upload_size=UPLOAD_LIMIT_MB, disabled=busy or unchangeable)
        c2.form_submit_button(_("Upload and ingest"), key="kb_upload_submit", on_click=_on_upload, args=(name,),
                              type="primary", disabled=busy or unchangeable, width="stretch")

    if busy:
        state = kb_jobs.job_state(name)
        if state is not None:
            st.session_state[WATCHING_KEY] = state.job_id
        job = kb_jobs.get_job(name)
        asked = job is not None and job.cancel_requested
        st.button(_("Cancelling…") if asked else _("Cancel ingestion"), key="kb_cancel", on_click=_on_cancel,
                  args=(name,), disabled=asked, help=_("Stop after the file in hand; the files done stay searchable"))
    st.fragment(run_every=POLL_SECONDS if busy else None)(_progress_panel)(name)

    files = [r.filename for r in file_rows(name)]
    allowed = _may_delete(name) and not unchangeable
    with st.expander(_("Manage files and the knowledge base")):
        c1, c2, c3 = st.columns([3, 1, 1], vertical_alignment="bottom")
        c1.selectbox(_("File"), files, key=DELETE_FILE_KEY, index=None, placeholder=_("Choose a file to delete"),
                     disabled=not files or busy or not allowed)
        c2.button(_("Delete file"), key="kb_delete_button", on_click=_on_delete_file, args=(name,),
                  disabled=not files or busy or not allowed, width="stretch")
        c3.button(_("Re-ingest"), key="kb_reingest", on_click=_on_reingest, args=(name,), disabled=busy or unchangeable,
                  width="stretch", help=_("Check every file again (unchanged files cost nothing)"))
        c1, c2 = st.columns([4, 1], vertical_alignment="center")
        c1.checkbox(_("Delete **{name}**: its documents, chunks and index (cannot be undone)").format(name=as_text(name)),
                    key="kb_delete_confirm", disabled=busy or not allowed)
        c2.button(_("Delete it"), key="kb_delete_kb", on_click=_on_delete_kb, args=(name,), disabled=busy or not allowed,
                  width="stretch")
        _who_may_delete(name, allowed)


def _who_may_delete(name: str, allowed: bool) -> None:
    """Say who may delete, so nobody takes a shared server's knowledge base for a private one."""
    if not login_configured():
        if allowed:
            st.caption(_("This server has no login: anyone who opens this page can delete this knowledge base and its "
                         "files."))
        else:
            st.caption(streamlit_state.refusal("delete_kb"))
        return
    owner = read_owner(existing_kb(name).root)
    if allowed:
        st.caption(_("Only its creator ({owner}) and the administrators (RAG_ADMINS) can delete it.").format(
            owner=as_text(owner or _("not recorded"))))
    elif owner:
        st.caption(_("Only {owner}, who created it, or an administrator (RAG_ADMINS) can delete it.").format(
            owner=as_text(owner)))
    else:
        st.caption(_("Only an administrator (RAG_ADMINS) can delete it: nobody is recorded as its creator."))


def render_page() -> None:
    st.title(f"{MATERIAL['knowledge_bases']} " + _("Knowledge bases"))
    show_flash()
    settings = current_settings()
    if settings.retriever_backend == "milvus":
        st.caption(_("Uploaded documents are chunked, embedded and indexed in Milvus (`MILVUS_URI`); an unchanged file "
                     "is never embedded twice. Switching the debugger applies to this browser session."))
    else:
        st.caption(_("Uploaded documents are chunked, embedded and indexed in this server's cache folder; an unchanged "
                     "file is never embedded twice. Switching the debugger applies to this browser session."))
    if settings.retriever_backend == "langchain":
        st.info(_("`RAG_RETRIEVER=langchain`: the debugger searches your own retriever, not these knowledge bases."))

    names = list_kbs()
    if not names:
        st.info(_("No knowledge base yet: create one."))
        _create_form()
        return
    current = named_kb_of(settings.kb_dir) if settings.kb_dir else None
    if st.session_state.get(SELECTED_KEY) not in names:
        st.session_state[SELECTED_KEY] = current if current in names else names[0]
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    c1.selectbox(_("Knowledge base"), names, key=SELECTED_KEY)
    with c2.popover(_("New knowledge base"), icon=":material/add:", width="stretch"):
        _create_form()
    try:
        _kb_panel(st.session_state[SELECTED_KEY])
    except UserFixableError as exc:  # e.g. the folder was removed by hand meanwhile
        st.warning(friendly(exc))
