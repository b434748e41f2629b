"""People's feedback on a run: a verdict (good / wrong), a reason, a note and optionally the outcome the run
should have had, stored in the run history beside the run (table `feedback`, schema version 4).

Why in the history and not in the export document: the Run history page filters on it ("has feedback",
"wrong") in SQL, a page at a time, so it must be rows it can index; an export carries a run's feedback as
a list (`feedback` in the document) and an import writes that list back as rows (`store_carried`).

One voice per person: a named person (the same identity the history records in `run_by`: the signed-in
user, else the name set on Settings) who gives feedback again on a run replaces their earlier feedback, so
a changed mind is not counted twice ("wrong ×2" means two people). Feedback given without a name is kept
as given, each entry on its own (nobody can tell two anonymous people apart).

Carried feedback never speaks for a person here (issue 39): entries an imported file brings are marked
`imported`, their `given_by` is only what the file claims. They never replace or remove an entry given on
this server (whatever name or date they carry), are counted apart ("carried ×n"), and never become a
person's label (`expected_from_feedback` reads given entries only, so agreement never counts them).
Who may give, withdraw and import is rag/access.py's rule, checked here (`permit`), not only on the page.

Public API (the question sets call it): `feedback_for_run(history, run_id)` and
`expected_from_feedback(items)`.
"""
from __future__ import annotations

import json
import uuid
from collections import Counter
from datetime import datetime
from typing import Any, Iterable, Literal, Mapping, NamedTuple, Optional

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rag.access import OPERATOR_PERMIT, Permit, norm
from rag.errors import UserFixableError
from rag.i18n import N_, _
from rag.runs.run_info import now_iso

Verdict = Literal["good", "wrong"]
Reason = Literal["wrong_route", "missing_evidence", "wrong_evidence", "bad_rewrite", "bad_answer",
                 "should_have_asked", "should_not_have_asked", "other"]
ExpectedRoute = Literal["answer", "clarify", "scope_select", "no_knowledge"]
"""The routes a run can end in (the same values as `rag.eval.cases.ExpectedRoute`, which sits a layer above)."""
FeedbackOrigin = Literal["given", "imported"]

VERDICTS: dict[str, str] = {"good": N_("good"), "wrong": N_("wrong")}
REASONS: dict[str, str] = {
    "wrong_route": N_("wrong route"), "missing_evidence": N_("missing evidence"),
    "wrong_evidence": N_("wrong evidence"), "bad_rewrite": N_("bad rewrite"), "bad_answer": N_("bad answer"),
    "should_have_asked": N_("should have asked"), "should_not_have_asked": N_("should not have asked"),
    "other": N_("other"),
}
"""Option values (stored) and their English labels (the catalogue's ids: show them with `_()`)."""
EXPECTED_ROUTES: tuple[str, ...] = ("answer", "clarify", "scope_select", "no_knowledge")

NOTE_MAX_CHARS = 2000
"""A note is a remark, not a report: about a screen of text. Longer is refused (said plainly), never cut."""
MAX_ITEMS = 20
"""Expected sources / answer words: at most this many each."""
ITEM_MAX_CHARS = 200


class FeedbackError(UserFixableError):
    """Feedback that cannot be kept: a rule it breaks, or a run that is no longer in the history."""


# ----- rules (pure, tested as tables) ---------------------------------------------------------------

def feedback_problem(verdict: Any, reason: Any, note: Any, sources: Iterable[str] = (),
                     answer_words: Iterable[str] = ()) -> Optional[str]:
    """Why this feedback cannot be kept, in the reader's language, or None when it can."""
    if verdict not in VERDICTS:
        return _("Choose a verdict: good or wrong.")
    if reason is not None and reason not in REASONS:
        return _("{reason} is not a reason this app knows; choose one from the list.").format(reason=repr(reason))
    if verdict == "wrong" and reason is None:
        return _("Say why the run is wrong: choose a reason (“other” when none fits, and say it in the note).")
    if verdict == "good" and reason is not None:
        return _("A reason is for a wrong run; leave it empty for a good one.")
    text = "" if note is None else str(note)
    if len(text) > NOTE_MAX_CHARS:
        return _("The note is {n} characters long; a note can be at most {limit}. Shorten it (nothing was saved).").format(
            n=f"{len(text):,}", limit=f"{NOTE_MAX_CHARS:,}")
    for what, items in ((_("expected sources"), list(sources)), (_("words the answer must contain"),
                                                                 list(answer_words))):
        if len(items) > MAX_ITEMS:
            return _("At most {limit} {what}; {n} were given.").format(limit=MAX_ITEMS, what=what, n=len(items))
        long = next((item for item in items if len(item) > ITEM_MAX_CHARS), None)
        if long is not None:
            return _("One of the {what} is {n} characters long; at most {limit} each.").format(
                what=what, n=len(long), limit=ITEM_MAX_CHARS)
    return None


