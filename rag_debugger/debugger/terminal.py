"""Text from a file, a set, a run or a graph, put on one line of a terminal as text, never as a terminal command.

A case id, a file name or an error can hold ESC (colours, cursor moves, "erase line"), CR (back to the
start of the line) or a newline: printed raw, a question set could erase its MISS line and print a fake
`ok`. Every CLI line that carries such text goes through `one_line`, which writes each control character
as a visible escape (`\\x1b`, `\\r`, `\\n`, `\\u202e`) so the line reads as it is stored.

It lives in the debugger's core, the lowest layer, so that the core's own command
(`python -m rag_debugger.debugger.lint`, node names) and every command of the engine escape the same way.
"""
from __future__ import annotations

import re
import unicodedata

#: Bidirectional overrides and isolates: they reorder what a terminal shows without being "control"
#: characters in Unicode's sense (category Cf).
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def is_control(char: str) -> bool:
    """A character a terminal acts on instead of showing: C0/C1 controls and DEL (Cc), line and paragraph
    separators (Zl, Zp) and bidirectional controls."""
    return unicodedata.category(char) in ("Cc", "Zl", "Zp") or char in _BIDI


_CONTROL = re.compile("[" + "".join(re.escape(chr(c)) for c in range(0x110000)
                                    if c < 0x3000 and is_control(chr(c))) + "]")


def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def one_line(value: object) -> str:
    """`value` as one line of plain text for a terminal: every control character shown as an escape."""
    return _CONTROL.sub(lambda m: _escape(m.group(0)), "" if value is None else str(value))


def has_control(text: str) -> bool:
    """True when `text` holds a character `one_line` would escape (for validators that refuse them)."""
    return _CONTROL.search(text) is not None


__all__ = ["has_control", "is_control", "one_line"]
