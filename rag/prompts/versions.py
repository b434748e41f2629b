"""Saved prompt versions: one JSON file per version in a folder, so versions diff in git.

Why this file format: each template is stored as a JSON list of its lines (`"planner": ["line 1",
"line 2", ...]`, indented), so `git diff` shows a changed prompt line by line, while the file is
still parsed by the standard library with no ambiguity (a template may contain any text, including
lines that look like headers). Joining the lines with "\n" gives the template back byte for byte.

The folder is, in order: the `directory` argument, env `RAG_PROMPT_DIR`, `<repo>/prompt_versions/`.
A small pointer file `ACTIVE` in that folder names the active version. The names `default`
(the built-in prompts of `rag/prompts/default/`) and `active` (whatever `ACTIVE` points to) are
reserved, so `RAG_PROMPT_VERSION=active` makes a pipeline outside the app follow the app's choice.

Every template is checked with `validate_template` when saved AND when loaded: a version file
edited by hand into something that would fail at run time is refused with the rule it breaks.
"""
from __future__ import annotations

import difflib
import json
import logging
import os
import re
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

from pydantic import BaseModel, ValidationError

from rag.access import OPERATOR_PERMIT, Permit
from rag.errors import PromptTemplateError, PromptVersionError, UnknownPromptVersionError
from rag.i18n import _, ngettext
from rag.prompts.templates import ROLES, PromptSet, load_default_prompts, validate_template

log = logging.getLogger(__name__)

REPO_DIR = Path(__file__).resolve().parents[2]
DEFAULT_VERSIONS_DIR = REPO_DIR / "prompt_versions"
ENV_DIR = "RAG_PROMPT_DIR"
ACTIVE_FILE = "ACTIVE"
SUFFIX = ".json"
FORMAT = "rag-prompt-version"
FORMAT_VERSION = 1
RESERVED_NAMES = frozenset({"default", "active"})
MAX_NOTE_CHARS = 200
#: Roles added after format v1 was written: a file without one takes the built-in prompt.
LATER_ROLES = frozenset({"answerer"})
MAX_SET_BYTES = 64 * 1024
"""A saved version's templates together, in UTF-8. The built-in prompts are about 2.3 KB; 64 KB is some 28 times
that (room for long few-shot examples), while 200 versions still fit in about 13 MB of a shared folder."""
MAX_VERSIONS = 200
"""Saved versions a folder may hold: a list people pick from, not an archive (delete or export old ones)."""
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class PromptVersionInfo(BaseModel):
    """One row of the versions list."""

    name: str
    created_at: str
    note: str = ""


class _VersionFile(BaseModel):
    """The on-disk document (templates as lists of lines, see the module docstring)."""

    format: str = FORMAT
    format_version: int = FORMAT_VERSION
    name: str
    created_at: str
    note: str = ""
    templates: dict[str, list[str]]


# ----------------------------------------------------------------------------------------------
# names and folders
# ----------------------------------------------------------------------------------------------

def versions_dir(directory: Optional[Path | str] = None) -> Path:
    """The folder that holds the version files (not created here)."""
    if directory is not None:
        return Path(directory)
    env = os.environ.get(ENV_DIR, "").strip()
    return Path(env) if env else DEFAULT_VERSIONS_DIR


def check_name(name: object) -> str:
    """A version name becomes a file name, so only a safe, short alphabet is accepted."""
    if not isinstance(name, str) or not name.strip():
        raise PromptVersionError(_("a prompt version needs a name"))
    name = name.strip()
    if not _NAME_RE.match(name) or ".." in name:
        raise PromptVersionError(
            _("invalid prompt version name {name}: use 1-64 letters, digits, '.', '_' or '-', "
              "starting with a letter or digit (no '/', no '..', no spaces)").format(name=repr(name))
        )
    if name.lower() in RESERVED_NAMES:
        raise PromptVersionError(_("{name} is a reserved name (the built-in prompts / the active pointer)")
                                 .format(name=repr(name)))
    return name


def _path(name: str, directory: Optional[Path | str]) -> Path:
    return versions_dir(directory) / f"{check_name(name)}{SUFFIX}"


def _one_line(note: object) -> str:
    text = " ".join(str(note or "").split())
    if len(text) > MAX_NOTE_CHARS:
        raise PromptVersionError(_("the note has {count} characters; keep it to one line of {limit}").format(
            count=len(text), limit=MAX_NOTE_CHARS))
    return text


def _atomic_write(path: Path, text: str) -> None:
    """Write to a temporary file and rename, so a crash never leaves half a version behind."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# ----------------------------------------------------------------------------------------------
# save / load / list
# ----------------------------------------------------------------------------------------------

def validate_prompt_set(prompts: PromptSet) -> None:
    """Every role's template must pass `validate_template`; the message names the role."""
    for role in ROLES:
        validate_template(role, prompts.get(role))


