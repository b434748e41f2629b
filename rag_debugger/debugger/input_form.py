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

from rag_debugger.debugger.errors import DebuggerUserError
from rag_debugger.debugger.i18n import N_, _

INPUT_MISFIT = N_("the input does not fit the graph's schema")
ANSWER_MISFIT = N_("the answer does not fit the question's schema")

OPTIONAL_SUFFIX = " (optional)"

Kind = Literal["text", "int", "float", "bool", "json"]
_SIMPLE: dict[Any, Kind] = {str: "text", int: "int", float: "float", bool: "bool"}
_JSON_TYPES: dict[str, Kind] = {"string": "text", "integer": "int", "number": "float", "boolean": "bool"}
_KIND_TYPES: dict[str, Any] = {"int": int, "float": float, "bool": bool}


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
    messages: bool = False
    """A list of chat messages (an `add_messages` channel): it takes every form `add_messages` accepts (a
    bare string, `("user", "hi")`, `{"role": "user", "content": "hi"}`) and becomes real message objects."""
    root: bool = False
    """The whole input (a state that is one value, or an `@entrypoint` taking a number or a list): the
    parsed value is the input itself, not a key of it."""


ROOT_FIELD = "input"
"""The name of the one field of a graph whose input is a single value."""


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


def _is_text_choice(tp: Any) -> bool:
    """A choice among strings: `Literal["a", "b"]`, or an `Enum` whose values are strings."""
    import enum

    if typing.get_origin(tp) is Literal:
        return all(isinstance(a, str) for a in typing.get_args(tp))
    return isinstance(tp, type) and issubclass(tp, enum.Enum) and all(isinstance(m.value, str) for m in tp)


def _type_name(tp: Any) -> str:
    return tp.__name__ if typing.get_origin(tp) is None and hasattr(tp, "__name__") \
        else str(tp).replace("typing.", "")


def _field(name: str, annotation: Any, *, required: bool, default: Any, help: str = "") -> FormField:
    inner, optional = _strip(annotation)
    kind = _SIMPLE.get(inner, "json")
    if kind == "json" and _is_text_choice(inner):  # Literal["a", "b"] or a str Enum: typed as text, checked
        kind = "text"
    return FormField(name=name, kind=kind, required=required and not optional, default=default, help=help,
                     type_name=_type_name(inner) + (OPTIONAL_SUFFIX if optional else ""), optional=optional,
                     annotation=annotation)


def input_schema(graph: Any) -> Any:
    """The graph's input schema (a TypedDict, pydantic class or dataclass), or None when it has none (an
    `@entrypoint` has no builder; its input is what its function takes)."""
    builder = getattr(graph, "builder", None) or (graph if hasattr(graph, "state_schema") else None)
    if builder is None:
        return None
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


def with_defaults(fields: list[FormField], saved: Any) -> list[FormField]:
    """The fields, starting from a saved input's values (`--input file.json`): an object's keys, or the
    whole value for a graph whose input is one value."""
    if len(fields) == 1 and fields[0].root and saved is not None:
        return [fields[0].model_copy(update={"default": saved})]
    if not saved or not isinstance(saved, Mapping):
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
        if _blank(f, value):
            if f.required:
                problems.append(_("{field}: required").format(field=f.name))
            continue
        if f.kind == "json":
            try:
                value = json.loads(str(value))
            except json.JSONDecodeError as exc:
                if not f.messages:  # a message list also takes a bare string, as add_messages does
                    problems.append(_("{field}: not valid JSON ({error} at line {line} column {column})").format(
                        field=f.name, error=exc.msg, line=exc.lineno, column=exc.colno))
                    continue
        if f.messages:
            try:
                out[f.name] = as_messages(value)
            except (ValueError, TypeError, NotImplementedError) as exc:
                problems.append(_("{field}: not messages ({error})").format(field=f.name, error=exc))
            continue
        if f.annotation is None and f.kind in _KIND_TYPES:  # a JSON-schema field: its type is still checked
            try:
                value = TypeAdapter(_KIND_TYPES[f.kind]).validate_python(value)
            except ValidationError as exc:
                problems.append(_("{field}: expected {type} ({error})").format(
                    field=f.name, type=f.kind, error=_first_error(exc)))
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


def _blank(field: FormField, value: Any) -> bool:
    """Nothing given. An empty text is a value (LangGraph takes `{"foo": ""}`) wherever the field is
    required or the saved input said so; only an optional field left blank is left out."""
    if value is None:
        return True
    if field.kind == "json" and str(value).strip() == "":
        return True
    if field.kind == "text" and value == "":
        return not (field.required or field.default == "")
    return False


def as_messages(value: Any) -> list[Any]:
    """Chat messages from any form `add_messages` accepts: a bare string, a `(role, content)` pair, a
    `{"role": ..., "content": ...}` dict, a serialised message, or a list of those. Real message classes
    (`HumanMessage`, …), never the abstract `BaseMessage` a generic validation makes of a dict."""
    from langchain_core.messages import convert_to_messages

    items = value if isinstance(value, list) else [value]
    items = [tuple(item) if isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)
             else item for item in items]
    return list(convert_to_messages(items))


def _is_messages(annotation: Any, prop: Optional[Mapping[str, Any]] = None) -> bool:
    """A list of chat messages: an `add_messages` channel, or a list of message classes."""
    text = str(annotation) if annotation is not None else ""
    if "add_messages" in text:
        return True
    if any(m in text for m in ("BaseMessage", "AnyMessage", "langchain_core.messages")):
        return any(seq in text for seq in ("list", "List", "Sequence"))  # one message is not a list of them
    if annotation is None and prop is not None:
        items = prop.get("items") if isinstance(prop.get("items"), Mapping) else {}
        refs = json.dumps(items)
        return prop.get("type") == "array" and "Message" in refs
    return False


