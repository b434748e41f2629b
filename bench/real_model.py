"""A real small model on loopback: per-role latency, generation speed, and what streaming costs.

Starts llama-cpp-python's server with SmolLM2-135M-Instruct (the venv of `scripts/real_model.sh`; see
tests/support/real_model.py) and, for each role (planner, grader, rewriter, answerer), makes the role's call
through `ClientPool` as the app does (streamed, capped, with a live-call observer that hears every delta)
and the same request unstreamed (the same bound model, `max_tokens` and prompt; `stream=False`), the two
taking turns so that a drift in the machine's load hits both.

Reports per role: wall time, time to the first token, streamed chunks (a token each on llama.cpp) and
tokens/s while generating (the app's call: streamed, capped, retried once when cut). Then, per role, the same
request (the same bound model, cap and prompt) streamed and read as the app reads a stream, and unstreamed,
taking turns. Ends with `streaming_overhead: X`, the median over roles of the median streamed/unstreamed wall
time: streaming costs nothing worth noticing when X <= 1.1.

The two requests of a pair are the very same prompt, so the greedy model (temperature 0) writes the same reply
to both: the reply's tokens are printed beside the ratio. Two things would otherwise make the ratio measure the
model instead of the streaming. A different prompt per request (an earlier version put a new number in each)
gets a different reply: SmolLM2's grader wrote 59 to 110 tokens for five numbers and ran to its 640-token cap
for a sixth (36.6 s against 8-14 s). And llama-cpp-python reuses the previous request's prompt where it has the
same beginning, so the second of two equal prompts would skip reading it: before each timed request, a
one-token request with another prompt takes that place.

    python -m bench.real_model [--rounds 3] [--method function_calling]
"""
from __future__ import annotations

import argparse
import statistics
import threading
import time
from typing import Optional

from rag.models.base import GraderInput, PlannerInput, RewriterInput
from rag.models.call_limits import max_tokens_for
from rag.models.calls import live_calls
from rag.models.openai_compat import ROLE_OUTPUTS, ClientPool, json_mode_instructions
from rag.models.streaming import read_stream
from rag.prompts import load_prompts
from rag.prompts.templates import render
from rag.settings import RagSettings
from tests.support.real_model import MODEL_ALIAS, running_real_model

CONTEXT = ("[1] (danjin.md)\nDanjin is a Havoc resonator from Jinzhou who fights with a sword.\n\n"
           "[2] (jiyan.md)\nJiyan is an Aero resonator and the general of the Midnight Rangers; he wields a broadblade.")
INPUTS = {
    "planner": PlannerInput(question="Compare the attack of Danjin and the defence of Jiyan"),
    "grader": GraderInput(question="What element is Danjin?", context=CONTEXT),
    "rewriter": RewriterInput(question="What element is Danjin v3.2?", context=CONTEXT, grade_reason="too specific"),
}
ANSWERER_PROMPT = ("Answer the question from the numbered context and cite it as [n].\n\nContext:\n" + CONTEXT
                   + "\n\nQuestion: What element is Danjin?")


