"""Counted words read as a person writes them: "1 file", "2 files", never "file(s)". English has two
forms and Chinese one; each message is checked at both counts, and no catalogued message (nor any reason
of the offline provider) may count with "(s)" again."""
from __future__ import annotations

import json
import re

import pytest

from rag.errors import PromptTemplateError, PromptVersionError
from rag.i18n import catalog, use_language
from rag.ingest import words
from rag.ingest.words import translate_ingest

PSEUDO_PLURAL = re.compile(r"[A-Za-z]\(s\)")


def test_no_catalogued_message_counts_with_s_in_brackets():
    found = [entry.id for entry in catalog.read_catalog("en") if entry.id
             and any(PSEUDO_PLURAL.search(text) for text in catalog._forms(entry.id))]
    assert found == []


def test_no_reason_of_the_offline_provider_counts_with_s_in_brackets():
    from rag.models.offline_rules import RULES_PATH

    reasons = json.loads(RULES_PATH.read_text(encoding="utf-8"))["reasons"]
    assert [name for name, texts in reasons.items() if PSEUDO_PLURAL.search(json.dumps(texts))] == []


@pytest.mark.parametrize("n, english, chinese", [(1, "found 1 file", "找到 1 个文件"),
                                                 (2, "found 2 files", "找到 2 个文件")])
def test_an_ingestion_that_found_files_says_how_many(n, english, chinese):
    line = words.found_files(n)
    assert line == english and translate_ingest(line) == english
    with use_language("zh"):
        assert translate_ingest(line) == chinese


@pytest.mark.parametrize("template, english", [
    ("{question} {context} {secret}", "the grader prompt uses an unknown variable secret;"),
    ("{question} {context} {secret} {token}", "the grader prompt uses unknown variables secret, token;"),
])
def test_a_prompt_with_unknown_variables_names_them(template, english):
    from rag.prompts.templates import validate_template

    with pytest.raises(PromptTemplateError) as caught:
        validate_template("grader", template)
    assert str(caught.value).startswith(english)
    with use_language("zh"), pytest.raises(PromptTemplateError) as caught:
        validate_template("grader", template)
    assert "未知变量" in str(caught.value)


@pytest.mark.parametrize("missing, english", [
    (["rewriter"], "lacks the rewriter template"),
    (["rewriter", "grader"], "lacks the grader, rewriter templates"),
])
def test_a_prompt_version_file_without_templates_names_them(tmp_path, missing, english):
    from rag.prompts.templates import load_default_prompts
    from rag.prompts.versions import load_version, save_version

    save_version("v1", load_default_prompts(), "", directory=tmp_path)
    doc = json.loads((tmp_path / "v1.json").read_text())
    for role in missing:
        del doc["templates"][role]
    (tmp_path / "v1.json").write_text(json.dumps(doc))
    with pytest.raises(PromptVersionError) as caught:
        load_version("v1", directory=tmp_path)
    assert english in str(caught.value)


@pytest.mark.parametrize("count, english, chinese", [
    (1, "too large; 1 file of the archive not extracted", "too large；压缩包中有 1 个文件未解压"),
    (2, "too large; 2 files of the archive not extracted", "too large；压缩包中有 2 个文件未解压"),
])
def test_an_archive_cut_short_says_how_many_files_were_left_out(count, english, chinese):
    from rag.ingest.uploads import _not_extracted

    assert _not_extracted("too large", count) == english
    with use_language("zh"):
        assert _not_extracted("too large", count) == chinese


@pytest.mark.parametrize("n", [1, 2])
def test_the_knowledge_base_summary_counts_files_and_chunks(n):
    from rag.ingest.models import IngestReport
    from rag.kb_jobs import JobState
    from rag_debugger.ui.knowledge_bases_view import _summary

    report = IngestReport(folder="docs", store_dir="store", ingested=[f"f{i}.md" for i in range(n)], embedded=n)
    file_s, chunk_s = ("file", "chunk") if n == 1 else ("files", "chunks")
    cancelled = _summary(JobState(job_id="j", kb="kb", status="cancelled", report=report))
    assert cancelled.startswith(f"Ingestion cancelled: {n} {file_s} ingested before it stopped;")
    done = _summary(JobState(job_id="j", kb="kb", status="done", report=report))
    assert f"{n} {chunk_s} embedded" in done
    with use_language("zh"):
        assert f"停止前已导入 {n} 个文件" in _summary(JobState(job_id="j", kb="kb", status="cancelled", report=report))
