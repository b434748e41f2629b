"""Who may do what on a shared server: one pure rule, `decide(actor, action, owner, settings)`.

Why one module: the history, the feedback, the question sets, the prompt versions, the telemetry switch and
the knowledge bases each used to carry (or lack) their own check; a team server needs the same answer
everywhere, and a table test that covers every row of the table in docs/team_server.md. The stores call
`require` at their boundary (a page that forgets to hide a button is still refused there); the pages call
`decide` only to hide what would be refused.

The identity rests on the login (Streamlit's `st.login`), never on the name typed on Settings (anyone can type
anyone's name). With a login, a member owns the runs, feedback and question sets they made and may create
their own; `RAG_ADMINS` may do everything; process-wide state (the telemetry switch, the active prompt version,
overwriting or deleting a saved version) is the admins' alone. Something recorded without an owner (before the
login existed, or by the command line) is the admins'. Without a login every visitor is the same nobody, so
the operator chooses with `RAG_SHARED_STATE`: `open` (anyone changes everything, as on one's own laptop) or
`read-only` (visitors run, step, replay and export, and change nothing others see). The default follows where
the server listens: `open` on a loopback address, `read-only` on any other (Streamlit's `server.address`;
unset means every interface).

`RAG_RUN_VISIBILITY=owner` (with a login) shows each member only their own runs; admins see all.
"""
from __future__ import annotations

import ipaddress
import os
from typing import Literal, Mapping, NamedTuple, Optional

from pydantic import BaseModel, ConfigDict

from rag.errors import UserFixableError
from rag.i18n import N_, _

Action = Literal[
    "record_run", "view_run", "import_run", "delete_run",
    "give_feedback", "withdraw_feedback",
    "create_set", "edit_set", "delete_set",
    "save_prompt_version", "overwrite_prompt_version", "delete_prompt_version", "activate_prompt_version",
    "switch_telemetry",
    "create_kb", "change_kb", "delete_kb",
    "record_evaluation", "view_evaluation", "overwrite_evaluation", "delete_evaluation",
]
SharedState = Literal["open", "read-only"]
Visibility = Literal["all", "owner"]

SHARED_STATE_ENV = "RAG_SHARED_STATE"
VISIBILITY_ENV = "RAG_RUN_VISIBILITY"
ADMINS_ENV = "RAG_ADMINS"

#: Anyone may do these, whoever they are (running questions, or a question set, is what the app is for).
ANYONE: frozenset[str] = frozenset({"record_run", "record_evaluation"})
#: Seeing a record: everyone, unless `RAG_RUN_VISIBILITY=owner` makes runs and saved evaluations private.
VIEW: frozenset[str] = frozenset({"view_run", "view_evaluation"})
#: A signed-in member may do these to what they own; an admin to anything.
OWN: frozenset[str] = frozenset({"delete_run", "withdraw_feedback", "edit_set", "delete_set", "change_kb",
                                 "delete_kb", "overwrite_evaluation", "delete_evaluation"})
#: A signed-in member may create these (they then own them).
CREATE: frozenset[str] = frozenset({"import_run", "give_feedback", "create_set", "save_prompt_version", "create_kb"})
#: Process-wide state: admins only (with a login).
ADMIN: frozenset[str] = frozenset({"overwrite_prompt_version", "delete_prompt_version", "activate_prompt_version",
                                   "switch_telemetry"})
ACTIONS: tuple[str, ...] = (*sorted(ANYONE), *sorted(VIEW), *sorted(CREATE), *sorted(OWN), *sorted(ADMIN))

REFUSALS: dict[str, str] = {
    "sign_in": N_("Sign in first: on this server only signed-in members may do that."),
    "not_yours": N_("Only its owner or an admin (RAG_ADMINS) may do that."),
    "admins_only": N_("Only an admin (RAG_ADMINS) may do that: it changes the server for everyone."),
    "read_only": N_("This server is read-only for visitors (RAG_SHARED_STATE=read-only): you can run, step, "
                    "replay and export, but not change what others see."),
    "not_available": N_("That run is not available."),
}
"""Why a request was refused, in English (the catalogue's ids: show them with `_()`)."""


class AccessRefused(UserFixableError):
    """The actor may not do that; the message says why and what would allow it."""


def norm(person: object) -> str:
    """An identity as compared: spaces collapsed, case folded (e-mails are case-insensitive in practice)."""
    return " ".join(str(person or "").split()).casefold()


class Actor(BaseModel):
    """Who asks. `identity` is the signed-in user's e-mail (or subject), "" when nobody is signed in; a name
    typed on Settings is never an identity. `operator` is the server's own code (the command line, scripts):
    whoever can run those already owns the server."""

    model_config = ConfigDict(frozen=True)

    identity: str = ""
    operator: bool = False


OPERATOR = Actor(operator=True)
NOBODY = Actor()


class AccessSettings(BaseModel):
    """The server's access settings: from its environment and its bind address, never from a browser."""

    model_config = ConfigDict(frozen=True)

    login: bool = False
    """The app has a login (an `[auth]` section): visitors can be told apart."""
    admins: frozenset[str] = frozenset()
    shared_state: SharedState = "open"
    run_visibility: Visibility = "all"

    def is_admin(self, actor: Actor) -> bool:
        return actor.operator or (bool(norm(actor.identity)) and norm(actor.identity) in self.admins)


