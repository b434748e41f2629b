"""Named question sets kept beside the run history: the same SQLite file or PostgreSQL database, the
`question_sets` and `question_set_cases` tables of migration 5 (rag/runs/schema.py).

Why beside the history and not as files: a case is made from a run ("Add to a question set") and
links back to it, a team that shares a history database shares its sets too, and the CLI finds a set
by name in the configured history (`python -m rag.eval --set NAME`).

Why versions: two people may edit one set at once. Every case row and every set row carries a
version; an edit names the version it was made on and is written only if that is still the stored
one (one conditional UPDATE, atomic on both engines), so the second writer gets a `SetEditConflict`
that says who changed what and when, and nothing is lost. Adding a case needs no version (two people
may add at once); every change bumps the set's version, so renaming or deleting a set that changed
since it was read is refused too.

Cases are `rag.eval.cases.EvalCase`s, so a set downloads as the JSON Lines `python -m rag.eval` reads,
and an upload is checked by the same parser (bad line: refused with its line and field).
"""
from __future__ import annotations

import json
import unicodedata
import uuid
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator, Optional, Sequence

from pydantic import BaseModel, ValidationError

from rag.access import OPERATOR_PERMIT, Permit
from rag.errors import UserFixableError
from rag.eval.cases import EvalCase
from rag.i18n import _
from rag.runs.run_info import now_iso
from rag.runs.storage import Execute, HistoryStorage
from rag_debugger.debugger.terminal import one_line

if TYPE_CHECKING:
    from rag.runs.history import RunHistory

MAX_NAME_CHARS = 80


class QuestionSetError(UserFixableError):
    """A set operation that cannot be done as asked; the message says why and what to do."""


class SetNameTaken(QuestionSetError):
    """Another set already has this name (names are compared without case)."""


class SetEditConflict(QuestionSetError):
    """The set or case changed (or went) since the editor read it: nothing was written."""


class UnknownSetError(QuestionSetError, LookupError):
    """No set with this name or id."""


class StoredCase(BaseModel):
    """A case as stored: the case, its place in the set and the version an edit must name."""

    case: EvalCase
    version: int
    position: int
    updated_at: str
    updated_by: str = ""


class QuestionSet(BaseModel):
    set_id: str
    name: str
    version: int
    created_at: str
    created_by: str = ""
    updated_at: str
    updated_by: str = ""
    cases: list[StoredCase] = []
    owner: str = ""
    """Who owns it (rag/access.py): the signed-in identity that created it, "" for nobody (then the admins')."""

    def eval_cases(self) -> list[EvalCase]:
        return [c.case for c in self.cases]

    def case(self, case_id: str) -> StoredCase:
        for stored in self.cases:
            if stored.case.id == case_id:
                return stored
        raise SetEditConflict(_("case {case} is no longer in set {name}; someone removed it").format(
            case=repr(case_id), name=repr(self.name)))


class SetSummary(BaseModel):
    set_id: str
    name: str
    version: int
    cases: int
    updated_at: str
    updated_by: str = ""


def check_name(name: str) -> str:
    """The set name to store: trimmed, 1 to 80 characters, no control characters (it is shown on pages and
    typed on a command line). A pure rule, tested as a table."""
    text = " ".join(str(name or "").split())
    if not text:
        raise QuestionSetError(_("a question set needs a name"))
    if len(text) > MAX_NAME_CHARS:
        raise QuestionSetError(_("a set name has at most {limit} characters; this one has {n}").format(
            limit=MAX_NAME_CHARS, n=len(text)))
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in text):
        raise QuestionSetError(_("a set name cannot hold control or invisible characters"))
    return text


def name_key(name: str) -> str:
    """What two names are compared by: "Smoke" and "smoke" are one set (case folded, NFKC)."""
    return unicodedata.normalize("NFKC", check_name(name)).casefold()


def set_jsonl(cases: Sequence[EvalCase]) -> str:
    """The cases as JSON Lines in the `python -m rag.eval` format (fields left at their default are left out)."""
    return "".join(json.dumps(c.model_dump(exclude_defaults=True), ensure_ascii=False) + "\n" for c in cases)


def _who(by: str) -> str:
    return (by or "").strip()[:200]


def _stored_case(case_json: str) -> EvalCase:
    """A stored case; one saved before ids were refused control characters comes back with them escaped
    (`rag_debugger.debugger.terminal.one_line`) rather than making its whole set unreadable."""
    try:
        return EvalCase.model_validate_json(case_json)
    except ValidationError:
        data = json.loads(case_json)
        if not isinstance(data, dict) or not isinstance(data.get("id"), str):
            raise
        return EvalCase.model_validate({**data, "id": one_line(data["id"])})