def _hints(schema: Any) -> dict[str, Any]:
    """The Python annotation of each key of a state or input class (TypedDict, pydantic, dataclass)."""
    if schema is None or not isinstance(schema, type):
        return {}
    if issubclass(schema, BaseModel):
        return {name: info.annotation for name, info in schema.model_fields.items()}
    try:
        return dict(typing.get_type_hints(schema, include_extras=True))
    except Exception:  # noqa: BLE001 - an unresolvable annotation: the JSON schema alone says the type
        return dict(getattr(schema, "__annotations__", {}) or {})


def _json_kind(prop: Mapping[str, Any]) -> tuple[Kind, bool]:
    """(the field kind for a JSON-schema property, whether null is allowed)."""
    types = [prop.get("type")] if "type" in prop else [p.get("type") for p in prop.get("anyOf") or ()
                                                        if isinstance(p, Mapping)]
    nullable = "null" in types
    types = [t for t in types if t != "null"]
    return (_JSON_TYPES.get(str(types[0]), "json") if len(types) == 1 else "json"), nullable


def graph_fields(graph: Any) -> list[FormField]:
    """The form of what the graph takes, as LangGraph says it (`get_input_jsonschema()`): its properties,
    required only where the schema requires them (`total=False`, `NotRequired`, defaults are optional),
    with the Python type where the input class has one (to validate, and to turn messages into messages).
    A graph whose input is one value (a root-value state, an `@entrypoint` taking a number) has one
    field, `input`, that is the whole input."""
    try:
        schema = graph.get_input_jsonschema()
    except Exception:  # noqa: BLE001 - a schema LangGraph cannot write: the input class's own fields
        return schema_fields(input_schema(graph))
    hints = _hints(input_schema(graph))
    props = schema.get("properties")
    if schema.get("type") != "object" or not isinstance(props, Mapping) or not props:
        kind, _nullable = _json_kind(schema) if "type" in schema or "anyOf" in schema else ("json", True)
        return [FormField(name=ROOT_FIELD, kind=kind, required=True, default=None, root=True,
                          type_name=str(schema.get("type") or "JSON"), help=str(schema.get("description") or ""),
                          messages=_is_messages(None, schema))]
    required = set(schema.get("required") or ())
    out = []
    for name, prop in props.items():
        prop = prop if isinstance(prop, Mapping) else {}
        annotation = hints.get(name)
        help_text = _with_default(str(prop.get("description") or ""), prop)
        if annotation is not None and not _is_messages(annotation):
            field = _field(name, annotation, required=name in required, default=None, help=help_text)
            # a box starts blank and a blank optional field is left out, so the graph's own default applies
            # and the state holds what LangGraph would hold; only a checkbox must show its default
            default = prop.get("default") if field.kind == "bool" else None
            out.append(field.model_copy(update={"default": default}))  # Optional[...]: None may be meant
            continue
        messages = _is_messages(annotation, prop)
        kind, nullable = ("json", False) if messages else _json_kind(prop)
        out.append(FormField(name=name, kind=kind, required=name in required,
                             default=prop.get("default") if kind == "bool" else None, help=help_text, optional=nullable,
                             type_name="messages" if messages else str(prop.get("type") or "JSON"),
                             messages=messages, json_schema=None if messages else dict(prop)))
    return out


def _with_default(help_text: str, prop: Mapping[str, Any]) -> str:
    if "default" not in prop or prop["default"] is None:
        return help_text
    shown = json.dumps(prop["default"], ensure_ascii=False, default=str)
    return (help_text + " " if help_text else "") + _("Left blank: {default}").format(default=shown)


def initial_value(field: FormField) -> Any:
    """What a field holds before anyone touches it: a bool for a checkbox, a number (or None) for a number
    box, else the text `initial_text` gives."""
    if field.kind == "bool":
        return bool(field.default)
    if field.kind in ("int", "float"):
        try:
            return None if field.default is None else (int(field.default) if field.kind == "int"
                                                       else float(field.default))
        except (TypeError, ValueError):
            return None
    return initial_text(field)


def parse_input(graph: Any, fields: list[FormField], raw: Mapping[str, Any]) -> Any:
    """The graph's input from its form: `parse_form`, checked whole against a pydantic input class, and
    unwrapped where the input is one value."""
    schema = input_schema(graph)
    out = parse_form(fields, raw, schema=schema if len(fields) != 1 or not fields[0].root else None)
    if len(fields) == 1 and fields[0].root:
        return out.get(fields[0].name)
    return out


def form_input(graph: Any, fields: list[FormField], saved: Any) -> Any:
    """The input a saved one (`--input file.json`) gives once it went through the form untouched."""
    seeded = with_defaults(fields, saved)
    whole = not isinstance(saved, Mapping) or (len(fields) == 1 and fields[0].root)
    named = (lambda f: True) if whole else (lambda f: f.name in saved)
    return parse_input(graph, seeded, {f.name: initial_value(f) if named(f) else None for f in seeded})


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors()
    return errors[0]["msg"] if errors else str(exc)


__all__ = ["ROOT_FIELD", "FormField", "InputFormError", "as_messages", "form_input", "graph_fields", "initial_text",
           "initial_value", "input_schema", "json_schema_fields", "parse_form", "parse_input", "schema_fields",
           "type_label", "with_defaults"]
