"""A saved evaluation's provider, description, labels and case ids are shown as text on Evaluate (hole 1
of the second review): an evaluation record is shared by everyone who opens the page."""
from __future__ import annotations

from tests.support.markdown import live_markup
from tests.ui.test_evaluate_apptest import evaluate_page, new_app
from tests.ui.test_hardening_apptest import markdown_sources

BAD = "![](//attacker.example/{})"


def test_a_saved_comparison_shows_its_outside_text_as_text(eval_sets, env):
    from rag.eval.results_store import EvalRecord, EvalStore
    from rag.eval.scoring import CaseResult

    eval_sets([{"id": "c1", "question": "What is the capital of Australia?", "expected_route": "no_knowledge"}])
    store = EvalStore(env / "history.db")
    right = CaseResult(id=BAD.format("case"), expected_route="answer", route="answer", question="q")
    wrong = CaseResult(id=BAD.format("case"), expected_route="answer", route="clarify", question="q")
    a = store.save(EvalRecord.from_results([right], set_name="s.jsonl", label="A", provider=BAD.format("provider"),
                                           kb=BAD.format("kb"), config={"description": BAD.format("desc")}))
    store.save(EvalRecord.from_results([wrong], set_name="s.jsonl", label="B", group_id=a.group_id,
                                       provider=BAD.format("provider"), config={"description": BAD.format("desc")}))
    at = new_app().run()
    at.session_state["eval_group"] = a.group_id
    at = evaluate_page(at)
    assert not at.exception
    shown = markdown_sources(at) + [h.value for h in at.subheader]
    for what in ("provider", "desc", "case", "kb"):
        assert any(f"attacker.example/{what}" in t for t in shown), (what, shown)
    assert [t for t in shown if "attacker.example" in t and live_markup(t)] == []
