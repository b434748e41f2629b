"""An input form for any graph, generated from its input schema, as plain data (no Streamlit here).

Why fields and not a JSON box only: most graph inputs are a few strings, numbers and flags, and a
typed field says what is expected without reading the code. Simple types (str, int, float, bool,
and their Optional forms) get a field of their own; anything else (lists, dicts, nested models)
is a JSON field. The schema is the graph's own: `builder.input_schema` (a TypedDict or a pydantic
model), or a JSON schema (an `interrupt()` value that carries one).

`parse_form` turns the raw field texts back into the graph's input and says what is wrong, field by
field, in words a person can act on (`InputFormError`).
"""
from __future__ import annotations

import json
import typing
from typing import Any, Literal, Mapping, Optional

from pydantic import BaseModel, TypeAdapter, ValidationError

from debugger.errors import DebuggerUserError
from debugger.i18n import N_, _

INPUT_MISFIT = N_("the input does not fit the graph's schema")
ANSWER_MISFIT = N_("the answer does not fit the question's schema")

OPTIONAL_SUFFIX = " (optional)"

Kind = Literal["text", "int", "float", "bool", "json"]
_SIMPLE: dict[Any, Kind] = {str: "text", int: "int", float: "float", bool: "bool"}
_JSON_TYPES: dict[str, Kind] = {"string": "text", "integer": "int", "number": "float", "boolean": "bool"}


class InputFormError(DebuggerUserError):
    """The form's values do not fit the schema; the message names each field and what it needs."""


class FormField(BaseModel):
    name: str
    kind: Kind
    required: bool = False
    default: Any = None
    """The value the field starts with (from the schema's default or a saved input)."""
    help: str = ""
    type_name: str = ""
    """The declared type, for the field's label ("list[str]")."""
    optional: bool = False
    """The declared type allows None (the label says "optional")."""
    annotation: Any = None
    """The Python type to validate against (None: the JSON schema's own checks only)."""
    json_schema: Optional[dict] = None


def _strip(tp: Any) -> tuple[Any, bool]:
    """(the type under Annotated / Optional / Required / NotRequired, whether None is allowed)."""
    optional = False
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            tp = typing.get_args(tp)[0]
        elif origin in (typing.Required, typing.NotRequired):
            tp = typing.get_args(tp)[0]
        elif origin is typing.Union or str(origin) == "<class 'types.UnionType'>":
            args = [a for a in typing.get_args(tp) if a is not type(None)]
            optional = optional or len(args) < len(typing.get_args(tp))
            if len(args) != 1:
                return tp, optional
            tp = args[0]
        else:
            return tp, optional


def _type_name(tp: Any) -> str:
    return tp.__name__ if typing.get_origin(tp) is None and hasattr(tp, "__name__") \
        else str(tp).replace("typing.", "")


def _field(name: str, annotation: Any, *, required: bool, default: Any, help: str = "") -> FormField:
    inner, optional = _strip(annotation)
    kind = _SIMPLE.get(inner, "json")
    return FormField(name=name, kind=kind, required=required and not optional, default=default, help=help,
                     type_name=_type_name(inner) + (OPTIONAL_SUFFIX if optional else ""), optional=optional,
                     annotation=annotation)


def input_schema(graph: Any) -> Any:
    """The graph's input schema (a TypedDict or pydantic class), or None when it has none."""
    builder = getattr(graph, "builder", graph)
    return getattr(builder, "input_schema", None) or getattr(builder, "state_schema", None)


def schema_fields(schema: Any) -> list[FormField]:
    """Form fields of a TypedDict or pydantic model class, in declaration order."""
    if schema is None:
        return []
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        out = []
        for name, info in schema.model_fields.items():
            default = None if info.is_required() else info.get_default(call_default_factory=True)
            out.append(_field(name, info.annotation, required=info.is_required(), default=default,
                              help=info.description or ""))
        return out
    try:
        hints = typing.get_type_hints(schema, include_extras=True)
    except Exception:  # noqa: BLE001 - an unresolvable annotation: offer the field as JSON
        hints = dict(getattr(schema, "__annotations__", {}) or {})
    required = set(getattr(schema, "__required_keys__", ()) or ())
    return [_field(name, tp, required=False, default=None, help="") if name not in required
            else _field(name, tp, required=True, default=None) for name, tp in hints.items()]


