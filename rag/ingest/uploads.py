"""Files that arrive from a browser: safe names, bounded sizes, and zip archives opened safely.

Why a module of its own: everything here is about not trusting the upload. A name may try to climb
out of the folder (`../../.bashrc`) or hide (`.env`); a zip may hold symlinks, absolute paths,
encrypted members, thousands of entries, or a few KB that inflate to gigabytes (a zip bomb). Each
member that cannot be taken is refused with the reason (`SkippedFile`), like a bad file in a
folder ingest, and never raises past the caller: one bad member never loses the others. Declared
sizes in a zip header can lie, so every member is also counted while it is inflated.
"""
from __future__ import annotations

import os
import re
import stat
import tempfile
import zipfile
from pathlib import Path, PurePosixPath
from typing import Optional

from pydantic import BaseModel

from rag.errors import UserInputError
from rag.i18n import _, ngettext
from rag.ingest import limits as env_limits
from rag.ingest.loaders import MAX_FILE_BYTES, SUPPORTED_SUFFIXES
from rag.ingest.models import SkippedFile

ZIP_SUFFIX = ".zip"
UPLOAD_SUFFIXES = tuple(sorted({*SUPPORTED_SUFFIXES, ZIP_SUFFIX}))


class UploadLimits(BaseModel):
    """Bounds on what one upload may put on disk (defaults sized for a team's documents on a small
    server; tests shrink them)."""

    max_file_bytes: int = MAX_FILE_BYTES          # one document, as the folder ingest allows
    max_zip_bytes: int = 50 * 1024 * 1024         # the archive as uploaded
    max_zip_members: int = 1000                   # entries in one archive
    max_zip_total_bytes: int = 200 * 1024 * 1024  # everything one archive inflates to
    max_ratio: float = 100.0                      # bytes written / compressed bytes, of a member and of the archive
    max_kb_bytes: int = 1024 * 1024 * 1024        # all documents of one knowledge base
    max_total_bytes: int = 10 * 1024 * 1024 * 1024  # every knowledge base together (RAG_KB_QUOTA_MB)
    max_path_parts: int = 8                       # folders kept from an archive, file included

    @classmethod
    def from_env(cls) -> "UploadLimits":
        """The limits of this server (`rag.ingest.limits`: RAG_KB_QUOTA_MB, RAG_KB_MAX_MB, RAG_ZIP_MAX_RATIO)."""
        return cls(max_ratio=float(env_limits.zip_max_ratio()), max_kb_bytes=env_limits.kb_max_bytes(),
                   max_total_bytes=env_limits.kb_quota_bytes())


class Saved(BaseModel):
    """What one upload did: the documents written (relative names) and those refused, with why."""

    written: list[str] = []
    skipped: list[SkippedFile] = []


_SAFE_PART = re.compile(r"^[\w\-. ()+,&@#\[\]]+$", re.UNICODE)
_CHUNK = 1024 * 1024
#: Bytes in one name of a path on the file systems we run on (ext4, XFS, tmpfs, APFS: 255). Counted
#: in UTF-8, so 85 Chinese characters fit, and the temporary file of a write must not lengthen it.
MAX_NAME_BYTES = 255
#: An archive may always write this much, however small it is: a ratio on a 2 KB zip is meaningless.
_RATIO_FLOOR = _CHUNK


def _os_reason(exc: OSError) -> str:
    """An OSError without the file name it carries: that is a path of the server, never shown."""
    return exc.strerror or type(exc).__name__


def safe_relative_name(name: str, max_parts: int = 8) -> str:
    """A name that stays inside the folder, or UserInputError saying why not. Backslashes count as
    separators (archives made on Windows); absolute paths, `..`, hidden parts (ingestion ignores
    them anyway) and control or odd characters are refused rather than rewritten, so a file is
    stored under the name its owner gave it or not at all."""
    text = (name or "").replace("\\", "/")
    if not text.strip() or text.startswith("/") or re.match(r"^[A-Za-z]:", text):
        raise UserInputError(_("unsafe file name {name}: absolute or empty").format(name=repr(name)))
    parts = [p for p in PurePosixPath(text).parts if p not in ("", ".")]
    if not parts:
        raise UserInputError(_("unsafe file name {name}: empty").format(name=repr(name)))
    for part in parts:
        if part == "..":
            raise UserInputError(_("unsafe file name {name}: it climbs out of the folder (..)").format(name=repr(name)))
        if part.startswith("."):
            raise UserInputError(_("hidden file or folder {name} is not taken").format(name=repr(part)))
        if len(part.encode("utf-8")) > MAX_NAME_BYTES:
            raise UserInputError(_("file name {name} is too long: {size} bytes in UTF-8 (at most {limit})")
                                 .format(name=repr(part), size=len(part.encode("utf-8")), limit=MAX_NAME_BYTES))
        if not _SAFE_PART.match(part):
            raise UserInputError(_("unsafe file name {name}: use letters, digits, spaces and - _ . ( ) only")
                                 .format(name=repr(name)))
    if len(parts) > max_parts:
        raise UserInputError(_("file name {name} is nested more than {depth} folders deep")
                             .format(name=repr(name), depth=max_parts))
    return "/".join(parts)


