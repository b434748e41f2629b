"""The Evaluate page links each case to the run it recorded: the run column and "Open its run" open the
debugger's replay at the run's last step, a case whose gold was lost at retrieval opens at its retrieval
step, and in a comparison a case that regressed opens Compare runs on its two runs."""
from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pandas as pd
import pytest

from rag.runs.history import RunHistory
from tests.ui.test_debugger_apptest import problems, texts
from tests.ui.test_evaluate_apptest import CASES, evaluate_page, frame_with, metrics, new_app

#: The same cases, and one whose gold the first retrieval loses at top_k 2 (the Nova manual is not among
#: the two chunks kept for a Lumen question).
LOST = {"id": "lost", "question": "What is the operating temperature range of the Lumen X2?",
        "expected_route": "answer", "expected_sources": ["nova_thermostat.md"]}


@pytest.fixture
def cases_set(eval_sets):
    return eval_sets([*CASES, LOST])


def all_cases(at):
    toggle = next(t.key for t in at.toggle if t.key.startswith("eval_failures_"))
    at.toggle(key=toggle).set_value(False).run()
    return frame_with(at, "asked first").set_index("id")


def params(url: str) -> dict:
    parts = urlsplit(url)
    return {"path": parts.path, **dict(parse_qsl(parts.query))}


def page_links(at) -> list:
    return [e.proto for e in at.get("page_link")]


def open_link(url: str):
    """A new browser session on the link (a click that opens a tab, a link sent to a colleague)."""
    fresh = new_app()
    target = params(url)
    for key, value in target.items():
        if key != "path":
            fresh.query_params[key] = value
    if target["path"] == "compare":
        fresh.run()
        return fresh.switch_page("pages/compare.py").run()
    return fresh.run()  # the debugger is the app's first page


def test_each_case_row_links_to_its_run_which_opens_at_its_last_step(cases_set, env):
    at = evaluate_page(new_app().run())
    at.button(key="eval_run").click().run()
    assert not problems(at)
    cases = all_cases(at)
    links = {case_id: params(url) for case_id, url in cases["run"].items()}
    assert {p["path"] for p in links.values()} == {"debugger"}
    with RunHistory(env / "history.db") as history:
        runs = {case_id: history.get_run(p["run"]) for case_id, p in links.items()}
        assert len({r.eval_id for r in runs.values()}) == 1 and None not in {r.eval_id for r in runs.values()}
        assert runs["nova_answered"].kind == "resume"  # the answered case links to the resumed run
        assert runs["temp"].question == CASES[0]["question"]
    assert "step" not in links["temp"]  # no gold lost: the run's last step
    opened = open_link(cases.loc["temp", "run"])
    assert not problems(opened), problems(opened)
    assert opened.session_state["debug_session"].replay_mode
    assert opened.session_state["debug_session"].current.run_id == links["temp"]["run"]
    assert "Step 3: grade_documents" in texts(opened) and "Result:" in texts(opened)


def test_a_case_lost_at_retrieval_opens_at_its_runs_retrieval_step(cases_set, env):
    at = evaluate_page(new_app().run())
    at.number_input(key="eval_a_top_k").set_value(2).run()
    at.button(key="eval_run").click().run()
    cases = all_cases(at)
    link = params(cases.loc["lost", "run"])
    assert link["step"] == "2"
    assert cases.loc["lost", "gold lost at"] == "cut at top_k" and cases.loc["temp", "gold lost at"] == "kept"
    opened = open_link(cases.loc["lost", "run"])
    assert not problems(opened), problems(opened)
    assert "Step 2: retrieve_initial" in texts(opened)
    # the picked case says the same beside it, and opens in this tab
    pick = next(s.key for s in at.selectbox if (s.key or "").startswith("eval_pick_"))
    at.selectbox(key=pick).set_value("lost").run()
    [link_proto] = [p for p in page_links(at) if p.label == "Open its run at the retrieval step"]
    assert dict(parse_qsl(link_proto.query_string)) == {"run": link["run"], "step": "2"}
    assert "Download its run as HTML" in {b.label for b in at.get("download_button")}
    at.selectbox(key=pick).set_value("temp").run()
    assert "Open its run" in {p.label for p in page_links(at)}


def test_a_regressed_case_opens_the_comparison_of_its_two_runs(cases_set, env):
    at = evaluate_page(new_app().run())
    at.toggle(key="eval_compare").set_value(True).run()
    at.number_input(key="eval_b_top_k").set_value(2).run()
    at.button(key="eval_run").click().run()
    assert not at.exception
    matrix = frame_with(at, "change").set_index("id")
    assert pd.isna(matrix.loc["temp", "compare"])  # the same under both: nothing to compare
    link = params(matrix.loc["lantern", "compare"])
    run_a, run_b = link["compare"].split(",")
    with RunHistory(env / "history.db") as history:
        a, b = history.get_run(run_a), history.get_run(run_b)
        assert a.question == b.question == CASES[4]["question"]
        assert (a.route, b.route) == ("answer", "no_knowledge") and a.eval_id != b.eval_id
    assert {p.label: dict(parse_qsl(p.query_string)) for p in page_links(at)}["Compare lantern"] == {
        "compare": f"{run_a},{run_b}"}
    opened = open_link(matrix.loc["lantern", "compare"])
    assert not opened.exception
    assert (opened.selectbox(key="compare_a").value, opened.selectbox(key="compare_b").value) == (run_a, run_b)