class QuestionSetStore:
    """The named sets of one history storage (`RunHistory.storage`). Thread safe as the storage is."""

    def __init__(self, storage: HistoryStorage):
        self.storage = storage

    @contextmanager
    def _atomic(self) -> Iterator[Execute]:
        """One transaction that is undone on an error on both engines (the SQLite storage commits in a
        `finally`, so it is rolled back here first)."""
        with self.storage.transaction() as execute:
            try:
                yield execute
            except BaseException:
                if self.storage.engine == "sqlite":
                    try:
                        execute("ROLLBACK", ())
                    except Exception:  # noqa: BLE001 - nothing was begun: nothing to undo
                        pass
                raise

    # ----- reading ----------------------------------------------------------------------------
    def list_sets(self) -> list[SetSummary]:
        rows = self.storage.execute(
            "SELECT s.set_id, s.name, s.version, s.updated_at, s.updated_by, "
            "(SELECT COUNT(*) FROM question_set_cases c WHERE c.set_id = s.set_id) "
            "FROM question_sets s ORDER BY s.name_key", ())
        return [SetSummary(set_id=r[0], name=r[1], version=r[2], updated_at=r[3], updated_by=r[4], cases=r[5])
                for r in rows]

    def find(self, name: str) -> QuestionSet:
        """The set called `name` (compared without case); UnknownSetError naming the sets there are."""
        try:
            key = name_key(name)
        except QuestionSetError:
            key = ""
        rows = self.storage.execute("SELECT set_id FROM question_sets WHERE name_key = ?", (key,))
        if not rows:
            names = ", ".join(s.name for s in self.list_sets()) or _("none yet")
            raise UnknownSetError(_("no question set named {name} in {location} (sets: {names})").format(
                name=repr(name), location=self.storage.location, names=names))
        return self.get(rows[0][0])

    def get(self, set_id: str) -> QuestionSet:
        with self.storage.transaction() as execute:
            return self._read(execute, set_id)

    def _read(self, execute: Execute, set_id: str) -> QuestionSet:
        rows = execute("SELECT set_id, name, version, created_at, created_by, updated_at, updated_by, owner "
                       "FROM question_sets WHERE set_id = ?", (set_id,))
        if not rows:
            raise UnknownSetError(_("this question set no longer exists; someone deleted it"))
        r = rows[0]
        cases = execute("SELECT case_json, version, position, updated_at, updated_by FROM question_set_cases "
                        "WHERE set_id = ? ORDER BY position, case_id", (set_id,))
        return QuestionSet(
            set_id=r[0], name=r[1], version=r[2], created_at=r[3], created_by=r[4], updated_at=r[5], updated_by=r[6],
            owner=r[7] or "",
            cases=[StoredCase(case=_stored_case(c[0]), version=c[1], position=c[2], updated_at=c[3],
                              updated_by=c[4]) for c in cases])

    # ----- sets -------------------------------------------------------------------------------
    def _may(self, execute: Execute, permit: Permit, action: str, set_id: str) -> None:
        """AccessRefused unless `permit` may `action` the set (its owner or an admin, with a login)."""
        rows = execute("SELECT owner FROM question_sets WHERE set_id = ?", (set_id,))
        permit.require(action, rows[0][0] if rows else "")

    def create(self, name: str, cases: Sequence[EvalCase] = (), *, by: str = "",
               permit: Permit = OPERATOR_PERMIT) -> QuestionSet:
        """A new set, with `cases` (an upload) in their order, owned by `permit`'s identity. A taken name raises
        SetNameTaken; AccessRefused when `permit` may not create sets."""
        permit.require("create_set")
        shown, key, now, who = check_name(name), name_key(name), now_iso(), _who(by)
        ids = [c.id for c in cases if c.id]
        if len(ids) != len(set(ids)):
            raise QuestionSetError(_("two cases of the set have the same id"))
        set_id = "set-" + uuid.uuid4().hex[:12]
        try:
            with self._atomic() as execute:
                self._name_free(execute, key, shown)
                execute("INSERT INTO question_sets (set_id, name, name_key, version, next_case, created_at, created_by, "
                        "updated_at, updated_by, owner) VALUES (?, ?, ?, 1, 1, ?, ?, ?, ?, ?)",
                        (set_id, shown, key, now, who, now, who, permit.owner))
                for case in cases:
                    self._insert_case(execute, set_id, case, now, who)
        except Exception as exc:
            if self.storage.is_duplicate(exc):  # the same name created at the same moment elsewhere
                raise self._taken(shown) from None
            raise
        return self.get(set_id)

    def rename(self, set_id: str, name: str, *, version: int, by: str = "",
               permit: Permit = OPERATOR_PERMIT) -> QuestionSet:
        shown, key = check_name(name), name_key(name)
        try:
            with self._atomic() as execute:
                self._may(execute, permit, "edit_set", set_id)
                self._name_free(execute, key, shown, but=set_id)
                rows = execute("UPDATE question_sets SET name = ?, name_key = ?, version = version + 1, updated_at = ?, "
                               "updated_by = ? WHERE set_id = ? AND version = ? RETURNING version",
                               (shown, key, now_iso(), _who(by), set_id, int(version)))
                if not rows:
                    raise self._set_conflict(execute, set_id)
        except Exception as exc:
            if self.storage.is_duplicate(exc):
                raise self._taken(shown) from None
            raise
        return self.get(set_id)

    def delete(self, set_id: str, *, version: int, permit: Permit = OPERATOR_PERMIT) -> None:
        """Delete the set and its cases, if nobody changed it since `version` was read (AccessRefused unless
        `permit` owns it or is an admin)."""
        with self._atomic() as execute:
            self._may(execute, permit, "delete_set", set_id)
            rows = execute("DELETE FROM question_sets WHERE set_id = ? AND version = ? RETURNING set_id",
                           (set_id, int(version)))
            if not rows:
                raise self._set_conflict(execute, set_id)
            execute("DELETE FROM question_set_cases WHERE set_id = ?", (set_id,))

    # ----- cases ------------------------------------------------------------------------------
    def add_case(self, set_id: str, case: EvalCase, *, by: str = "", permit: Permit = OPERATOR_PERMIT) -> StoredCase:
        """Append `case` (its id given, or the next free `q<N>`); another person's additions never clash."""
        now, who = now_iso(), _who(by)
        with self._atomic() as execute:
            self._may(execute, permit, "edit_set", set_id)
            if not execute("SELECT 1 FROM question_sets WHERE set_id = ?", (set_id,)):
                raise UnknownSetError(_("this question set no longer exists; someone deleted it"))
            stored = self._insert_case(execute, set_id, case, now, who)
            execute("UPDATE question_sets SET version = version + 1, updated_at = ?, updated_by = ? WHERE set_id = ?",
                    (now, who, set_id))
        return stored

    def update_case(self, set_id: str, case_id: str, case: EvalCase, *, version: int, by: str = "",
                    permit: Permit = OPERATOR_PERMIT) -> StoredCase:
        """Replace case `case_id` with `case` (same id), if it is still at `version`."""
        now, who = now_iso(), _who(by)
        case = case.model_copy(update={"id": case_id})
        with self._atomic() as execute:
            self._may(execute, permit, "edit_set", set_id)
            rows = execute("UPDATE question_set_cases SET case_json = ?, from_run = ?, version = version + 1, "
                           "updated_at = ?, updated_by = ? WHERE set_id = ? AND case_id = ? AND version = ? "
                           "RETURNING version, position",
                           (case.model_dump_json(), case.from_run, now, who, set_id, case_id, int(version)))
            if not rows:
                raise self._case_conflict(execute, set_id, case_id)
            execute("UPDATE question_sets SET version = version + 1, updated_at = ?, updated_by = ? WHERE set_id = ?",
                    (now, who, set_id))
        return StoredCase(case=case, version=rows[0][0], position=rows[0][1], updated_at=now, updated_by=who)

    def remove_case(self, set_id: str, case_id: str, *, version: int, by: str = "",
                    permit: Permit = OPERATOR_PERMIT) -> None:
        """Remove case `case_id`, if nobody changed it since `version` was read."""
        now, who = now_iso(), _who(by)
        with self._atomic() as execute:
            self._may(execute, permit, "edit_set", set_id)
            rows = execute("DELETE FROM question_set_cases WHERE set_id = ? AND case_id = ? AND version = ? "
                           "RETURNING case_id", (set_id, case_id, int(version)))
            if not rows:
                raise self._case_conflict(execute, set_id, case_id)
            execute("UPDATE question_sets SET version = version + 1, updated_at = ?, updated_by = ? WHERE set_id = ?",
                    (now, who, set_id))

    # ----- plumbing ---------------------------------------------------------------------------
    def _insert_case(self, execute: Execute, set_id: str, case: EvalCase, now: str, who: str) -> StoredCase:
        """Insert one case at the end of the set; a case without an id gets the set's next free `q<N>`."""
        rows = execute("UPDATE question_sets SET next_case = next_case + 1 WHERE set_id = ? RETURNING next_case",
                       (set_id,))
        number = int(rows[0][0]) - 1
        case_id = case.id
        if case_id is None:
            case_id = f"q{number}"
            while execute("SELECT 1 FROM question_set_cases WHERE set_id = ? AND case_id = ?", (set_id, case_id)):
                number += 1
                case_id = f"q{number}"
            execute("UPDATE question_sets SET next_case = ? WHERE set_id = ? AND next_case <= ?",
                    (number + 1, set_id, number))
        elif execute("SELECT 1 FROM question_set_cases WHERE set_id = ? AND case_id = ?", (set_id, case_id)):
            raise QuestionSetError(_("the set already has a case with id {case}; choose another id").format(
                case=repr(case_id)))
        case = case.model_copy(update={"id": case_id})
        execute("INSERT INTO question_set_cases (set_id, case_id, position, version, case_json, from_run, updated_at, "
                "updated_by) VALUES (?, ?, ?, 1, ?, ?, ?, ?)",
                (set_id, case_id, number, case.model_dump_json(), case.from_run, now, who))
        return StoredCase(case=case, version=1, position=number, updated_at=now, updated_by=who)

    def _name_free(self, execute: Execute, key: str, shown: str, but: Optional[str] = None) -> None:
        rows = execute("SELECT set_id FROM question_sets WHERE name_key = ?", (key,))
        if rows and rows[0][0] != but:
            raise self._taken(shown)

    @staticmethod
    def _taken(name: str) -> SetNameTaken:
        return SetNameTaken(_("a question set named {name} already exists; choose another name (or add the cases "
                              "to that set)").format(name=repr(name)))

    def _set_conflict(self, execute: Execute, set_id: str) -> QuestionSetError:
        rows = execute("SELECT name, updated_by, updated_at FROM question_sets WHERE set_id = ?", (set_id,))
        if not rows:
            return SetEditConflict(_("this question set no longer exists; someone deleted it"))
        name, by, at = rows[0]
        return SetEditConflict(_("set {name} was changed by {person} at {when} since you opened it; nothing was "
                                 "written. Look at the set again, then repeat your change.").format(
            name=repr(name), person=by or _("someone"), when=at[:19].replace("T", " ")))

    def _case_conflict(self, execute: Execute, set_id: str, case_id: str) -> QuestionSetError:
        rows = execute("SELECT updated_by, updated_at FROM question_set_cases WHERE set_id = ? AND case_id = ?",
                       (set_id, case_id))
        if not rows:
            if not execute("SELECT 1 FROM question_sets WHERE set_id = ?", (set_id,)):
                return SetEditConflict(_("this question set no longer exists; someone deleted it"))
            return SetEditConflict(_("case {case} was removed by someone else since you opened it; nothing was "
                                     "written.").format(case=repr(case_id)))
        by, at = rows[0]
        return SetEditConflict(_("case {case} was changed by {person} at {when} since you opened it; nothing was "
                                 "written. Look at the case again, then repeat your change.").format(
            case=repr(case_id), person=by or _("someone"), when=at[:19].replace("T", " ")))


