"""docs/screenshot_phoenix.png: a complex demo run (parallel lanes, retriever spans) as Phoenix shows it.

Starts Phoenix from its test venv (tests/support/phoenix.py) on loopback, sends offline runs to it over
OTLP/HTTP and photographs the trace in Debian's Chromium.

    python scripts/screenshot_phoenix.py
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag import run_rag_graph
from rag.demo import load_demo_questions
from rag.settings import RagSettings
from rag.telemetry import exporter
from tests.support.browser import ROOT, chromium_page
from tests.support.phoenix import running_phoenix

PROJECT = "rag-debugger"


def main() -> None:
    demos = load_demo_questions()
    question = next(d.question for d in demos if d.expected_route == "complex" and d.lang == "en")
    with running_phoenix() as phoenix:
        os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] = phoenix.otlp_http
        os.environ["OTEL_SERVICE_NAME"] = PROJECT
        exporter.reset()
        run_rag_graph(question, settings=RagSettings(model_provider="offline"))
        exporter.flush(15000)
        time.sleep(1)
        with chromium_page() as page:
            page.goto(phoenix.url + "/projects", wait_until="networkidle")
            page.get_by_text(PROJECT, exact=True).first.click()
            page.wait_for_load_state("networkidle")
            page.get_by_text("rag.run", exact=True).first.click()
            page.wait_for_load_state("networkidle")
            time.sleep(2)
            page.get_by_text("rag_sub_agent").first.click()
            time.sleep(1)
            page.screenshot(path=str(ROOT / "docs" / "screenshot_phoenix.png"))


if __name__ == "__main__":
    main()
