"""A stored run document is read with one copy of each repeated string (a state that grows step by step
repeats every earlier item in every later checkpoint), and reads the same as `json.loads`."""
from __future__ import annotations

import json

from rag.runs.history import RunHistory
from rag.runs.shared_values import loads_shared


def _growing(k: int) -> dict:
    items = [f"item {i} " * 8 for i in range(k)]
    return {"checkpoints": [{"values": {"seen": items[:n], "last": items[n - 1] if n else None,
                                        "nested": [[items[:n]], {"deep": items[:n]}]}} for n in range(k)]}


def test_it_reads_what_json_reads():
    doc = {"a": ["x", ["x", {"b": "x"}], 1, None, True, 2.5], "c": {"d": "x", "e": [[["y"]]]}, "z": "é 中"}
    text = json.dumps(doc, ensure_ascii=False)
    assert loads_shared(text) == json.loads(text)
    assert loads_shared(text.encode()) == json.loads(text)
    assert loads_shared("[1, 2]") == [1, 2] and loads_shared('"x"') == "x"


def test_repeated_strings_are_one_object():
    doc = loads_shared(json.dumps(_growing(30)))
    cps = doc["checkpoints"]
    first = cps[-1]["values"]["seen"][0]
    assert all(cp["values"]["seen"][0] is first for cp in cps[1:])
    assert all(cp["values"]["nested"][0][0][0] is first and cp["values"]["nested"][1]["deep"][0] is first
               for cp in cps[1:])
    assert cps[5]["values"]["last"] is cps[-1]["values"]["seen"][4]


def test_the_history_reads_a_stored_document_shared(tmp_path):
    with RunHistory(tmp_path / "h.db") as history:
        info = history.record_start("{}", kind="graph", graph_spec="pkg.mod:graph")
        history.record_document(info.run_id, _growing(20))
        doc = history.get_document(info.run_id)
    assert doc == json.loads(json.dumps(_growing(20)))
    seen = [cp["values"]["seen"] for cp in doc["checkpoints"] if cp["values"]["seen"]]
    assert all(s[0] is seen[-1][0] for s in seen)