def json_schema_fields(schema: Mapping[str, Any]) -> list[FormField]:
    """Form fields of an object JSON schema (`properties`, `required`); a schema that is not an
    object is one field named `value`."""
    if schema.get("type") != "object" or not isinstance(schema.get("properties"), Mapping):
        kind = _JSON_TYPES.get(str(schema.get("type")), "json")
        return [FormField(name="value", kind=kind, required=True, default=schema.get("default"),
                          help=str(schema.get("description") or ""), type_name=str(schema.get("type") or "JSON"),
                          json_schema=dict(schema))]
    required = set(schema.get("required") or ())
    out = []
    for name, prop in schema["properties"].items():
        prop = prop if isinstance(prop, Mapping) else {}
        kind = "text" if prop.get("enum") else _JSON_TYPES.get(str(prop.get("type")), "json")
        out.append(FormField(name=name, kind=kind, required=name in required, default=prop.get("default"),
                             help=str(prop.get("description") or prop.get("title") or ""),
                             type_name=str(prop.get("type") or "JSON"), json_schema=dict(prop)))
    return out


def type_label(field: FormField) -> str:
    """The field's type as its label shows it, in the reader's language ("float (optional)")."""
    if field.optional and field.type_name.endswith(OPTIONAL_SUFFIX):
        return _("{type} (optional)").format(type=field.type_name[: -len(OPTIONAL_SUFFIX)])
    return field.type_name or field.kind


def with_defaults(fields: list[FormField], saved: Optional[Mapping[str, Any]]) -> list[FormField]:
    """The fields, starting from a saved input's values (`--input file.json`)."""
    if not saved:
        return fields
    return [f.model_copy(update={"default": saved[f.name]}) if f.name in saved else f for f in fields]


def initial_text(field: FormField) -> str:
    """What a text or JSON field shows before anyone types."""
    if field.default is None:
        return ""
    if field.kind == "json":
        return json.dumps(field.default, ensure_ascii=False, default=str)
    return str(field.default)


def _check_json_schema(value: Any, prop: Mapping[str, Any]) -> Optional[str]:
    """The few JSON-schema rules a typed answer form needs: enum, minimum, maximum."""
    if prop.get("enum") and value not in prop["enum"]:
        return _("must be one of {values}").format(values=", ".join(map(str, prop["enum"])))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in prop and value < prop["minimum"]:
            return _("must be at least {minimum}").format(minimum=prop["minimum"])
        if "maximum" in prop and value > prop["maximum"]:
            return _("must be at most {maximum}").format(maximum=prop["maximum"])
    return None


def parse_form(fields: list[FormField], raw: Mapping[str, Any], *, schema: Any = None,
               what: str = INPUT_MISFIT) -> dict[str, Any]:
    """The input dict from the form's raw values (text for text/JSON fields, numbers, booleans).

    A blank optional field is left out (the graph's own default applies). Every problem is
    collected, so one message lists them all. `what` is the message's lead (an `N_`-marked English text,
    translated here). With `schema` (a pydantic class), the whole input
    is also validated the way LangGraph will, so the run does not fail on its first step."""
    out: dict[str, Any] = {}
    problems: list[str] = []
    for f in fields:
        value = raw.get(f.name)
        if value is None or (f.kind in ("text", "json") and str(value).strip() == ""):
            if f.required:
                problems.append(_("{field}: required").format(field=f.name))
            continue
        if f.kind == "json":
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                problems.append(_("{field}: not valid JSON ({error} at line {line} column {column})").format(
                    field=f.name, error=exc.msg, line=exc.lineno, column=exc.colno))
                continue
        if f.annotation is not None:
            try:
                value = TypeAdapter(f.annotation).validate_python(value)
            except ValidationError as exc:
                problems.append(_("{field}: expected {type} ({error})").format(
                    field=f.name, type=f.type_name or _("another value"), error=_first_error(exc)))
                continue
            except Exception:  # noqa: BLE001 - a type pydantic cannot check: take the value as typed
                pass
        if f.json_schema:
            issue = _check_json_schema(value, f.json_schema)
            if issue:
                problems.append(_("{field}: {problem}").format(field=f.name, problem=issue))
                continue
        out[f.name] = value
    if not problems and isinstance(schema, type) and issubclass(schema, BaseModel):
        try:
            schema.model_validate(out)
        except ValidationError as exc:
            problems.extend(f"{'.'.join(map(str, e['loc'])) or 'input'}: {e['msg']}" for e in exc.errors())
    if problems:
        raise InputFormError(_("{what}: {problems}").format(what=_(what), problems="; ".join(problems)))
    return out


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors()
    return errors[0]["msg"] if errors else str(exc)


__all__ = ["FormField", "InputFormError", "initial_text", "input_schema", "json_schema_fields", "parse_form",
           "schema_fields", "type_label", "with_defaults"]
