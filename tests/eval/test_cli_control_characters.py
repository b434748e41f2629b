"""Case ids are printed on terminals: a control character in one could erase a MISS line and print a fake
`ok` (hole 11 of the second review). Ids with one are refused, and every CLI line escapes them anyway."""
from __future__ import annotations

import json

import pytest

from rag.eval.__main__ import case_line, main, print_lines, side_by_side
from rag.eval.cases import EvalSetError, parse_cases
from rag.eval.question_sets import QuestionSetStore
from rag.eval.retrieval_cli import case_line as retrieval_line
from rag.eval.scoring import CaseResult
from rag.runs.history import RunHistory
from rag_debugger.debugger.terminal import one_line

#: Erase the line, go back to its start, print a fake verdict; a newline and a fake line; a direction mark.
ATTACKS = ["x\x1b[2K\rok   x", "x\rok  ", "x\nok   y: expected answer, got answer", "x\u202eko", "tab\there", "del\x7f"]


@pytest.mark.parametrize("bad_id", ATTACKS)
def test_a_set_file_with_a_control_character_in_an_id_is_refused(bad_id):
    line = json.dumps({"id": bad_id, "question": "q?"})
    with pytest.raises(EvalSetError, match="control character"):
        parse_cases([line], "set.jsonl")


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    target = str(tmp_path / "history.db") if request.param == "sqlite" else \
        request.getfixturevalue("postgres_server").new_schema()
    history = RunHistory(target)
    yield QuestionSetStore(history.storage)
    history.close()


def test_a_stored_case_saved_with_a_control_character_reads_back_escaped(store):
    """A row written before the rule (by hand here): its set still opens, its id shown escaped."""
    from rag.eval.cases import EvalCase

    qs = store.create("old set", [EvalCase(id="fine", question="q?")])
    raw = json.dumps({"id": "a\x1b[2Kb", "question": "q?"})
    with store.storage.transaction() as execute:
        execute("UPDATE question_set_cases SET case_json = ? WHERE set_id = ?", (raw, qs.set_id))
    assert [c.case.id for c in store.get(qs.set_id).cases] == ["a\\x1b[2Kb"]


@pytest.mark.parametrize("bad_id", ATTACKS)
def test_every_cli_line_shows_control_characters_as_escapes(bad_id):
    from rag.eval.retrieval_eval import RetrievalCase

    res = CaseResult(id=bad_id, expected_route="answer", route="clarify", error="boom\x1b[1A")
    retrieval = RetrievalCase(id=bad_id, question="q", lost_at="kept", rank=1)
    for line in (case_line(res), retrieval_line(retrieval)):
        assert line.isprintable(), line
        assert not any(ch in line for ch in "\x1b\r\n\t\u202e\x7f")
    assert case_line(res).startswith("MISS ")


def test_one_line_keeps_ordinary_text_and_names_each_control():
    assert one_line("日本 café ok") == "日本 café ok"
    assert one_line("a\x1b[2K\r\n\t\u202e\x7f\x85") == "a\\x1b[2K\\r\\n\\t\\u202e\\x7f\\x85"


def test_the_cli_refuses_such_a_set_with_a_message_not_a_fake_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RAG_MODEL_PROVIDER", "offline")
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps({"id": "x\x1b[2K\rok", "question": "q?"}) + "\n", "utf-8")
    assert main([str(path), "--quiet"]) == 2
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out + captured.err and "control character" in captured.err


def test_the_tables_print_labels_and_routes_from_a_file_escaped(capsys):
    """The side-by-side, confusion and agreement tables carry labels (a prompt version, `--compare`'s file
    name) and routes read from a set: printed line by line, each escaped."""
    from rag.eval.agreement import agreement, format_agreement
    from rag.eval.scoring import confusion, format_confusion

    results = [CaseResult(id=f"c{i}\x1b[2K", expected_route="answer\rok", route="clarify\x1b[1A") for i in range(2)]
    print_lines(side_by_side("old\x1b[2K\rok", results, "new\u202e", results))
    print_lines(format_confusion(confusion(results)))
    found = agreement(results)
    if found is not None:
        print_lines(format_agreement(found, "set\x1b[31m"))
    out = capsys.readouterr().out
    assert "old\\x1b[2K\\rok" in out and "\\u202e" in out
    assert not any(ch in out.replace("\n", "") for ch in "\x1b\r\t\u202e\x7f")
