"""Two RAG runs compared: the first divergence and its cause, for the changes people tune (the issue's
table), on real offline runs of the bundled knowledge base; and the CLIs' output and exit status."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.runs.diff import main as diff_main
from rag.runs.divergence import chunk_changes, compare_sides, load_side
from rag.runs.record_bundle import main as record_main
from rag.runs.record_bundle import record_bundle
from rag.settings import RagSettings

QUESTION = "What is the operating temperature range of the Lumen X2?"
CLARIFY = "How do I update the firmware of the Lumen X2?"


def offline(**overrides) -> RagSettings:
    return RagSettings(model_provider="offline", openai_api_key=None, prompt_version=None, **overrides)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> dict[str, Path]:
    """Each configuration recorded once to a bundle file (as `python -m rag.runs.record_bundle` writes it)."""
    folder = tmp_path_factory.mktemp("runs")
    runs = {
        "base": (QUESTION, [], offline()),
        "base_again": (QUESTION, [], offline()),
        "top_k_3": (QUESTION, [], offline(top_k=3)),
        "dense_off": (QUESTION, [], offline(dense_enabled=False)),
        "android": (CLARIFY, ["Android"], offline()),
        "ios": (CLARIFY, ["iOS"], offline()),
    }
    out = {}
    for name, (question, answers, settings) in runs.items():
        path = folder / f"{name}.json"
        path.write_text(json.dumps(record_bundle(question, answers, settings=settings)), encoding="utf-8")
        out[name] = path
    return out


def compared(recorded, a: str, b: str):
    return compare_sides(load_side(str(recorded[a])), load_side(str(recorded[b])))


@pytest.mark.parametrize("a, b, step_node_field, cause", [
    ("base", "base_again", None, "none"),
    ("base", "top_k_3", ("retrieve_initial", "docs"), "chunks"),
    ("base", "dense_off", ("retrieve_initial", "retrieval_mode"), "chunks"),
    ("android", "ios", ("restore_from_snapshot", "hitl_answer"), "input"),
    ("base", "android", ("classify_complexity", "question"), "input"),
])
def test_the_first_divergence_names_the_step_the_node_and_the_field(recorded, a, b, step_node_field, cause):
    rc = compared(recorded, a, b)
    first = rc.comparison.first
    assert (None if first is None else (first.node, first.field)) == step_node_field
    assert rc.cause == cause


def test_a_hitl_answer_diverges_at_the_resumes_first_step(recorded):
    rc = compared(recorded, "android", "ios")
    first = rc.comparison.first
    row = rc.comparison.rows[first.row - 1]
    assert row.segment == "resume" and first.from_input
    assert all(r.kind == "same" for r in rc.comparison.rows if r.segment == "main")


def test_the_settings_that_differ_are_listed_without_keys(recorded):
    rc = compared(recorded, "base", "top_k_3")
    assert rc.settings == [("top_k", 8, 3)]
    rc = compared(recorded, "base", "dense_off")
    assert [name for name, *_ in rc.settings] == ["dense_enabled"]


@pytest.mark.parametrize("a, b, expected", [
    ([{"chunk_id": "x", "score": 0.5}, {"chunk_id": "y", "score": 0.4}],
     [{"chunk_id": "y", "score": 0.6}, {"chunk_id": "z", "score": 0.1}],
     [("x", "removed", 1, None), ("y", "moved_up", 2, 1), ("z", "added", None, 2)]),
    ([{"chunk_id": "x"}, {"chunk_id": "y"}], [{"chunk_id": "y"}, {"chunk_id": "x"}],
     [("x", "moved_down", 1, 2), ("y", "moved_up", 2, 1)]),
    ([{"chunk_id": "x"}], [{"chunk_id": "x"}], [("x", "same", 1, 1)]),
])
def test_chunks_change_as_a_set_with_rank_shifts(a, b, expected):
    assert [(c.chunk_id, c.change, c.rank_a, c.rank_b) for c in chunk_changes(a, b)] == expected


def test_the_cli_prints_the_divergence_first_and_exits_by_outcome(recorded, capsys):
    assert diff_main([str(recorded["base"]), str(recorded["base_again"])]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "first_divergence: none"
    code = diff_main([str(recorded["base"]), str(recorded["top_k_3"])])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "first_divergence: step=2 node=retrieve_initial field=docs"
    assert "setting top_k: 8 -> 3" in out and any(line.startswith("step 2 retrieve_initial: docs (") for line in out)
    assert "evidence: differs" in out and code == 1


def test_bad_input_gets_a_message_and_status_2(recorded, tmp_path, capsys):
    assert diff_main([str(tmp_path / "missing.json"), str(recorded["base"])]) == 2
    assert "no such file" in capsys.readouterr().err
    tampered = json.loads(recorded["base"].read_text(encoding="utf-8"))
    tampered["runs"][0]["run"]["question"] = "something else"
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(tampered), encoding="utf-8")
    assert diff_main([str(bad), str(recorded["base"])]) == 2
    assert "checksum" in capsys.readouterr().err
    (tmp_path / "notjson.json").write_text("{nope", encoding="utf-8")
    assert diff_main([str(tmp_path / "notjson.json"), str(recorded["base"])]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    (tmp_path / "latin1.json").write_bytes("caf\xe9".encode("latin-1"))
    assert diff_main([str(tmp_path / "latin1.json"), str(recorded["base"])]) == 2
    assert "UTF-8" in capsys.readouterr().err
    assert diff_main(["only-one"]) == 2


def test_a_run_id_is_looked_up_in_the_configured_history(recorded, tmp_path, monkeypatch, capsys):
    from rag.api import make_context
    from rag.runs.history import RunHistory
    from rag.runs.history_writes import run_recorded

    db = tmp_path / "history.db"
    with RunHistory(db) as history:
        ctx = make_context(settings=offline())
        one = run_recorded(history, QUESTION, ctx=ctx).run_id
        two = run_recorded(history, QUESTION, ctx=ctx).run_id
        running = history.record_start(QUESTION).run_id
    monkeypatch.setenv("RAG_HISTORY_DB", str(db))
    monkeypatch.delenv("RAG_HISTORY_URL", raising=False)
    assert diff_main([one, two]) == 0
    assert capsys.readouterr().out.startswith("first_divergence: none")
    assert diff_main([one, "no-such-run"]) == 2
    assert "no run with this id" in capsys.readouterr().err
    assert diff_main([one, running]) == 2
    assert "still in progress" in capsys.readouterr().err


def test_record_answers_hitl_questions_in_order_and_refuses_bad_input(tmp_path, capsys):
    out = tmp_path / "run.json"
    assert record_main([CLARIFY, "--answer", "Android", "-o", str(out)]) == 0
    bundle = json.loads(out.read_text(encoding="utf-8"))
    assert [doc["graph"] for doc in bundle["runs"]] == ["main", "resume"]
    assert record_main(["   ", "-o", str(out)]) == 2
    assert record_main([QUESTION, "-o", str(tmp_path / "no" / "such" / "run.json")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_the_same_answer_taking_a_different_time_is_the_same_answer(tmp_path):
    """The debugger records the answering agent's answer with how long it took; two runs that said the same
    words with the same citations answered the same (the page said "a different answer" over two equal ones)."""
    from rag.runs.divergence import side_from_history
    from rag.runs.history import RunHistory
    from rag_debugger.workbench.session import DebugSession

    with RunHistory(tmp_path / "h.db") as history:
        ids = []
        for _ in range(2):
            session = DebugSession(offline(), history=history)
            session.start(QUESTION)
            session.run_to_end()
            ids.append(session.current.run_id)
        docs = [history.get_run(i).result["answer"] for i in ids]
        assert docs[0]["text"] == docs[1]["text"] and docs[0]["elapsed_ms"] != docs[1]["elapsed_ms"]
        rc = compare_sides(side_from_history(history, ids[0]), side_from_history(history, ids[1]))
        assert rc.answered and rc.answer_same and rc.same_outcome and rc.comparison.first is None
