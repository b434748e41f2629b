"""The fake server's own contract, which other test directories rely on."""
from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request

from tests.support.fake_openai import Delay, FakeOpenAI, HttpError, Respond


def post(fake: FakeOpenAI, body: dict, key: str = "k") -> tuple[int, dict]:
    req = urllib.request.Request(fake.base_url + "/chat/completions", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def tool_request(name: str) -> dict:
    return {"model": "m", "messages": [{"role": "user", "content": "x"}],
            "tools": [{"type": "function", "function": {"name": name, "parameters": {}}}],
            "tool_choice": {"type": "function", "function": {"name": name}}}


def test_unscripted_requests_get_a_500_that_says_so(fake_openai):
    status, body = post(fake_openai, {"model": "m", "messages": []})
    assert status == 500 and "no scripted reply" in body["error"]["message"]
    assert len(fake_openai.requests) == 1


def test_rules_apply_in_order_and_run_out(fake_openai):
    fake_openai.reply({"n": 1}, times=1)
    fake_openai.reply({"n": 2})
    answers = [json.loads(post(fake_openai, {"model": "m", "messages": []})[1]["choices"][0]["message"]["content"])
               for _ in range(3)]
    assert answers == [{"n": 1}, {"n": 2}, {"n": 2}]


def test_function_calling_gets_the_forced_tool_call(fake_openai):
    fake_openai.reply({"a": 1}, schema="EvidenceGrade")
    status, body = post(fake_openai, tool_request("EvidenceGrade"))
    message = body["choices"][0]["message"]
    assert status == 200 and body["choices"][0]["finish_reason"] == "tool_calls"
    assert message["tool_calls"][0]["function"] == {"name": "EvidenceGrade", "arguments": '{"a": 1}'}
    assert fake_openai.requests[0].method == "function_calling"


def test_schema_filters_route_replies_by_role(fake_openai):
    fake_openai.reply({"role": "grader"}, schema="EvidenceGrade")
    fake_openai.reply({"role": "planner"}, schema="ComplexityResult")
    status, body = post(fake_openai, tool_request("ComplexityResult"))
    assert json.loads(body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]) == {"role": "planner"}
    assert [r.schema_name for r in fake_openai.requests] == ["ComplexityResult"]
    assert fake_openai.requests_for("ComplexityResult") == fake_openai.requests


def test_errors_can_echo_the_key_and_the_key_is_not_in_the_record(fake_openai):
    fake_openai.script(HttpError.unauthorized())
    status, body = post(fake_openai, {"model": "m", "messages": []}, key="sk-abc123")
    assert status == 401 and "sk-abc123" in body["error"]["message"]
    assert "sk-abc123" not in repr(fake_openai.requests[0])


def test_stop_does_not_wait_for_a_delayed_reply():
    fake = FakeOpenAI().start()
    fake.script(Delay(30, Respond({})))
    client = threading.Thread(target=lambda: _swallow(post, fake, {"model": "m", "messages": []}), daemon=True)
    client.start()
    assert fake.wait_for_requests(1)
    started = time.monotonic()
    fake.stop()
    assert time.monotonic() - started < 2


def _swallow(fn, *args):
    try:
        fn(*args)
    except Exception:  # noqa: BLE001 - the server went away: expected here
        pass