def test_an_evaluation_saved_before_runs_were_recorded_still_shows(cases_set, env):
    from rag.eval.results_store import EvalRecord, EvalStore
    from rag.eval.scoring import CaseResult

    old = CaseResult(id="old", expected_route="answer", route="answer", question="an old case")
    record = EvalStore(env / "history.db").save(EvalRecord.from_results([old], set_name="old.jsonl", label="A"))
    at = new_app().run()
    at.session_state["eval_group"] = record.group_id
    at = evaluate_page(at)
    assert not problems(at)
    cases = all_cases(at)
    assert pd.isna(cases.loc["old", "run"])
    assert any("has no recorded run" in c.value for c in at.caption)


def test_with_a_history_that_cannot_be_used_the_evaluation_still_runs_unrecorded(cases_set, env, monkeypatch):
    """A team's database that is down: the results are still kept (beside the history file), without runs."""
    from tests.support.browser import free_port

    monkeypatch.setenv("RAG_HISTORY_URL", f"postgresql://team:pw@127.0.0.1:{free_port()}/history")
    at = evaluate_page(new_app().run())
    at.button(key="eval_run").click().run()
    assert not at.exception
    assert any("runs are not recorded" in w.body for w in at.warning)
    assert metrics(at)["Cases"] == "7"
    assert all(pd.isna(url) for url in all_cases(at)["run"])


def test_a_second_compare_link_in_the_same_session_opens_its_own_pair(cases_set, env):
    """Following "Compare lantern", then "Compare firmware", in one browser session: the second link wins
    over the pair the page picked for the first."""
    at = evaluate_page(new_app().run())
    at.toggle(key="eval_compare").set_value(True).run()
    at.number_input(key="eval_b_top_k").set_value(2).run()
    at.button(key="eval_run").click().run()
    matrix = frame_with(at, "change").set_index("id")
    pairs = {case_id: params(matrix.loc[case_id, "compare"])["compare"] for case_id in ("lantern", "firmware")}
    for case_id in ("lantern", "firmware"):
        at.query_params["compare"] = pairs[case_id]  # what the page link puts in the URL
        at.switch_page("pages/compare.py").run()
        assert not at.exception
        shown = f"{at.selectbox(key='compare_a').value},{at.selectbox(key='compare_b').value}"
        assert shown == pairs[case_id], case_id


def test_going_back_and_forth_between_cases_runs_opens_each_one(cases_set, env):
    """Evaluate → case A's run → Evaluate → case B's run → (a question of one's own in the debugger) → Evaluate →
    case B's run again: each link opens its own run, although this session followed B's link before."""
    from tests.support.apptest import press

    at = evaluate_page(new_app().run())
    at.button(key="eval_run").click().run()
    runs = {case_id: params(url)["run"] for case_id, url in all_cases(at)["run"].items()}
    pick = next(s.key for s in at.selectbox if (s.key or "").startswith("eval_pick_"))
    for case_id in ("temp", "capital", "own question", "capital"):
        if case_id == "own question":  # leave the replay and run something else
            at.button(key="exit_replay").click().run()
            at.text_area(key="question").set_value("What is the Lumen X2?").run()
            press(at, "continue")
            assert at.session_state["debug_session"].current.run_id not in runs.values()
            continue
        at = evaluate_page(at)
        all_cases(at)  # every case can be picked, not only the failures
        at.selectbox(key=pick).set_value(case_id).run()
        [link] = [p for p in page_links(at) if p.label.startswith("Open its run")]
        for key in list(at.query_params):
            del at.query_params[key]
        for key, value in parse_qsl(link.query_string):  # what the page link does: the debugger, with its query
            at.query_params[key] = value
        at.switch_page("pages/debugger.py").run()
        assert not problems(at), problems(at)
        assert at.session_state["debug_session"].current.run_id == runs[case_id], case_id


def test_the_links_in_chinese(cases_set, env):
    from rag import i18n
    from tests.ui.test_chinese_playground_evaluate_apptest import chinese_app, missing_chinese

    i18n.forget_missing_keys()
    at = chinese_app().run()
    at.switch_page("pages/evaluate.py").run()
    at.toggle(key="eval_compare").set_value(True).run()
    at.number_input(key="eval_b_top_k").set_value(2).run()
    at.button(key="eval_run").click().run()
    assert not at.exception
    matrix = next(df.value for df in at.dataframe if "变化" in df.value.columns).set_index("ID")
    assert params(matrix.loc["lantern", "比较"])["lang"] == "zh"  # the linked page opens in Chinese too
    cases = next(df.value for df in at.dataframe if "首次追问" in df.value.columns)
    assert {"运行", "标准答案丢失于"} <= set(cases.columns)
    assert "比较 lantern" in {p.label for p in page_links(at)}
    assert {"打开其运行", "在检索步骤打开其运行"} & {p.label for p in page_links(at)}
    assert missing_chinese() == []