def document_suffix_ok(name: str) -> Optional[str]:
    """None when the name is a document type ingestion reads, else the reason it is refused."""
    suffix = PurePosixPath(name).suffix.lower()
    if suffix in SUPPORTED_SUFFIXES:
        return None
    return _("unsupported file type {suffix} (use {supported} or a .zip of them)").format(
        suffix=suffix or _("(none)"), supported=", ".join(sorted(SUPPORTED_SUFFIXES)))


def folder_bytes(folder: Path) -> int:
    total = 0
    for p in Path(folder).rglob("*"):
        try:
            if p.is_file() and not p.is_symlink():
                total += p.stat().st_size
        except OSError:
            continue
    return total


def _write_stream(dest: Path, chunks, limit: int, too_much: Optional[str] = None) -> int:
    """Write `chunks` to `dest` atomically (temp file then rename), refusing past `limit` bytes, so
    a reader never sees half a file and a lying archive never fills the disk. The temporary name is
    short and fixed-length: built from the document's name it pushed a legal 252-byte name past the
    file system's limit. `too_much`: the refusal's text (default: the byte limit)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".upload-", suffix=".part")
    written = 0
    try:
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                written += len(chunk)
                if written > limit:
                    raise UserInputError(too_much or _("too large (more than {limit} bytes)").format(limit=limit))
                fh.write(chunk)
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
        return written
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _target(folder: Path, rel: str) -> Path:
    dest = (folder / rel)
    root = folder.resolve()
    if root not in dest.resolve().parents:
        raise UserInputError(_("unsafe file name {name}: it resolves outside the folder").format(name=repr(rel)))
    if dest.is_symlink():
        raise UserInputError(_("{name} exists as a symlink; it is not overwritten").format(name=repr(rel)))
    return dest


def _not_extracted(reason: Optional[str], count: int) -> str:
    """Why an archive stopped being extracted, and how many of its files were left out."""
    return ngettext("{reason}; {count} file of the archive not extracted",
                    "{reason}; {count} files of the archive not extracted", count).format(reason=reason, count=count)


def _quota_problem(limits: UploadLimits, total_used: int, adding: int) -> Optional[str]:
    if total_used + adding > limits.max_total_bytes:
        return _("all knowledge bases together would exceed their quota of {limit} MB (RAG_KB_QUOTA_MB)").format(
            limit=limits.max_total_bytes // (1024 * 1024))
    return None


def save_document(folder: Path, name: str, data: bytes, limits: Optional[UploadLimits] = None,
                  used_bytes: Optional[int] = None, total_used: Optional[int] = None) -> Saved:
    """Save one uploaded document into `folder` (a zip goes through `save_zip`). Never raises for a
    bad file: the result says what was written and what was refused. `total_used`: the bytes of
    every knowledge base together, checked against `max_total_bytes` (default: this folder's)."""
    limits = limits or UploadLimits()
    folder = Path(folder)
    if PurePosixPath((name or "").replace("\\", "/")).suffix.lower() == ZIP_SUFFIX:
        return save_zip(folder, name, data, limits, used_bytes, total_used)
    out = Saved()
    try:
        rel = safe_relative_name(PurePosixPath((name or "").replace("\\", "/")).name, limits.max_path_parts)
        reason = document_suffix_ok(rel)
        if reason:
            raise UserInputError(reason)
        if len(data) > limits.max_file_bytes:
            raise UserInputError(_("too large ({size} bytes > {limit})").format(size=len(data), limit=limits.max_file_bytes))
        used = folder_bytes(folder) if used_bytes is None else used_bytes
        if used + len(data) > limits.max_kb_bytes:
            raise UserInputError(_("the knowledge base would exceed {limit} bytes").format(limit=limits.max_kb_bytes))
        quota = _quota_problem(limits, used if total_used is None else total_used, len(data))
        if quota:
            raise UserInputError(quota)
        _write_stream(_target(folder, rel), [data], limits.max_file_bytes)
        out.written.append(rel)
    except UserInputError as exc:
        out.skipped.append(SkippedFile(filename=name or "(no name)", reason=str(exc)))
    except OSError as exc:
        out.skipped.append(SkippedFile(filename=name or "(no name)", reason=_os_reason(exc)))
    return out


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def _member_problem(info: zipfile.ZipInfo, limits: UploadLimits) -> Optional[str]:
    if _is_symlink(info):
        return _("symlink in the archive (not followed)")
    if info.flag_bits & 0x1:
        return _("encrypted member")
    if info.file_size > limits.max_file_bytes:
        return _("too large ({size} bytes > {limit})").format(size=info.file_size, limit=limits.max_file_bytes)
    if info.file_size > limits.max_ratio * max(info.compress_size, 1) and info.file_size > _CHUNK:
        return _("suspicious compression ratio ({size} bytes from {compressed}): a zip bomb?").format(
            size=info.file_size, compressed=info.compress_size)
    return None


def save_zip(folder: Path, name: str, data: bytes, limits: Optional[UploadLimits] = None,
             used_bytes: Optional[int] = None, total_used: Optional[int] = None) -> Saved:
    """Extract the documents of an uploaded archive into `folder`, keeping its sub-folders. Refused
    as a whole: not a zip, too large, too many members, or more inflated bytes than allowed. Refused
    per member (with the reason): unsafe or hidden names, symlinks, encrypted members, unsupported
    types (nested archives included), members over the size or ratio limits.

    Every limit is counted on the bytes actually written, not on the sizes the archive declares:
    a 296 KB zip of 1,000 members of 190 KB each (every member under the old 1 MB ratio floor)
    wrote 190 MB. The archive as a whole may write `max_ratio` times its own size (at least 1 MB);
    when it reaches a limit, extraction stops and the rest is refused in one line."""
    limits = limits or UploadLimits()
    folder = Path(folder)
    out = Saved()
    label = name or "(archive)"
    if len(data) > limits.max_zip_bytes:
        out.skipped.append(SkippedFile(filename=label, reason=_("archive too large ({size} bytes > {limit})").format(
            size=len(data), limit=limits.max_zip_bytes)))
        return out
    import io

    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        out.skipped.append(SkippedFile(filename=label, reason=_("not a readable zip archive: {error}").format(error=exc)))
        return out
    files = [i for i in infos if not i.is_dir()]
    if len(files) > limits.max_zip_members:
        out.skipped.append(SkippedFile(filename=label,
                                       reason=_("archive has {count} files (at most {limit})").format(
                                           count=len(files), limit=limits.max_zip_members)))
        return out
    declared = sum(i.file_size for i in files)
    if declared > limits.max_zip_total_bytes:
        out.skipped.append(SkippedFile(filename=label, reason=_("archive inflates to {size} bytes (at most {limit})").format(
                                           size=declared, limit=limits.max_zip_total_bytes)))
        return out
    used = folder_bytes(folder) if used_bytes is None else used_bytes
    total = used if total_used is None else total_used
    ratio_cap = int(max(limits.max_ratio * len(data), _RATIO_FLOOR))
    inflated = 0
    with zf:
        for n, info in enumerate(files):
            shown = f"{label}:{info.filename}"
            if info.filename.startswith("__MACOSX/"):
                continue  # Finder's resource forks: not documents, not worth a line in the report
            try:
                rel = safe_relative_name(info.filename, limits.max_path_parts)
                problem = _member_problem(info, limits) or document_suffix_ok(rel)
                if problem:
                    raise UserInputError(problem)
                budgets = [
                    (limits.max_file_bytes, _("too large (more than {limit} bytes)").format(limit=limits.max_file_bytes)),
                    (int(max(limits.max_ratio * max(info.compress_size, 1), _CHUNK)),
                     _("suspicious compression ratio (more than {ratio} times its {compressed} compressed bytes): "
                       "a zip bomb?").format(ratio=int(limits.max_ratio), compressed=info.compress_size)),
                    (ratio_cap - inflated, _("the archive wrote {limit} bytes, {ratio} times its own size: a zip bomb?")
                     .format(limit=ratio_cap, ratio=int(limits.max_ratio))),
                    (limits.max_zip_total_bytes - inflated, _("archive inflates to more than {limit} bytes").format(
                        limit=limits.max_zip_total_bytes)),
                    (limits.max_kb_bytes - used, _("the knowledge base would exceed {limit} bytes").format(
                        limit=limits.max_kb_bytes)),
                    (limits.max_total_bytes - total, _quota_problem(limits, limits.max_total_bytes, 1)),
                ]
                budget, too_much = min(budgets, key=lambda b: b[0])
                if budget <= 0:
                    out.skipped.append(SkippedFile(filename=label, reason=_not_extracted(too_much, len(files) - n)))
                    break
                try:
                    with zf.open(info) as member:
                        size = _write_stream(_target(folder, rel), iter(lambda: member.read(_CHUNK), b""), budget,
                                             too_much)
                except UserInputError:
                    if budgets.index((budget, too_much)) < 2:
                        raise  # this member's own limit: the next one may be fine
                    out.skipped.append(SkippedFile(filename=label, reason=_not_extracted(too_much, len(files) - n)))
                    break
                inflated += size
                used += size
                total += size
                out.written.append(rel)
            except OSError as exc:
                out.skipped.append(SkippedFile(filename=shown, reason=_os_reason(exc)))
            except (UserInputError, zipfile.BadZipFile, RuntimeError, ValueError, EOFError) as exc:
                out.skipped.append(SkippedFile(filename=shown, reason=str(exc) or type(exc).__name__))
    return out
