"""From the user's side: a question run live against a model endpoint (a local OpenAI-compatible server
configured on the Settings page), then opened from the Run history page in replay, shows the same model
calls in its waterfall (role · model, latency, tokens) as the live run did."""
from __future__ import annotations

import re

from tests.support.apptest import inspector_html, open_folded, press
from tests.ui.test_settings_trace_apptest import GRADE, configure, fake  # noqa: F401 - `fake` is a fixture

SPAN = re.compile(r'data-kind="span" title="([^"]*)"')


def waterfall_calls(at) -> list[str]:
    """Each model call's bar in the waterfall, as its tooltip says it: "role · model · latency · tokens"."""
    return SPAN.findall(inspector_html(at))


def test_a_replayed_run_shows_the_model_calls_of_the_live_run(app_test, fake):  # noqa: F811
    fake.reply({"complexity": "simple", "complexity_reason": "one fact", "sub_questions": []}, schema="ComplexityResult")
    fake.reply(GRADE, schema="EvidenceGrade")
    fake.reply({"answer": "frost [1]"}, method="plain")
    at = app_test.run()
    configure(at, fake.base_url)
    at.switch_page("pages/debugger.py").run()
    at.text_area(key="question").set_value("丹瑾是什么属性？").run()
    press(at, "run")
    assert not at.exception
    open_folded(at, "waterfall")  # built once opened; it stays open for the replay below
    live = waterfall_calls(at)
    assert live and all(t.startswith("grader · grade-model · ") for t in live)
    assert f"{len(live)} model call" in inspector_html(at)

    at.switch_page("pages/history.py").run()
    at.button(key="history_open").click().run()  # the newest run: the one just made
    assert any("Replay — recorded run" in w.body for w in at.warning)
    at.switch_page("pages/debugger.py")
    press(at, "continue")
    assert not at.exception
    assert waterfall_calls(at) == live
    assert f"{len(live)} model call" in inspector_html(at)