class Decision(NamedTuple):
    allowed: bool
    why: str

    @property
    def message(self) -> str:
        return _(REFUSALS[self.why]) if self.why in REFUSALS else ""


def decide(actor: Actor, action: str, owner: str, settings: AccessSettings) -> Decision:
    """May `actor` do `action` to something owned by `owner` ("" when nobody is recorded, or for creating)? Pure."""
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}")
    ok = Decision(True, "ok")
    if action in ANYONE or settings.is_admin(actor):
        return ok
    who = norm(actor.identity)
    mine = bool(who) and who == norm(owner)
    if action in VIEW:
        if settings.login and settings.run_visibility == "owner" and not mine:
            return Decision(False, "not_available")
        return ok
    if not settings.login:
        return ok if settings.shared_state == "open" else Decision(False, "read_only")
    if not who:
        return Decision(False, "sign_in")
    if action in ADMIN:
        return Decision(False, "admins_only")
    if action in OWN:
        return ok if mine else Decision(False, "not_yours")
    return ok  # CREATE: a signed-in member


# ----- the server's settings ------------------------------------------------------------------------------

def admins(raw: Optional[str] = None) -> frozenset[str]:
    """The identities in `RAG_ADMINS` (or `raw`), normalised like a signed-in e-mail."""
    text = os.environ.get(ADMINS_ENV, "") if raw is None else raw
    return frozenset(p for p in (norm(x) for x in text.split(",")) if p)


def is_loopback(address: Optional[str]) -> bool:
    """True for an address only this machine can reach. Unset or empty means every interface (Streamlit's
    default), so False; so is a host name other than `localhost`."""
    text = str(address or "").strip().strip("[]")
    if not text:
        return False
    if text.casefold() == "localhost":
        return True
    try:
        return ipaddress.ip_address(text).is_loopback
    except ValueError:
        return False


class SettingsError(ValueError):
    """An access variable with a value the app does not know (refused at start, never guessed)."""


def access_settings(env: Mapping[str, str], *, login: bool, bind_address: Optional[str]) -> AccessSettings:
    """The settings from environment variables and the bind address (pure, tested as a table)."""
    shared = (env.get(SHARED_STATE_ENV) or "").strip().casefold().replace("_", "-")
    if not shared:
        shared = "open" if is_loopback(bind_address) else "read-only"
    if shared not in ("open", "read-only"):
        raise SettingsError(f"{SHARED_STATE_ENV} must be 'open' or 'read-only', not {shared[:40]!r}")
    visibility = (env.get(VISIBILITY_ENV) or "all").strip().casefold() or "all"
    if visibility not in ("all", "owner"):
        raise SettingsError(f"{VISIBILITY_ENV} must be 'all' or 'owner', not {visibility[:40]!r}")
    return AccessSettings(login=login, admins=admins(env.get(ADMINS_ENV, "")), shared_state=shared,
                          run_visibility=visibility)


def bind_address() -> Optional[str]:
    """Where this process's Streamlit server listens (`server.address`), None outside Streamlit or unset."""
    try:
        from streamlit import config

        value = config.get_option("server.address")
        return str(value) if value else None
    except Exception:  # noqa: BLE001 - no Streamlit: a script or the command line
        return None


def server_settings(*, login: bool) -> AccessSettings:
    """This process's settings, read from the environment on every call (cheap; a test's monkeypatch applies).
    `login`: whether the app has a login (the app reads Streamlit's secrets; this module cannot)."""
    return access_settings(os.environ, login=login, bind_address=bind_address())


class Permit(NamedTuple):
    """An actor with the server's settings: what the stores take to check a request at their boundary."""

    actor: Actor
    settings: AccessSettings

    def decide(self, action: str, owner: str = "") -> Decision:
        return decide(self.actor, action, owner, self.settings)

    def allows(self, action: str, owner: str = "") -> bool:
        return self.decide(action, owner).allowed

    def require(self, action: str, owner: str = "") -> None:
        """AccessRefused, saying why, when the actor may not do `action` to `owner`'s record."""
        decision = self.decide(action, owner)
        if not decision.allowed:
            raise AccessRefused(decision.message)

    @property
    def owner(self) -> str:
        """What a new record's owner column holds: the signed-in identity, else "" (the admins')."""
        return " ".join(str(self.actor.identity or "").split())[:200]

    @property
    def private_runs(self) -> bool:
        """Runs are shown to their owner only (and everything to admins)."""
        return self.settings.login and self.settings.run_visibility == "owner" and not self.settings.is_admin(self.actor)


OPERATOR_PERMIT = Permit(OPERATOR, AccessSettings())
"""The server's own code (the command line, scripts, tests of a store): may do everything."""


__all__ = ["Action", "Actor", "AccessSettings", "AccessRefused", "Decision", "OPERATOR", "NOBODY", "ACTIONS",
           "Permit", "OPERATOR_PERMIT", "decide", "admins", "is_loopback", "access_settings", "server_settings",
           "norm", "SettingsError", "REFUSALS"]
