"""A run's name is made once, in English, and shown in whichever language the reader uses now."""
from __future__ import annotations

import pytest

from rag.i18n import use_language
from rag_debugger.workbench import run_names
from rag_debugger.workbench.run_names import shown_name


@pytest.mark.parametrize("made, english, chinese", [
    (run_names.MAIN_RUN, "main run", "主运行"),
    (run_names.HITL_RESUME.format(n=2), "HITL resume #2", "HITL 恢复 #2"),
    (run_names.WHAT_IF.format(n=1), "what-if #1", "假设分支 #1"),
    (run_names.MAIN_RUN_RECORDED, "main run (recorded)", "主运行（已记录）"),
    (run_names.HITL_RESUME_RECORDED.format(n=1), "HITL resume #1 (recorded)", "HITL 恢复 #1（已记录）"),
    (run_names.WHAT_IF_RECORDED, "what-if fork (recorded)", "假设分支（已记录）"),
])
def test_a_run_name_is_shown_in_the_readers_language(made, english, chinese):
    assert made == english
    with use_language("zh"):
        assert shown_name(made) == chinese
    assert shown_name(made) == english


def test_a_session_names_its_runs_in_english_whatever_the_language_then():
    from rag.settings import RagSettings
    from rag_debugger.workbench.session import DebugSession

    session = DebugSession(RagSettings(model_provider="offline"))
    with use_language("zh"):
        seg = session.start("什么是丹瑾的属性？")
    assert seg.label == "main run"  # so a later switch to English shows it in English


def test_a_name_from_no_template_is_shown_as_it_is():
    with use_language("zh"):
        assert shown_name("an older recording's label") == "an older recording's label"
