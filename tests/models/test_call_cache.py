"""The disk cache of model calls: same (model, prompt, input) -> no second request; anything else
that changes the call asks again; failures and corrupt files are never served."""
from __future__ import annotations

from rag.models.base import GraderInput
from rag.models.call_cache import CachedRole, CallCache, with_call_cache
from rag.models.offline import build_offline_roles
from rag.models.openai_compat import build_openai_roles
from tests.models.conftest import GRADE
from tests.support.fake_openai import HttpError

INP = GraderInput(question="What is x?", context="x is 3.")


def test_a_repeated_call_is_served_from_disk_and_a_changed_input_is_not(scripted, make_settings, tmp_path):
    cache = CallCache(tmp_path)
    roles = with_call_cache(build_openai_roles(make_settings()), cache)
    assert isinstance(roles.grader, CachedRole)
    first = roles.grader.invoke(INP)
    again = with_call_cache(build_openai_roles(make_settings()), CallCache(tmp_path)).grader.invoke(INP)
    assert again == first and len(scripted.requests) == 1
    roles.grader.invoke(INP.model_copy(update={"context": "x is 4."}))
    with_call_cache(build_openai_roles(make_settings(grade_model="other")), cache).grader.invoke(INP)
    assert len(scripted.requests) == 3
    assert (cache.hits, cache.misses) == (0, 3)


def test_failures_are_not_cached_and_a_corrupt_file_is_a_miss(fake_openai, make_settings, tmp_path):
    fake_openai.script(HttpError.server_error(), schema="EvidenceGrade", times=1)
    fake_openai.reply(GRADE, schema="EvidenceGrade")
    cache = CallCache(tmp_path)
    grader = with_call_cache(build_openai_roles(make_settings()), cache).grader
    try:
        grader.invoke(INP)
    except Exception:  # noqa: BLE001 - the scripted 500
        pass
    grader.invoke(INP)
    assert len(fake_openai.requests) == 2
    for path in tmp_path.rglob("*.json"):
        path.write_text("{not json", "utf-8")
    grader.invoke(INP)
    assert len(fake_openai.requests) == 3


def test_offline_rules_are_not_wrapped():
    roles = build_offline_roles()
    assert with_call_cache(roles, CallCache("/nonexistent")).grader is roles.grader
