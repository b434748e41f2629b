"""`python -m rag.eval` on files that are not what they seem: the line-and-field message and exit 2, never a
traceback (a Latin-1 file used to end in UnicodeDecodeError with exit 1, a deeply nested line in raw
RecursionError text)."""
from __future__ import annotations

import pytest

from rag.eval.__main__ import main
from rag.eval.cases import EvalSetError, cases_from_upload


@pytest.mark.parametrize("content, expected", [
    ('{"question": "ok?"}\n{"question": "caf\xe9"}\n'.encode("latin-1"), "set.jsonl:2: not UTF-8 text"),
    (b"\xff\xfe{}", "set.jsonl:1: not UTF-8 text"),
    (('{"question": ' + "[" * 5000 + "]" * 5000 + "}\n").encode(), "set.jsonl:1: field 'case': the JSON nests too deeply"),
])
def test_a_bad_file_gets_its_line_and_exit_2(tmp_path, capsys, content, expected):
    path = tmp_path / "set.jsonl"
    path.write_bytes(content)
    assert main([str(path)]) == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err and "RecursionError" not in err and "recursion" not in err


def test_the_same_message_for_an_upload():
    with pytest.raises(EvalSetError, match=r"mine.jsonl:2: not UTF-8 text"):
        cases_from_upload("mine.jsonl", '{"question": "a"}\n{"question": "\xe9"}\n'.encode("latin-1"))