def save_version(
    name: str,
    prompts: PromptSet,
    note: str = "",
    *,
    directory: Optional[Path | str] = None,
    overwrite: bool = False,
    permit: Permit = OPERATOR_PERMIT,
) -> PromptVersionInfo:
    """Save a prompt set under a name. Refuses bad names, invalid templates, a set over `MAX_SET_BYTES` and a
    folder at `MAX_VERSIONS` before writing, and an existing name unless `overwrite` (runs in the history refer to
    versions by name). Saving a new version follows the roles; overwriting one is the admins' (a
    `RAG_PROMPT_VERSION=active` pipeline would otherwise run whatever replaced the active version): AccessRefused."""
    name = check_name(name)
    note = _one_line(note)
    if not isinstance(prompts, PromptSet):
        raise PromptVersionError(f"expected a PromptSet, got {type(prompts).__name__}")
    size = sum(len(prompts.get(role).encode("utf-8")) for role in ROLES)
    if size > MAX_SET_BYTES:
        raise PromptVersionError(_("these templates hold {size} KB; a version can hold at most {limit} KB. Shorten "
                                   "them (nothing was saved).").format(size=f"{size // 1024:,}",
                                                                        limit=MAX_SET_BYTES // 1024))
    path = _path(name, directory)
    exists = path.exists()
    permit.require("overwrite_prompt_version" if exists else "save_prompt_version")
    if exists and not overwrite:
        raise PromptVersionError(_("prompt version {name} already exists; choose another name or overwrite it")
                                 .format(name=repr(name)))
    folder = versions_dir(directory)
    if not exists and folder.is_dir() and sum(1 for _p in folder.glob(f"*{SUFFIX}")) >= MAX_VERSIONS:
        raise PromptVersionError(_("the prompt folder already holds {n} prompt versions, the most it keeps; ask an "
                                   "admin to delete old ones (nothing was saved).").format(n=MAX_VERSIONS))
    validate_prompt_set(prompts)
    doc = _VersionFile(
        name=name,
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        note=note,
        templates={role: prompts.get(role).split("\n") for role in ROLES},
    )
    _atomic_write(path, json.dumps(doc.model_dump(), ensure_ascii=False, indent=2) + "\n")
    return PromptVersionInfo(name=name, created_at=doc.created_at, note=note)


def _read(path: Path) -> _VersionFile:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        doc = _VersionFile.model_validate(raw)
    except (OSError, ValueError, ValidationError) as exc:  # JSONDecodeError is a ValueError
        raise PromptVersionError(_("prompt version file {file} is broken: {error}").format(
            file=path.name, error=str(exc).splitlines()[0])) from exc
    if doc.format != FORMAT or doc.format_version != FORMAT_VERSION:
        raise PromptVersionError(
            _("prompt version file {file} has format {found} v{found_version}; expected {expected} v{expected_version}")
            .format(file=path.name, found=repr(doc.format), found_version=doc.format_version, expected=repr(FORMAT),
                    expected_version=FORMAT_VERSION)
        )
    missing = [r for r in ROLES if r not in doc.templates and r not in LATER_ROLES]
    if missing:
        raise PromptVersionError(ngettext("prompt version file {file} lacks the {roles} template",
                                          "prompt version file {file} lacks the {roles} templates", len(missing))
                                 .format(file=path.name, roles=", ".join(missing)))
    if doc.name != path.stem:
        raise PromptVersionError(_("prompt version file {file} names itself {name}; rename one of them").format(
            file=path.name, name=repr(doc.name)))
    return doc


def list_versions(*, directory: Optional[Path | str] = None) -> list[PromptVersionInfo]:
    """Saved versions, newest first. A broken file is skipped with a warning (loading it explains
    why), so one bad file never hides the others."""
    folder = versions_dir(directory)
    if not folder.is_dir():
        return []
    out = []
    for path in folder.glob(f"*{SUFFIX}"):
        if not _NAME_RE.match(path.stem) or path.stem.lower() in RESERVED_NAMES:
            continue
        try:
            doc = _read(path)
        except PromptVersionError as exc:
            log.warning("%s", exc)
            continue
        out.append(PromptVersionInfo(name=doc.name, created_at=doc.created_at, note=doc.note))
    out.sort(key=lambda v: (v.created_at, v.name), reverse=True)
    return out


def _available(directory: Optional[Path | str]) -> str:
    names = [v.name for v in list_versions(directory=directory)]
    return ", ".join(["default", *names])


def load_version(name: str, *, directory: Optional[Path | str] = None) -> PromptSet:
    """A saved version as a PromptSet (`version` = its name). `default` gives the built-in
    prompts and `active` the version the pointer file names."""
    if isinstance(name, str) and name.strip().lower() == "default":
        return load_default_prompts()
    if isinstance(name, str) and name.strip().lower() == "active":
        active = get_active(directory=directory)
        return load_version(active or "default", directory=directory)
    path = _path(name, directory)
    if not path.is_file():
        raise UnknownPromptVersionError(
            _("unknown prompt version {name} in {folder}; available: {available} (check RAG_PROMPT_VERSION / "
              "RAG_PROMPT_DIR)").format(name=repr(name), folder=versions_dir(directory), available=_available(directory))
        )
    doc = _read(path)
    prompts = PromptSet(**{role: "\n".join(doc.templates[role]) for role in ROLES if role in doc.templates},
                        version=doc.name)
    try:
        validate_prompt_set(prompts)
    except PromptTemplateError as exc:
        raise PromptVersionError(_("prompt version {name} is invalid: {error}").format(name=repr(doc.name), error=exc)) from exc
    return prompts


def version_info(name: str, *, directory: Optional[Path | str] = None) -> PromptVersionInfo:
    path = _path(name, directory)
    if not path.is_file():
        raise UnknownPromptVersionError(_("unknown prompt version {name}; available: {available}").format(
            name=repr(name), available=_available(directory)))
    doc = _read(path)
    return PromptVersionInfo(name=doc.name, created_at=doc.created_at, note=doc.note)


def delete_version(name: str, *, directory: Optional[Path | str] = None,
                   permit: Permit = OPERATOR_PERMIT) -> None:
    """Remove a saved version (and the active pointer if it named it): the admins' (AccessRefused)."""
    path = _path(name, directory)
    permit.require("delete_prompt_version")
    if not path.is_file():
        raise UnknownPromptVersionError(_("unknown prompt version {name}; available: {available}").format(
            name=repr(name), available=_available(directory)))
    path.unlink()
    pointer = versions_dir(directory) / ACTIVE_FILE
    if pointer.is_file() and pointer.read_text(encoding="utf-8").strip() == name:
        pointer.unlink()


# ----------------------------------------------------------------------------------------------
# compare and the active pointer
# ----------------------------------------------------------------------------------------------

def diff_prompt_sets(a: PromptSet, b: PromptSet, *, a_label: str = "a", b_label: str = "b") -> dict[str, str]:
    """Per role, a unified diff of the two templates ("" when the role is identical)."""
    out = {}
    for role in ROLES:
        lines = difflib.unified_diff(
            a.get(role).splitlines(keepends=True),
            b.get(role).splitlines(keepends=True),
            fromfile=f"{a_label}/{role}",
            tofile=f"{b_label}/{role}",
        )
        out[role] = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    return out


def compare_versions(a: str, b: str, *, directory: Optional[Path | str] = None) -> dict[str, str]:
    """Per-role unified diff between two versions (either may be `default` or `active`)."""
    return diff_prompt_sets(
        load_version(a, directory=directory), load_version(b, directory=directory), a_label=a, b_label=b
    )


def set_active(name: Optional[str], *, directory: Optional[Path | str] = None,
               permit: Permit = OPERATOR_PERMIT) -> None:
    """Point `ACTIVE` at a saved version; `None` or `default` clears it (built-in prompts). The pointer is the
    process's (and every `RAG_PROMPT_VERSION=active` pipeline's): the admins' (AccessRefused)."""
    permit.require("activate_prompt_version")
    pointer = versions_dir(directory) / ACTIVE_FILE
    if name is None or (isinstance(name, str) and name.strip().lower() == "default"):
        pointer.unlink(missing_ok=True)
        return
    load_version(name, directory=directory)  # exists and is valid, else a clear error
    _atomic_write(pointer, check_name(name) + "\n")


def get_active(*, directory: Optional[Path | str] = None) -> Optional[str]:
    """The active version's name, or None (built-in prompts). A pointer to a version that is gone
    or unreadable is reported in the log and ignored rather than breaking every run."""
    pointer = versions_dir(directory) / ACTIVE_FILE
    if not pointer.is_file():
        return None
    name = pointer.read_text(encoding="utf-8").strip()
    if not name:
        return None
    try:
        if not _path(name, directory).is_file():
            raise UnknownPromptVersionError(f"the active prompt version {name!r} no longer exists")
    except PromptVersionError as exc:
        log.warning("ignoring %s: %s", ACTIVE_FILE, exc)
        return None
    return name


__all__ = [
    "PromptVersionInfo", "versions_dir", "check_name",
    "save_version", "list_versions", "load_version", "version_info", "delete_version", "compare_versions",
    "diff_prompt_sets", "set_active", "get_active", "validate_prompt_set",
]