class TokenClock:
    """A live-call observer: when the first and the last delta came, and how many."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.first: Optional[float] = None
        self.last: Optional[float] = None
        self.count = 0

    def call_started(self, call_id, role, model, task_id):
        pass

    def call_token(self, call_id, text):
        now = time.perf_counter()
        with self.lock:
            self.first = self.first or now
            self.last = now
            self.count += 1

    def call_ended(self, call_id, ok, error_kind):
        pass


def _role_prompt(role: str) -> str:
    if role == "answerer":
        return ANSWERER_PROMPT
    return render(role, load_prompts(None).get(role), INPUTS[role].model_dump())


def _wire_prompt(role: str, method: str) -> str:
    """What goes over the wire (json_mode carries the answer's form in the prompt, as `ClientPool.call` adds it)."""
    text = _role_prompt(role)
    return text + json_mode_instructions(ROLE_OUTPUTS[role]) if method == "json_mode" and role != "answerer" else text


def app_call(pool: ClientPool, role: str, method: str, nonce: int) -> dict:
    """The role's call as the app makes it (streamed, capped, retried once when cut), with an observer."""
    clock = TokenClock()
    prompt = f"(request {nonce})\n" + _role_prompt(role)
    started = time.perf_counter()
    with live_calls(clock):
        try:
            if role == "answerer":
                pool.complete(role=role, model=MODEL_ALIAS, prompt=prompt)
            else:
                pool.call(role=role, model=MODEL_ALIAS, schema=ROLE_OUTPUTS[role], method=method, prompt=prompt)
        except Exception as exc:  # noqa: BLE001 - a tiny model's invalid output still streamed its tokens
            print(f"  ({role}: {type(exc).__name__}: {str(exc)[:100]}…)")
    wall = time.perf_counter() - started
    gen = (clock.last - clock.first) if clock.first and clock.last and clock.last > clock.first else None
    return {"wall": wall, "ttft": (clock.first - started) if clock.first else None, "tokens": clock.count,
            "tok_s": (clock.count - 1) / gen if gen else None}


def flush(pool: ClientPool, nonce: int) -> None:
    """A one-token request with a prompt of its own: the server's kept prompt is no longer the next request's."""
    pool.client(MODEL_ALIAS).invoke([("user", f"flush {nonce}")], extra_body={"max_tokens": 1}, timeout=600)


def one_request(pool: ClientPool, role: str, method: str, settings: RagSettings, nonce: int,
                stream: bool) -> tuple[float, Optional[int]]:
    """One request, streamed (read as the app reads a stream) or not; the same bound model, cap and prompt.
    Returns the seconds and the reply's tokens (streamed: the chunks that carried text, a token each here)."""
    runnable = pool.client(MODEL_ALIAS) if role == "answerer" else pool.structured(MODEL_ALIAS, ROLE_OUTPUTS[role], method)
    kwargs = {"extra_body": {"max_tokens": max_tokens_for(role, settings.max_tokens_settings())}, "timeout": 600}
    messages = [("user", f"(request {nonce})\n" + _wire_prompt(role, method))]
    started = time.perf_counter()
    if stream:
        reply = read_stream(lambda: runnable.stream(messages, **kwargs), deadline=started + 600)
        return time.perf_counter() - started, reply.chunks
    message = runnable.invoke(messages, **kwargs)
    return time.perf_counter() - started, (getattr(message, "usage_metadata", None) or {}).get("output_tokens")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--method", default="function_calling", choices=["function_calling", "json_mode"])
    args = parser.parse_args()
    with running_real_model() as base_url:
        settings = RagSettings(model_provider="openai", openai_base_url=base_url, fast_model=MODEL_ALIAS,
                               grade_model=MODEL_ALIAS, structured_output_method=args.method,
                               model_timeout_seconds=300, model_max_retries=0)
        pool = ClientPool(settings)
        nonce = iter(range(1, 10_000))
        app_call(pool, "planner", args.method, next(nonce))  # warm-up: the server maps the weights on first use
        print(f"real model {MODEL_ALIAS} on loopback, method {args.method}, {args.rounds} rounds")
        print(f"{'role':<10}{'wall s':>8}{'first tok s':>12}{'tokens':>8}{'tok/s':>8}{'streamed/plain':>16}"
              f"  pairs: streamed s / plain s (reply tokens)")
        ratios = []
        for role in ("planner", "grader", "rewriter", "answerer"):
            calls = [app_call(pool, role, args.method, next(nonce)) for _ in range(args.rounds)]
            pairs, shown = [], []
            for i in range(args.rounds):  # the two take turns, each first half of the time
                order = (True, False) if i % 2 == 0 else (False, True)
                same = next(nonce)  # one prompt for both: the same reply
                times = {}
                for stream in order:
                    flush(pool, next(nonce))
                    times[stream] = one_request(pool, role, args.method, settings, same, stream)
                (s_s, s_tok), (p_s, p_tok) = times[True], times[False]
                pairs.append(s_s / p_s)
                shown.append(f"{s_s:.2f}/{p_s:.2f} ({s_tok}{'' if s_tok == p_tok else f' vs {p_tok}'})")
            ratio = statistics.median(pairs)
            ratios.append(ratio)
            tok_s = [c["tok_s"] for c in calls if c["tok_s"]]
            ttft = [c["ttft"] for c in calls if c["ttft"] is not None]
            print(f"{role:<10}{statistics.median(c['wall'] for c in calls):>8.2f}"
                  f"{(statistics.median(ttft) if ttft else float('nan')):>12.2f}"
                  f"{statistics.median(c['tokens'] for c in calls):>8.0f}"
                  f"{(statistics.median(tok_s) if tok_s else float('nan')):>8.1f}{ratio:>16.2f}  {', '.join(shown)}")
        print(f"streaming_overhead: {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
