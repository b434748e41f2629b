"""A real small model on loopback: per-role latency, generation speed, and what streaming costs.

Starts llama-cpp-python's server with SmolLM2-135M-Instruct (the venv of `scripts/real_model.sh`; see
tests/support/real_model.py) and, for each role (planner, grader, rewriter, answerer), makes the role's call
through `ClientPool` as the app does (streamed, capped, with a live-call observer that hears every delta)
and the same request unstreamed (the same bound model, `max_tokens` and prompt; `stream=False`), the two
taking turns so that a drift in the machine's load hits both.

Reports per role: wall time, time to the first token, streamed chunks (a token each on llama.cpp) and
tokens/s while generating. Ends with `streaming_overhead: X`: the median over roles of (streamed wall time
per token) / (unstreamed wall time per token) — the page keeps up with the model when X <= 1.1.

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


def _prompt(role: str, method: str) -> str:
    if role == "answerer":
        return ANSWERER_PROMPT
    prompts = load_prompts(None)
    text = render(role, prompts.get(role), INPUTS[role].model_dump())
    return text + json_mode_instructions(ROLE_OUTPUTS[role]) if method == "json_mode" else text


def streamed(pool: ClientPool, role: str, method: str) -> dict:
    clock = TokenClock()
    started = time.perf_counter()
    with live_calls(clock):
        try:
            if role == "answerer":
                pool.complete(role=role, model=MODEL_ALIAS, prompt=_prompt(role, method))
            else:
                pool.call(role=role, model=MODEL_ALIAS, schema=ROLE_OUTPUTS[role], method=method,
                          prompt=render(role, load_prompts(None).get(role), INPUTS[role].model_dump()))
        except Exception as exc:  # noqa: BLE001 - a tiny model's invalid output still streamed its tokens
            print(f"  ({role}: {type(exc).__name__}: {str(exc)[:120]})")
    wall = time.perf_counter() - started
    gen = (clock.last - clock.first) if clock.first and clock.last and clock.last > clock.first else None
    return {"wall": wall, "ttft": (clock.first - started) if clock.first else None, "tokens": clock.count,
            "tok_s": (clock.count - 1) / gen if gen else None}


def unstreamed(pool: ClientPool, role: str, method: str, settings: RagSettings) -> dict:
    runnable = pool.client(MODEL_ALIAS) if role == "answerer" else pool.structured(MODEL_ALIAS, ROLE_OUTPUTS[role], method)
    cap = max_tokens_for(role, settings.max_tokens_settings())
    started = time.perf_counter()
    reply = runnable.invoke([("user", _prompt(role, method))], extra_body={"max_tokens": cap}, timeout=300)
    wall = time.perf_counter() - started
    usage = getattr(reply, "usage_metadata", None) or {}
    return {"wall": wall, "tokens": usage.get("output_tokens")}


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
        streamed(pool, "planner", args.method)  # warm-up: the server loads the model's weights on first use
        ratios = []
        print(f"real model {MODEL_ALIAS} on loopback, method {args.method}, {args.rounds} rounds")
        print(f"{'role':<10}{'wall s':>8}{'first tok s':>12}{'tokens':>8}{'tok/s':>8}{'plain s':>9}{'per-token ratio':>17}")
        for role in ("planner", "grader", "rewriter", "answerer"):
            runs_s, runs_u = [], []
            for _ in range(args.rounds):
                runs_s.append(streamed(pool, role, args.method))
                runs_u.append(unstreamed(pool, role, args.method, settings))
            per_s = [r["wall"] / max(1, r["tokens"]) for r in runs_s]
            per_u = [r["wall"] / max(1, r["tokens"] or 1) for r in runs_u]
            ratio = statistics.median(per_s) / statistics.median(per_u)
            ratios.append(ratio)
            tok_s = [r["tok_s"] for r in runs_s if r["tok_s"]]
            ttft = [r["ttft"] for r in runs_s if r["ttft"] is not None]
            print(f"{role:<10}{statistics.median(r['wall'] for r in runs_s):>8.2f}"
                  f"{(statistics.median(ttft) if ttft else float('nan')):>12.2f}"
                  f"{statistics.median(r['tokens'] for r in runs_s):>8.0f}"
                  f"{(statistics.median(tok_s) if tok_s else float('nan')):>8.1f}"
                  f"{statistics.median(r['wall'] for r in runs_u):>9.2f}{ratio:>17.2f}")
        print(f"streaming_overhead: {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
