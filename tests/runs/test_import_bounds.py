"""Run imports do bounded work (hole 5 of the second review): 45 MB of empty objects peaked at 2.1 GB.
A file with more objects or values than any export has is refused on its text, before it is parsed;
imported runs share a quota of the history database (both engines)."""
from __future__ import annotations

import json

import pytest

from rag.errors import RunImportError
from rag.runs import document_limits
from rag.runs.document_limits import MAX_DOCUMENT_CONTAINERS, MAX_DOCUMENT_VALUES, check_structure
from rag.runs.export import export_run_json
from rag.runs.history import RunHistory
from rag.runs.history_writes import run_recorded
from rag.runs.importing import import_run

QUESTION = "What is the operating temperature range of the Lumen X2?"


def _never_parsed(monkeypatch):
    def refuse(*_args, **_kwargs):
        raise AssertionError("the file was parsed before its structure was checked")

    monkeypatch.setattr(document_limits.json, "loads", refuse)


@pytest.mark.parametrize("text", [
    "[" + ",".join(["{}"] * (MAX_DOCUMENT_CONTAINERS + 1)) + "]",   # the review's empty objects
    "[" + ",".join(["[]"] * (MAX_DOCUMENT_CONTAINERS + 1)) + "]",
    "[" + ",".join(["1.5"] * (MAX_DOCUMENT_VALUES + 1)) + "]",      # tiny values: 30+ bytes each once parsed
    '{"a":[' + ",".join(['""'] * (MAX_DOCUMENT_VALUES + 1)) + "]}",
], ids=["objects", "lists", "floats", "strings"])
def test_a_file_with_more_values_than_an_export_is_refused_before_parsing(tmp_path, monkeypatch, text):
    _never_parsed(monkeypatch)
    with RunHistory(tmp_path / "h.db") as history:
        for form in (text, text.encode()):
            with pytest.raises(RunImportError, match="more objects or values than a run export has"):
                import_run(form, history)
        assert history.list_runs() == []


def test_brackets_and_commas_inside_strings_do_not_count():
    text = json.dumps({"text": "{[," * (MAX_DOCUMENT_VALUES + 10), "escaped": '\\"{[,' * 1000})
    check_structure(text)
    check_structure(text.encode())


@pytest.fixture
def exported(history, ctx) -> dict:
    info = run_recorded(history, QUESTION, ctx=ctx)
    return json.loads(export_run_json(history, info.run_id))


def _another(doc: dict, run_id: str) -> dict:
    from rag.runs.run_document import checksum

    doc = dict(doc, run=dict(doc["run"], run_id=run_id))
    doc["sha256"] = checksum(doc)
    return doc


def test_imports_stop_at_the_quota_with_a_message(history, exported, monkeypatch):
    size = len(json.dumps(exported, ensure_ascii=False))
    monkeypatch.setenv("RAG_IMPORT_QUOTA_MB", str(2.5 * size / (1024 * 1024)))  # room for two
    import_run(_another(exported, "imported-one"), history)
    import_run(_another(exported, "imported-two"), history)
    with pytest.raises(RunImportError, match="no room for this import.*RAG_IMPORT_QUOTA_MB"):
        import_run(_another(exported, "imported-three"), history)
    ids = {r.run_id for r in history.list_runs()}
    assert {"imported-one", "imported-two"} <= ids and "imported-three" not in ids
    assert import_run(_another(exported, "imported-one"), history).run_id == "imported-one"  # the same run: no room needed
    history.delete_run("imported-two")
    assert import_run(_another(exported, "imported-three"), history).run_id == "imported-three"


def test_a_quota_of_zero_turns_it_off(history, exported, monkeypatch):
    monkeypatch.setenv("RAG_IMPORT_QUOTA_MB", "0")
    assert document_limits.import_quota_bytes() is None
    import_run(_another(exported, "imported-free"), history)
