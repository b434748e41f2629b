"""`python -m rag.eval --retrieval-only` and `--sweep` on the bundled set, offline: the script
lines, the `lost_at` of each case in --out, the grid's refusals and a sweep interrupted halfway."""
from __future__ import annotations

import csv
import json

import pytest

from rag.eval.__main__ import main
from rag.eval.cases import load_cases
from rag.eval.lost_at import STAGES
from rag.eval.runner import settings_for_kb
from rag.eval.sweep import grid, run_sweep
from rag.settings import DATA_DIR

SET = str(DATA_DIR / "eval" / "bundled.jsonl")


@pytest.fixture
def offline(monkeypatch):
    monkeypatch.setenv("RAG_MODEL_PROVIDER", "offline")
    monkeypatch.setenv("RAG_DENSE_ENABLED", "false")  # the sparse leg only: fast, and enough to follow the gold
    for key in ("RERANK_MODEL", "RERANK_API_KEY", "RERANK_HOST", "RAG_CANDIDATE_K", "RAG_MIN_SCORE", "RAG_TOP_K"):
        monkeypatch.delenv(key, raising=False)


def test_retrieval_only_prints_the_funnel_and_one_line_per_metric(offline, tmp_path, capsys):
    out = tmp_path / "r.json"
    gold = tmp_path / "gold.jsonl"
    gold.write_text("\n".join(json.dumps(c) for c in [
        {"id": "found", "question": "What is the operating temperature range of the Lumen X2?",
         "expected_passages": ["The operating temperature range of the   Lumen X2\n is -10 °C"]},
        {"id": "typo", "question": "What is the operating temperature range of the Lumen X2?",
         "expected_passages": ["this sentence is in no document"]},
        {"id": "no_gold", "question": "What is the capital of Australia?"},
    ]) + "\n", "utf-8")
    assert main([str(gold), "--retrieval-only", "--out", str(out)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-7] == "lost_at: not_in_kb=1 sparse=0 dense=0 fusion=0 merge=0 rerank=0 top_k=0 threshold=0 kept=1"
    assert [ln.split(":")[0] for ln in lines[-6:-1]] == ["recall@8", "precision@8", "mrr@8", "ndcg@8", "hit_rate@8"]
    assert lines[-6] == "recall@8: 1.000" and lines[-1] == "cases: 3"
    assert any("typo: lost at not_in_kb" in ln and "this sentence is in no document" in ln for ln in lines)
    cases = {c["id"]: c for c in json.loads(out.read_text("utf-8"))["cases"]}
    assert (cases["found"]["lost_at"], cases["typo"]["lost_at"], cases["no_gold"]["lost_at"]) == ("kept", "not_in_kb", None)


def test_a_sweep_of_the_bundled_set_writes_one_point_per_combination(offline, tmp_path, capsys):
    out_json, out_csv = tmp_path / "s.json", tmp_path / "s.csv"
    args = [SET, "--sweep", "RAG_TOP_K=1,4", "--sweep", "RAG_RRF_K=10,60", "--quiet"]
    assert main([*args, "--out", str(out_json)]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "points: 4"
    points = json.loads(out_json.read_text("utf-8"))["points"]
    assert [p["settings"] for p in points] == [{"RAG_TOP_K": 1, "RAG_RRF_K": 10}, {"RAG_TOP_K": 1, "RAG_RRF_K": 60},
                                               {"RAG_TOP_K": 4, "RAG_RRF_K": 10}, {"RAG_TOP_K": 4, "RAG_RRF_K": 60}]
    for p in points:
        assert set(p) >= {"settings", "metrics", "lost_at", "latency_ms"}
        assert list(p["lost_at"]) == list(STAGES) and sum(p["lost_at"].values()) == 22  # cases that name a source
        assert set(p["latency_ms"]) == {"p50", "p95"}
    top1, top4 = points[0]["metrics"]["final"], points[2]["metrics"]["final"]
    assert top1["recall"] < top4["recall"] and top1["precision"] > top4["precision"]
    assert main([*args, "--out", str(out_csv)]) == 0
    rows = list(csv.DictReader(out_csv.open(encoding="utf-8")))
    assert len(rows) == 4 and rows[0]["RAG_TOP_K"] == "1" and "recall@k" in rows[0] and "lost_at_kept" in rows[0]


@pytest.mark.parametrize("sweep, message", [
    (["RAG_FOO=1,2"], "RAG_FOO: not a retrieval setting"),
    (["RAG_PROMPT_VERSION=a,b"], "RAG_PROMPT_VERSION: not a retrieval setting"),
    (["RAG_TOP_K=4,many"], "RAG_TOP_K: 'many' is not an integer"),
    (["RAG_DENSE_ENABLED=maybe"], "RAG_DENSE_ENABLED: 'maybe' is not true or false"),
    (["RAG_MIN_SCORE=high"], "RAG_MIN_SCORE: 'high' is not a number"),
    (["RAG_TOP_K=0,4"], "RAG_TOP_K=0"),
    (["RAG_TOP_K"], "expected NAME=V1,V2"),
    ([f"RAG_TOP_K={','.join(map(str, range(1, 21)))}", f"RAG_RRF_K={','.join(map(str, range(1, 12)))}"],
     "the sweep has 220 points; at most 200"),
])
def test_a_bad_sweep_is_refused_before_anything_runs(offline, tmp_path, capsys, sweep, message):
    out = tmp_path / "s.json"
    args = [SET, "--out", str(out)]
    for s in sweep:
        args += ["--sweep", s]
    assert main(args) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_an_interrupted_sweep_keeps_the_points_done(offline):
    settings = settings_for_kb("bundled")
    cases = load_cases(SET)[:4]
    points = grid(["RAG_TOP_K=1,2,3"], settings)

    def stop_after_two(i, row):
        if i == 1:
            raise KeyboardInterrupt

    result = run_sweep(cases, settings, points, on_point=stop_after_two)
    assert result.interrupted and result.total == 3
    assert [p["settings"] for p in result.points] == [{"RAG_TOP_K": 1}, {"RAG_TOP_K": 2}]
