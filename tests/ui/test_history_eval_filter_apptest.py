"""Run history marks the runs an evaluation recorded (the `evaluation` column names its set, configuration and id)
and its Evaluations filter shows only them or leaves them out, under AppTest on the real app: a debugger run, then
an evaluation on the Evaluate page, then the history page. The filter's SQL is tested on both engines in
tests/runs/test_eval_filter.py and tests/runs/test_eval_filter_postgres.py."""
from __future__ import annotations

from rag.demo import load_demo_questions
from rag.eval.results_store import EvalStore
from tests.support.apptest import press
from tests.ui.test_evaluate_apptest import CASES, new_app, problems
from tests.ui.test_history_apptest import history_page, runs


def test_the_evaluation_column_and_filter(eval_sets, env):
    eval_sets(CASES[:3])  # temp, capital and nova_answered (main run and resume): 4 runs
    at = new_app().run()
    demo = next(d for d in load_demo_questions() if d.expected_route == "answer")
    at.button(key=f"demo_{demo.id}").click().run()
    press(at, "continue")

    history_page(at)
    assert not problems(at), problems(at)
    table = runs(at)
    assert list(table["evaluation"]) == [""]  # a debugger run belongs to no evaluation
    at.selectbox(key="history_eval_filter").set_value("evals").run()
    assert "No runs match the evaluation filter; choose “All runs” to see every run." in [i.body for i in at.info]

    at.switch_page("pages/evaluate.py").run()
    at.button(key="eval_run").click().run()
    assert not problems(at), problems(at)
    [(group, _when, set_name, [label])] = EvalStore(env / "history.db").groups()
    [record] = EvalStore(env / "history.db").group(group)

    history_page(at)
    assert not problems(at), problems(at)
    assert len(runs(at)) == 5
    at.selectbox(key="history_eval_filter").set_value("evals").run()
    table = runs(at)
    assert len(table) == 4 and demo.question not in set(table["question"])
    assert set(table["evaluation"]) == {f"{set_name} · {label} (evaluation {record.eval_id})"}
    assert set(table["kind"].str[:6]) == {"main", "resume"}

    at.selectbox(key="history_eval_filter").set_value("no_evals").run()
    table = runs(at)
    assert list(table["question"]) == [demo.question] and list(table["evaluation"]) == [""]

    at.selectbox(key="history_eval_filter").set_value("all").run()
    table = runs(at)
    assert len(table) == 5 and (table["evaluation"] != "").sum() == 4
    at.selectbox(key="history_eval_filter").set_value("evals").run()
    at.selectbox(key="history_feedback_filter").set_value("wrong").run()  # with another filter: both apply
    assert "No runs match the evaluation filter; choose “All runs” to see every run." in [i.body for i in at.info]
    assert not problems(at), problems(at)
