"""What if: edit the state at a checkpoint and run forward from there as a fork.

Built on LangGraph's own checkpoint forking: `update_state(config_at_checkpoint, values,
as_node=node)` writes the edit as if `node` had returned it, in a NEW checkpoint whose parent is the
old one, so the original branch stays intact (its checkpoints are still readable by id) and the
graph decides what runs next from the edited state with `node`'s outgoing edges. `as_node` is
always passed: without it, after a fan-out, LangGraph guessed the fan-out's source and scheduled
every branch again. Fields with an appending reducer are refused: a write would APPEND to the list,
not replace it, which is not what "edit this field" means. A messages field (`add_messages`) is the
exception: its reducer replaces a message whose id is already in the list and appends any other, so
an edit there is a message with an id (replace it) or without one (append it), and says which.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

from pydantic import BaseModel

from rag_debugger.debugger.errors import StepperError
from rag_debugger.debugger.i18n import _
from rag_debugger.debugger.state_diff import graph_values
from rag_debugger.debugger.stepper import GraphStepper, StepHook, _checkpoint_id


def message_fields(graph: Any) -> frozenset[str]:
    """The state fields reduced by LangGraph's `add_messages` (editable by message id)."""
    from langgraph.graph.message import add_messages

    channels = getattr(graph, "channels", None) or {}
    return frozenset(name for name, ch in channels.items()
                     if getattr(ch, "operator", None) is add_messages
                     or getattr(getattr(ch, "operator", None), "__name__", "") == "_add_messages")


class MessageEdit(BaseModel):
    """What an edit of a messages field does, as `add_messages` applies it."""

    replaced: tuple[str, ...] = ()
    """Ids of the messages it replaces (their id is already in the list)."""
    appended: int = 0
    """How many messages it adds at the end."""


def as_messages(value: Any) -> list[Any]:
    """The edit as message objects: a message, a `{"role", "content", "id"}` dict, a `(role, content)` pair, a
    string, or a list of them (what `add_messages` accepts). A `DebuggerUserError`-worthy `StepperError` if not."""
    from langchain_core.messages import convert_to_messages

    items = value if isinstance(value, list) else [value]
    try:
        return list(convert_to_messages(items))
    except Exception as exc:  # noqa: BLE001 - the message says what does not fit
        raise StepperError(_("this is not a message: {error}").format(error=f"{type(exc).__name__}: {exc}"[:300])) from None


def message_edit(current: Any, value: Any) -> MessageEdit:
    """Which messages of `current` the edit `value` replaces (by id) and how many it appends."""
    ids = {getattr(m, "id", None) for m in (current or []) if getattr(m, "id", None)}
    new = as_messages(value)
    replaced = tuple(str(m.id) for m in new if getattr(m, "id", None) in ids)
    return MessageEdit(replaced=replaced, appended=len(new) - len(replaced))


def fork_stepper(stepper: GraphStepper, ref: int | str, values: Mapping[str, Any], *, as_node: str,
                 on_step: Optional[StepHook] = None) -> GraphStepper:
    """A stepper paused on a fork of `stepper`'s thread: the state after step `ref` (an index or a
    checkpoint id) with `values` written as `as_node`'s output. Step or run it like any stepper."""
    messages = message_fields(stepper.graph)
    appending = sorted(set(values) & set(stepper.append_fields) - messages)
    values = {k: as_messages(v) if k in messages else v for k, v in values.items()}
    if appending:
        raise StepperError(_("{fields} has an appending reducer: a write would append to the list, not replace it, "
                             "so it cannot be edited in a fork").format(fields=", ".join(appending)))
    checkpoint_id = stepper._resolve(ref)
    config = {"configurable": {"thread_id": stepper.thread_id, "checkpoint_ns": "", "checkpoint_id": checkpoint_id}}
    try:
        new_config = stepper.graph.update_state(config, graph_values(values), as_node=as_node)
    except Exception as exc:  # noqa: BLE001 - an unknown node or field is the user's to fix
        raise StepperError(_("the fork could not be made: {error}").format(error=f"{type(exc).__name__}: {exc}")) from None
    fork = GraphStepper(stepper.graph, thread_id=stepper.thread_id, context=stepper.context,
                        nested_fields=stepper.nested_fields, append_fields=stepper.append_fields,
                        on_step=on_step if on_step is not None else stepper.on_step)
    fork._started = True
    fork._input = stepper._input
    fork.start_checkpoint_id = _checkpoint_id(new_config)
    return fork


def fork_from_values(graph: Any, values: Mapping[str, Any], *, as_node: str, thread_id: str, context: Any = None,
                     nested_fields: Any = (), on_step: Optional[StepHook] = None) -> GraphStepper:
    """A fork of a run whose checkpoints are not in this graph's saver (a recorded replay): the
    whole state after a step, edited, written as `as_node`'s output on a NEW thread, then stepped
    live. Appending fields start empty on a new thread, so writing the full list gives that list."""
    stepper = GraphStepper(graph, thread_id=thread_id, context=context, nested_fields=nested_fields, on_step=on_step)
    config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
    try:
        new_config = graph.update_state(config, graph_values(values), as_node=as_node)
    except Exception as exc:  # noqa: BLE001
        raise StepperError(_("the fork could not be made: {error}").format(error=f"{type(exc).__name__}: {exc}")) from None
    stepper._started = True
    stepper.start_checkpoint_id = _checkpoint_id(new_config)
    return stepper


def fork_after(origin: Any, record: Any, field: str, value: Any, *, graph: Any, new_thread: Callable[[], str],
               context: Any = None, nested_fields: Any = (), on_step: Optional[StepHook] = None) -> GraphStepper:
    """What if, for any session: a stepper paused where `field` = `value` after `record`, a step of
    segment `origin`. A live run forks inside its own thread (LangGraph branches there); a replay, whose
    checkpoints are not in this graph's saver, forks onto `new_thread()` seeded with the recorded state
    (`graph` and `context` run it). Raises StepperError when there is nothing to fork from."""
    if not record.nodes:
        raise StepperError(_("this step ran no node, so there is nothing to fork from"))
    # the edit is written as the step's last node of the graph (not a @task it called: those are no nodes)
    nodes = getattr(graph, "nodes", None) or {}
    as_node = next((n for n in reversed(record.nodes) if n in nodes), record.nodes[-1])
    if origin.replay or not isinstance(origin.stepper, GraphStepper):
        if field in message_fields(graph):  # a new thread starts empty: write the list add_messages would make
            from langgraph.graph.message import add_messages

            value = add_messages(list(record.values_after.get(field) or []), as_messages(value))
        return fork_from_values(graph, {**record.values_after, field: value}, as_node=as_node, thread_id=new_thread(),
                                context=context, nested_fields=nested_fields, on_step=on_step)
    if record.after_checkpoint_id is None:
        raise StepperError(_("this step has no checkpoint to fork from"))
    return fork_stepper(origin.stepper, record.after_checkpoint_id, {field: value}, as_node=as_node, on_step=on_step)
