"""The history page shows runs that never finished as abandoned, with when, and can hide them."""
from __future__ import annotations

from tests.support.apptest import press
from tests.ui.test_history_apptest import demo, history_page, new_app, problems, runs


def test_a_replaced_run_is_listed_abandoned_and_can_be_hidden(env):
    at = new_app().run()
    at.button(key=f"demo_{demo('answer').id}").click().run()
    press(at, "step")
    first = at.session_state["debug_session"].current.run_id
    press(at, "restart")  # the unfinished run is replaced by a new one
    press(at, "continue")
    second = at.session_state["debug_session"].current.run_id

    history_page(at)
    assert not problems(at), problems(at)
    table = runs(at).set_index("run id")
    assert table.loc[first, "status"] == "abandoned"
    assert table.loc[second, "status"] == "done"
    at.selectbox(key="history_run").set_value(first).run()
    assert any(c.value.startswith("Abandoned 20") and "never finished" in c.value for c in at.caption)

    at.toggle(key="history_hide_abandoned").set_value(True).run()
    assert list(runs(at)["run id"]) == [second]