def split_items(text: Optional[str]) -> list[str]:
    """The items of a box of sources or words: one per line or comma-separated, trimmed, blanks and
    repeats dropped, order kept."""
    raw = (text or "").replace("，", ",").replace("\n", ",").split(",")
    return list(dict.fromkeys(item.strip() for item in raw if item.strip()))


# ----- the model --------------------------------------------------------------------------------------

class Expected(BaseModel):
    """What the run should have done; every part is optional."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    route: Optional[ExpectedRoute] = None
    sources: list[str] = Field(default_factory=list)
    """File names the answer should cite."""
    answer_words: list[str] = Field(default_factory=list)
    """Words the answer must contain."""

    @property
    def is_empty(self) -> bool:
        return self.route is None and not self.sources and not self.answer_words


class Feedback(BaseModel):
    """One person's feedback on one run (a row of `feedback`, an item of an export's `feedback` list)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    feedback_id: str = Field(min_length=1, max_length=64)
    run_id: str
    verdict: Verdict
    reason: Optional[Reason] = None
    note: str = ""
    expected: Optional[Expected] = None
    given_by: str = Field(default="", max_length=200)
    """Who gave it: the signed-in user's e-mail, else the name set on Settings, else empty."""
    given_at: str
    origin: FeedbackOrigin = "given"
    """`imported` when it came with an imported run's file (then `given_by` is only what the file claims)."""
    owner: str = Field(default="", max_length=200)
    """Who owns the entry here (rag/access.py): the signed-in identity that gave it, or that imported the file it
    came with; "" when nobody was signed in. Never exported, never read from a file."""

    @field_validator("given_at")
    @classmethod
    def _a_moment(cls, value: str) -> str:
        """An ISO 8601 date and time (a file's `given_at` is shown and sorted on; anything else is refused)."""
        try:
            datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(f"given_at is not an ISO 8601 date and time: {value[:40]!r}") from None
        return value

    @field_validator("expected")
    @classmethod
    def _drop_empty(cls, value: Optional[Expected]) -> Optional[Expected]:
        return None if value is None or value.is_empty else value

    @model_validator(mode="after")
    def _rules(self) -> "Feedback":
        expected = self.expected or Expected()
        problem = feedback_problem(self.verdict, self.reason, self.note, expected.sources, expected.answer_words)
        if problem:
            raise ValueError(problem)
        return self


def new_feedback(run_id: str, *, verdict: Any, reason: Any = None, note: str = "", expected: Optional[Expected] = None,
                 given_by: str = "", at: Optional[str] = None) -> Feedback:
    """A new entry, checked by the rules (a FeedbackError says what to change)."""
    expected = expected or Expected()
    problem = feedback_problem(verdict, reason, note, expected.sources, expected.answer_words)
    if problem:
        raise FeedbackError(problem)
    return Feedback(feedback_id=uuid.uuid4().hex, run_id=run_id, verdict=verdict, reason=reason, note=note or "",
                    expected=expected, given_by=" ".join(str(given_by or "").split())[:200], given_at=at or now_iso())


def expected_from_feedback(items: Iterable[Feedback]) -> Optional[Expected]:
    """The corrected outcome people gave here: the newest `wrong` feedback given on this server that names an
    expected route, else None (a good verdict, a wrong one without a route, or feedback an import carried,
    corrects nothing)."""
    corrected = [f for f in items if f.verdict == "wrong" and f.expected is not None and f.expected.route
                 and f.origin == "given"]  # a file's claim is nobody's label here
    if not corrected:
        return None
    return max(corrected, key=lambda f: f.given_at).expected


