"""A model that guesses: its step in the debugger carries plausibility warnings (invented HITL options, a
reason that quotes nothing of the evidence), the route stays the rules', and an offline run has none."""
from __future__ import annotations

import pytest

from tests.support.apptest import inspector_text, press
from tests.support.fake_openai import running_fake_openai

KEY = "sk-test-plausible-3e8d1c"
GUESSING_GRADE = {"relevance": "weak", "answerability": "partial", "ambiguity": "multiple_candidates", "confidence": 0.4,
                  "route": "scope_select", "reason": "1234567890", "missing_slots": [],
                  "hitl_prompt": "Which one?", "hitl_options": ["Option Zeta-9", "Quantum Lattice"]}

pytestmark = pytest.mark.filterwarnings("ignore:This model does not support OpenAI's structured output:UserWarning")


def configure(at, base_url):
    at.switch_page("pages/settings.py").run()
    at.selectbox(key="set_provider").set_value("openai")
    at.text_input(key="set_base_url").input(base_url)
    at.text_input(key="set_api_key").input(KEY)
    at.number_input(key="set_timeout").set_value(5.0)
    at.number_input(key="set_retries").set_value(0)
    next(b for b in at.button if b.label == "Save model settings").click().run()
    assert not at.exception


def test_a_guessing_grader_gets_warnings_on_its_step(app_test):
    with running_fake_openai() as fake:
        fake.reply({"complexity": "simple", "complexity_reason": "one fact", "sub_questions": []},
                   schema="ComplexityResult")
        fake.reply(GUESSING_GRADE, schema="EvidenceGrade")
        at = app_test.run()
        configure(at, fake.base_url)
        at.switch_page("pages/debugger.py").run()
        at.text_area(key="question").set_value("What is the attribute of Danjin in the game?").run()
        press(at, "run")
        assert not at.exception
        text = inspector_text(at)
    assert "Plausibility" in text
    assert "Option Zeta-9" in text and "Quantum Lattice" in text and "appears in no retrieved chunk" in text
    assert "1234567890" in text and "quotes nothing of the evidence" in text
    assert "The route stands" in text


def test_an_offline_run_has_no_plausibility_warnings(app_test):
    at = app_test.run()
    at.switch_page("pages/debugger.py").run()
    at.text_area(key="question").set_value("What is the attribute of Danjin in the game?").run()
    press(at, "run")
    assert not at.exception
    assert "Plausibility" not in inspector_text(at)
