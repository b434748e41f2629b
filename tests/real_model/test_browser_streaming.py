"""The debugger in Chromium with the real small model on loopback (tests/real_model/conftest.py): the
planner's and the grader's tokens appear on the page while their step runs, and Stop cancels a grader
call and leaves the run paused where it was.

Nothing here depends on what the model says (it is not smart): only that its text arrives as it is
written and that a stopped step did not happen. The grader is stopped while it reads its prompt (SmolLM2
spends tens of seconds on it here, then writes its short reply in one or two): a Stop aimed at its tokens
could land after the step ended. Its tokens are then watched on the same step run again."""
from __future__ import annotations

import re

from tests.support.browser import ROOT, chromium_page, load_demo, streamlit_server, wait_idle

STEP_LIMIT = 8
"""Steps taken at most while looking for a grader call (the planner may route either chain)."""


def control(page, name: str):
    return page.locator(".rdi-controls").get_by_role("button", name=name, exact=True)


def steps_shown(page) -> int:
    """The step count of the position line (`main run · 2 steps · paused before …`)."""
    text = page.locator(".rdi-position").first.inner_text()
    return int(re.search(r"(\d+) steps?\b", text).group(1))


def running_text(page, role: str) -> str:
    """The text of a `role` call shown while the step still runs ("" when none is shown)."""
    return page.evaluate("""(role) => {
      const live = document.querySelector('.rdi-live[data-state="running"]');
      const calls = live ? [...live.querySelectorAll(`.rdi-live-call[data-role="${role}"] .rdi-live-text`)] : [];
      return calls.map(c => c.closest('.rdi-live-call').querySelector('.rdi-caption').innerText.includes(' 0 tokens')
                        ? '' : c.innerText).join('');
    }""", role)


def wait_for_running_tokens(page, role: str, timeout_ms: float = 180_000) -> str:
    """Wait until a `role` call shows text while its step runs; the step's end first fails the wait."""
    page.wait_for_function("""(role) => {
      const live = document.querySelector('.rdi-live[data-state="running"]');
      if (!live) return false;
      return [...live.querySelectorAll(`.rdi-live-call[data-role="${role}"]`)].some(
        c => !c.querySelector('.rdi-caption').innerText.includes(' 0 tokens'));
    }""", arg=role, timeout=timeout_ms, polling=100)
    return running_text(page, role)


STEP_ENDED_OR_GRADER = r"""([before, stepsPattern, graderEnds]) => {
  const live = document.querySelector('.rdi-live[data-state="running"]');
  if (graderEnds && live && live.querySelector('.rdi-live-call[data-role="grader"]')) return true;
  const pos = document.querySelector('.rdi-position');
  const shown = pos && pos.innerText.match(new RegExp(stepsPattern));
  return !live && shown && Number(shown[1]) !== before;
}"""
"""True once the step ended (no live view, a new step count), or, with `graderEnds`, once its live view shows
a grader call.
A raw string: in a plain one `\\b` is a backspace, the pattern matched nothing and the wait could only end
on a grader call (a Step without one then looked like a click that started nothing)."""
STEPS = r"(\d+) steps?\b"


def wait_step_ended_or_grader(page, before: int, timeout_ms: float = 300_000) -> bool:
    """Whether the step running now makes a grader call (else it ended, and the page is ready for the next
    click: idle, with Step on, as a person would see it before clicking)."""
    page.wait_for_function(STEP_ENDED_OR_GRADER, arg=[before, STEPS, True], timeout=timeout_ms, polling=100)
    if page.locator('.rdi-live[data-state="running"] .rdi-live-call[data-role="grader"]').count():
        return True
    wait_idle(page)
    return False


def step_to_a_grader_call(page) -> int:
    """Step on until a step makes a grader call (the planner may route either chain); the steps shown
    before that step."""
    for _attempt in range(STEP_LIMIT):
        if control(page, "Step").is_disabled():
            raise AssertionError("the run ended before any grader call")
        before = steps_shown(page)
        control(page, "Step").click()
        if wait_step_ended_or_grader(page, before):
            return before
    raise AssertionError(f"no grader call within {STEP_LIMIT} steps")


def test_the_planners_and_graders_tokens_appear_as_written_and_stop_cancels_a_grader(real_model_base_url):
    env = {"RAG_MODEL_PROVIDER": "openai", "OPENAI_BASE_URL": real_model_base_url, "FAST_MODEL": "smollm2",
           "GRADE_MODEL": "smollm2", "RAG_STRUCTURED_OUTPUT_METHOD": "function_calling",
           "RAG_MODEL_TIMEOUT_SECONDS": "240", "RAG_MODEL_MAX_RETRIES": "0", "OMP_WAIT_POLICY": "PASSIVE"}
    with streamlit_server(ROOT / "app.py", env=env) as url, chromium_page() as page:
        page.goto(url, wait_until="domcontentloaded")
        wait_idle(page)
        load_demo(page, "zh_complex_two_characters")

        control(page, "Step").click()  # the planner
        planner = wait_for_running_tokens(page, "planner")
        assert planner.strip(), "the planner's text appeared while its step ran"
        assert steps_shown(page) == 0 and control(page, "Step").is_disabled()
        page.get_by_text("1 step · ").first.wait_for(timeout=300_000)
        wait_idle(page)

        before = step_to_a_grader_call(page)
        control(page, "Stop").click()  # while the grader reads its prompt
        page.locator(".rdi-live-note", has_text="Stopped: grader call cancelled after").wait_for(timeout=120_000)
        wait_idle(page)
        assert steps_shown(page) == before  # the stopped step did not happen
        assert control(page, "Step").is_enabled()

        control(page, "Step").click()  # the same step again: its grader's tokens appear as they are written
        grader = wait_for_running_tokens(page, "grader", timeout_ms=300_000)
        assert grader.strip(), "the grader's text appeared while its step ran"
        assert steps_shown(page) == before and control(page, "Step").is_disabled()
        page.wait_for_function(STEP_ENDED_OR_GRADER, arg=[before, STEPS, False], timeout=300_000, polling=100)
        assert steps_shown(page) > before  # this time the step happened
        assert not page.get_by_text("Traceback").count()