class Summary(NamedTuple):
    """How many entries of each verdict a run has (the Run history column); `carried` counts the entries imported
    files brought, which speak for nobody here and are left out of `good` and `wrong`."""

    good: int = 0
    wrong: int = 0
    carried: int = 0

    @property
    def total(self) -> int:
        return self.good + self.wrong


def summary_text(summary: Optional[Summary]) -> str:
    """The Run history column: "wrong ×2 · good ×1 · carried ×1", "" for a run without feedback."""
    if summary is None or not (summary.total or summary.carried):
        return ""
    parts = []
    if summary.wrong:
        parts.append(_("wrong ×{n}").format(n=summary.wrong))
    if summary.good:
        parts.append(_("good ×{n}").format(n=summary.good))
    if summary.carried:
        parts.append(_("carried ×{n}").format(n=summary.carried))
    return " · ".join(parts)


def merge_carried(existing: Iterable[Feedback], carried: Iterable[Feedback]) -> list[Feedback]:
    """The entries to add when an import brings `carried` to a run that has `existing` (pure): those not already
    there (by id). Nothing is ever removed: a carried entry never replaces one given here, whatever name and
    date it claims, nor another carried one."""
    by_id = {f.feedback_id for f in existing}
    add: list[Feedback] = []
    for item in carried:
        if item.feedback_id in by_id:
            continue
        add.append(item)
        by_id.add(item.feedback_id)
    return add


# ----- storage ------------------------------------------------------------------------------------------

COLUMNS = ("feedback_id", "run_id", "verdict", "reason", "note", "expected_json", "given_by", "given_at", "origin",
           "owner")


def _row(item: Feedback) -> tuple:
    expected = None if item.expected is None else json.dumps(item.expected.model_dump(mode="json"), ensure_ascii=False)
    return (item.feedback_id, item.run_id, item.verdict, item.reason, item.note, expected, item.given_by,
            item.given_at, item.origin, item.owner)


def _from_row(row: tuple) -> Feedback:
    data = dict(zip(COLUMNS, row, strict=True))
    expected = data.pop("expected_json")
    data["expected"] = json.loads(expected) if expected else None
    return Feedback.model_validate(data)


def _gone(run_id: str) -> FeedbackError:
    return FeedbackError(_("Run {run} is no longer in the run history (it was deleted), so feedback on it cannot be "
                           "kept. Import its export again to give feedback on it.").format(run=run_id))


_INSERT = (f"INSERT INTO feedback ({', '.join(COLUMNS)}) SELECT {', '.join('?' for _ in COLUMNS)} "
           "WHERE EXISTS (SELECT 1 FROM runs WHERE run_id=?) RETURNING feedback_id")


def give_feedback(history: Any, item: Feedback, permit: Permit = OPERATOR_PERMIT) -> Feedback:
    """Store `item` on its run as given here, owned by `permit`'s identity (a named person's earlier feedback
    given on the run is replaced, in the same transaction; carried entries are left alone). AccessRefused when
    `permit` may not give feedback; FeedbackError for a run that is not (or no longer) in the history: checked
    by the insert itself, so a delete between the page's draw and the click cannot leave feedback on nothing."""
    permit.require("give_feedback")
    update = {"origin": "given", "owner": permit.owner}
    if permit.settings.login and not permit.actor.operator:  # with a login one speaks in one's own name only
        update["given_by"] = permit.owner
    item = item.model_copy(update=update)
    storage = history.storage
    with storage.transaction() as execute:
        if item.given_by:
            execute("DELETE FROM feedback WHERE run_id=? AND given_by=? AND origin='given'",
                    (item.run_id, item.given_by))
        if not execute(_INSERT, (*_row(item), item.run_id)):
            raise _gone(item.run_id)
    return item


def feedback_for_run(history: Any, run_id: str) -> list[Feedback]:
    """Every feedback on the run, oldest first ([] for a run without any, or one that is not there)."""
    rows = history.storage.execute(f"SELECT {', '.join(COLUMNS)} FROM feedback WHERE run_id=? "
                                   "ORDER BY given_at, feedback_id", (run_id,))
    return [_from_row(r) for r in rows]


