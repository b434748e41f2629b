"""Long questions: are they fast, and do they leave short ones alone?

Offline, end to end (`run_rag_graph` with the offline rules and the bundled knowledge base, dense leg on):
  - a maximum-size (RAG_MAX_QUESTION_CHARS, 4,000 characters) Chinese question, against a short question
    measured in the same run;
  - a short question's latency while two maximum-size questions run in other threads, against the same
    short question alone.

    python -m bench.long_question [--repeat 5]

Ends with `long_question_s` (target < 0.5), `long_vs_short_ratio` and `short_under_load_ratio` (target <= 3).
"""
from __future__ import annotations

import argparse
import random
import statistics
import threading
import time

from rag import run_rag_graph
from rag.settings import RagSettings

SHORT = ["丹瑾是什么属性？", "How long does the Nova battery last?"]
_WORDS = ("丹瑾 白芽 青棠 角色 属性 技能 突破 材料 月卡 价格 退款 服务器 登录 奖励 活动 电池 续航 小时 充电 重置 按钮 "
          "指示灯 温控器 日程 音箱 配对 手机 固件 升级 说明书 如何 为什么 多少 请问 的 是 在").split()


def long_question(chars: int, seed: int = 5) -> str:
    """A Chinese question of exactly `chars` characters from the knowledge base's vocabulary (fixed seed),
    with no conjunction, so it is one intent (the offline planner does not split it)."""
    rnd = random.Random(seed)
    text = ""
    while len(text) < chars - 1:
        text += rnd.choice(_WORDS)
    return text[:chars - 1] + "？"


def timed(question: str, settings: RagSettings) -> float:
    start = time.perf_counter()
    run_rag_graph(question, settings=settings)
    return time.perf_counter() - start


def short_median(settings: RagSettings, n: int) -> float:
    return statistics.median(timed(SHORT[i % len(SHORT)], settings) for i in range(n))


def under_load(settings: RagSettings, long_q: str, n: int, runners: int = 2) -> tuple[float, int]:
    """Median short-question latency while `runners` threads keep running the long question; and how many
    long runs finished meanwhile (to show they really ran)."""
    stop = threading.Event()
    started = threading.Barrier(runners + 1)
    done = [0]

    def keep_running() -> None:
        started.wait()
        while not stop.is_set():
            run_rag_graph(long_q, settings=settings)
            done[0] += 1

    threads = [threading.Thread(target=keep_running, daemon=True) for _ in range(runners)]
    for t in threads:
        t.start()
    started.wait()
    time.sleep(0.05)  # let both long runs get into the graph before the first short one starts
    try:
        return short_median(settings, n), done[0]
    finally:
        stop.set()
        for t in threads:
            t.join()


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="long runs for the median (short runs: 4x)")
    args = parser.parse_args(argv)
    settings = RagSettings(model_provider="offline", kb_dir=None, retriever_backend="embedded", dense_enabled=True)
    long_q = long_question(settings.max_question_chars)
    for q in SHORT + [long_q]:  # warm up: the knowledge base, both embedder lanes, graph compilation
        run_rag_graph(q, settings=settings)
    short = short_median(settings, 4 * args.repeat)
    long_s = statistics.median(timed(long_q, settings) for _ in range(args.repeat))
    loaded, long_runs = under_load(settings, long_q, 4 * args.repeat)
    figures = {
        "long_question_s": long_s,
        "long_vs_short_ratio": long_s / short,
        "short_under_load_ratio": loaded / short,
    }
    print(f"question sizes:                 {len(long_q):,} characters (Chinese) vs {', '.join(map(repr, SHORT))}")
    print(f"short question alone:           {short * 1000:.1f} ms (median of {4 * args.repeat})")
    print(f"maximum-size question:          {long_s * 1000:.1f} ms (median of {args.repeat})")
    print(f"short question, 2 long running: {loaded * 1000:.1f} ms (median of {4 * args.repeat}; "
          f"{long_runs} long runs meanwhile)")
    print(f"long_question_s: {long_s:.3f}")
    print(f"long_vs_short_ratio: {figures['long_vs_short_ratio']:.1f}")
    print(f"short_under_load_ratio: {figures['short_under_load_ratio']:.2f}")
    return figures


if __name__ == "__main__":
    main()
