"""How to ask a person an `interrupt(value)`'s question: pure rules over the value, no Streamlit.

LangGraph lets a node pass any value to `interrupt()`. The page answers with `Command(resume=...)`
and needs to know which widget fits:
- options: a list of strings, or a dict with `options` (a list of strings) -> one button each,
  and the chosen string is the answer;
- a typed form: a dict with a JSON `schema` (or `json_schema`) -> one field per property, and the
  answer is the dict of fields (a non-object schema answers with the bare value);
- free text otherwise -> the typed text is the answer.
The question shown is the dict's `question` / `prompt` / `message` / `text` when there is one.
"""
from __future__ import annotations

import json
from typing import Any, Literal, Optional

from pydantic import BaseModel

from rag_debugger.debugger.i18n import _
from rag_debugger.debugger.input_form import FormField, json_schema_fields

AskKind = Literal["options", "form", "text"]
_QUESTION_KEYS = ("question", "prompt", "message", "text", "query")


class InterruptAsk(BaseModel):
    kind: AskKind
    question: str
    options: list[str] = []
    fields: list[FormField] = []
    bare_value: bool = False
    """A form over a non-object schema: answer with the single field's value, not a dict."""


def _string_list(value: Any) -> Optional[list[str]]:
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def _question(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for key in _QUESTION_KEYS:
            if isinstance(value.get(key), str) and value[key].strip():
                return value[key]
    if _string_list(value):
        return _("Pick one:")
    try:
        return json.dumps(value, ensure_ascii=False, default=str, indent=1)
    except Exception:  # noqa: BLE001
        return repr(value)


def ask_for(value: Any) -> InterruptAsk:
    """The widget that answers `interrupt(value)`."""
    question = _question(value)
    options = _string_list(value)
    if options is None and isinstance(value, dict):
        options = _string_list(value.get("options"))
    if options:
        return InterruptAsk(kind="options", question=question, options=options)
    if isinstance(value, dict):
        schema = value.get("schema") if isinstance(value.get("schema"), dict) else value.get("json_schema")
        if isinstance(schema, dict):
            fields = json_schema_fields(schema)
            bare = not (schema.get("type") == "object" and isinstance(schema.get("properties"), dict))
            return InterruptAsk(kind="form", question=question, fields=fields, bare_value=bare)
    return InterruptAsk(kind="text", question=question)


__all__ = ["InterruptAsk", "ask_for"]