def withdraw_feedback(history: Any, run_id: str, feedback_id: str, *, given_by: str,
                      permit: Permit = OPERATOR_PERMIT) -> bool:
    """Remove one entry (its author changed their mind). With a login, the entry's owner or an admin may
    (rag/access.py); without one, only an entry given here under `given_by` (the name this browser session
    runs under), and only when visitors may change shared state. Anything else is left alone. True when an
    entry was removed; AccessRefused when the rule refuses."""
    rows = history.storage.execute("SELECT owner, given_by, origin FROM feedback WHERE run_id=? AND feedback_id=?",
                                   (run_id, feedback_id))
    if not rows:
        return False
    owner, by, origin = rows[0]
    permit.require("withdraw_feedback", owner)
    if permit.settings.login:
        allowed = permit.settings.is_admin(permit.actor) or (bool(norm(owner)) and norm(owner) == norm(
            permit.actor.identity))
    else:
        allowed = origin == "given" and bool(given_by) and by == given_by
    if not allowed:
        return False
    deleted = history.storage.execute("DELETE FROM feedback WHERE run_id=? AND feedback_id=? RETURNING feedback_id",
                                      (run_id, feedback_id))
    return bool(deleted)


def summaries(history: Any, run_ids: Iterable[str]) -> dict[str, Summary]:
    """The verdict counts of these runs (one page of Run history: an indexed lookup per run, never a
    scan of every run's feedback). Runs without feedback are left out."""
    ids = list(dict.fromkeys(run_ids))
    if not ids:
        return {}
    rows = history.storage.execute(
        f"SELECT run_id, verdict, origin, COUNT(*) FROM feedback WHERE run_id IN ({', '.join('?' for _ in ids)}) "
        "GROUP BY run_id, verdict, origin", tuple(ids))
    counts: dict[str, Counter] = {}
    for run_id, verdict, origin, n in rows:
        counts.setdefault(run_id, Counter())[verdict if origin == "given" else "carried"] += int(n)
    return {run_id: Summary(good=c["good"], wrong=c["wrong"], carried=c["carried"]) for run_id, c in counts.items()}


def store_carried(history: Any, run_id: str, carried: Iterable[Mapping[str, Any] | Feedback], *, owner: str = "") -> int:
    """Write the feedback an imported file carried onto the imported run `run_id`: marked `imported`, owned by
    who imported it (`owner`), added beside what the run already has and never in place of it
    (`merge_carried`). Returns how many entries were added."""
    items = [(c if isinstance(c, Feedback) else Feedback.model_validate(c)) for c in carried]
    items = [c.model_copy(update={"run_id": run_id, "origin": "imported", "owner": " ".join(owner.split())[:200]})
             for c in items]
    if not items:
        return 0
    add = merge_carried(feedback_for_run(history, run_id), items)
    if add:  # ids another run's feedback holds (the same file imported as another run, or a forged id): fresh ids
        ids = [item.feedback_id for item in add]
        taken = {r[0] for r in history.storage.execute(
            f"SELECT feedback_id FROM feedback WHERE run_id<>? AND feedback_id IN ({', '.join('?' for _ in ids)})",
            (run_id, *ids))}
        add = [item.model_copy(update={"feedback_id": uuid.uuid4().hex}) if item.feedback_id in taken else item
               for item in add]
    with history.storage.transaction() as execute:
        for item in add:
            if not execute(_INSERT, (*_row(item), run_id)):
                raise _gone(run_id)
    return len(add)


def export_list(history: Any, run_id: str) -> list[dict]:
    """The run's feedback as an export document carries it (the run id is the document's own)."""
    return [f.model_dump(mode="json", exclude={"run_id", "origin", "owner"}) for f in feedback_for_run(history, run_id)]


def require_run(history: Any, run_id: Optional[str]) -> None:
    """FeedbackError when the run cannot take feedback (not recorded, or deleted)."""
    if not run_id:
        raise FeedbackError(_("This run is not recorded in the run history, so feedback on it cannot be kept."))
    if not history.has_run(run_id):
        raise _gone(run_id)


__all__ = ["Feedback", "Expected", "FeedbackError", "Summary", "VERDICTS", "REASONS", "EXPECTED_ROUTES",
           "NOTE_MAX_CHARS", "feedback_problem", "split_items", "new_feedback", "expected_from_feedback",
           "summary_text", "merge_carried", "give_feedback", "feedback_for_run", "withdraw_feedback", "summaries",
           "store_carried", "export_list", "require_run"]
