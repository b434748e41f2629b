"""How a typed answer to an `interrupt()` becomes the value sent back: pure rules, no Streamlit.

LangGraph hands the node whatever `Command(resume=...)` carries, any JSON-able value: a node written as
`resp = interrupt({"query": ...}); resp["data"]` needs a dict, not the text a person typed. So an answer
is read as the kind the person chose (text, a number, true/false, JSON), and an optional state update
(`Command(resume=..., update=...)`) as a JSON object.
"""
from __future__ import annotations

import json
from typing import Any, Literal, Optional

from rag_debugger.debugger.errors import DebuggerUserError
from rag_debugger.debugger.i18n import _

AnswerKind = Literal["text", "number", "bool", "json"]
ANSWER_KINDS: tuple[AnswerKind, ...] = ("text", "number", "bool", "json")


def default_kind(value: Any) -> AnswerKind:
    """The kind an answer box starts as for `interrupt(value)`: text for a question in words, JSON when the
    node passed structured data with no question in it (it most likely wants structured data back)."""
    if isinstance(value, str):
        return "text"
    if isinstance(value, dict) and any(isinstance(value.get(k), str) for k in
                                       ("question", "prompt", "message", "text", "query")):
        return "text"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "json" if isinstance(value, (dict, list)) else "text"


def parse_answer(kind: str, text: Any) -> Any:
    """The value sent back for what was typed as `kind`; a `DebuggerUserError` says what does not fit."""
    if kind == "bool":
        return bool(text)
    if kind == "number":
        if isinstance(text, (int, float)) and not isinstance(text, bool):
            return text
        raw = str(text or "").strip()
        try:
            number = float(raw)
        except ValueError:
            raise DebuggerUserError(_("the answer {text} is not a number").format(text=repr(raw[:40]))) from None
        return int(number) if number.is_integer() and "." not in raw and "e" not in raw.lower() else number
    if kind == "json":
        raw = str(text or "").strip()
        if not raw:
            raise DebuggerUserError(_("the JSON answer is empty: type a value, e.g. {\"data\": 1}, \"yes\" or null"))
        try:
            return json.loads(raw)
        except json.JSONDecodeError as exc:
            raise DebuggerUserError(_("the answer is not JSON: {error}").format(error=exc)) from None
    return "" if text is None else str(text)


def parse_update(text: Any) -> Optional[dict[str, Any]]:
    """The state update sent with the answer: None when blank, else a JSON object of fields."""
    raw = str(text or "").strip()
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise DebuggerUserError(_("the state update is not JSON: {error}").format(error=exc)) from None
    if not isinstance(value, dict):
        raise DebuggerUserError(_("the state update must be a JSON object of fields, e.g. {\"approved\": true}"))
    return value


def shown(value: Any, limit: int = 200) -> str:
    """An answer as a line for people (JSON for anything but a string)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


__all__ = ["ANSWER_KINDS", "AnswerKind", "default_kind", "parse_answer", "parse_update", "shown"]