def open_sets(target: Optional[str] = None) -> tuple["RunHistory", QuestionSetStore]:
    """(RunHistory, its QuestionSetStore) for the configured history (rag/runs/location.py), for the CLI;
    the caller closes the history. UnknownSetError when there is no history to read."""
    from rag.runs.history import RunHistory
    from rag.runs.location import configured_history

    target = target or configured_history()
    if target is None:
        raise UnknownSetError(_("no run history here (RAG_HISTORY_URL / RAG_HISTORY_DB), so no question sets; make "
                                "one on the Evaluate page or with “Add to a question set” on a run"))
    history = RunHistory(target)
    return history, QuestionSetStore(history.storage)


def load_named_set(name: str) -> list[EvalCase]:
    """The cases of the stored set `name` in the configured history (`python -m rag.eval --set NAME`)."""
    history, store = open_sets()
    try:
        found = store.find(name)
    finally:
        history.close()
    if not found.cases:
        raise QuestionSetError(_("question set {name}: no cases").format(name=repr(found.name)))
    return found.eval_cases()


def cli_cases(path: Optional[str], set_name: Optional[str]) -> list[EvalCase]:
    """The cases a command names: a set file, or a stored set (`--set NAME`)."""
    from rag.eval.cases import load_cases

    return load_named_set(set_name) if set_name else load_cases(str(path))


__all__ = ["load_named_set", "cli_cases", "QuestionSetStore", "QuestionSet", "StoredCase", "SetSummary",
           "QuestionSetError", "SetNameTaken", "SetEditConflict", "UnknownSetError", "check_name", "name_key",
           "set_jsonl", "open_sets"]
