"""An ingestion writes its reasons and progress in English (a background job every browser shares); the
Knowledge bases page shows them in the reader's language."""
from __future__ import annotations

import pytest

from rag.errors import BadFile
from rag.i18n import use_language
from rag.i18n.read_back import TemplateTable
from rag.ingest import words
from rag.ingest.loaders import file_kind, read_pages
from rag.ingest.words import translate_ingest


@pytest.mark.parametrize("name, data, english, chinese", [
    ("empty.md", b"   \n", "empty file", "空文件"),
    ("blob.txt", b"abc\x00def", "binary content (NUL bytes) in a text file", "文本文件中含二进制内容（NUL 字节）"),
    ("fake.pdf", b"hello, not a pdf", "not a PDF (missing %PDF header)", "不是 PDF（缺少 %PDF 文件头）"),
])
def test_a_loader_reason_is_english_and_shown_in_chinese(tmp_path, name, data, english, chinese):
    path = tmp_path / name
    path.write_bytes(data)
    with use_language("zh"), pytest.raises(BadFile) as caught:  # the loader ignores the reader's language
        read_pages(path)
    assert str(caught.value) == english
    with use_language("zh"):
        assert translate_ingest(str(caught.value)) == chinese
    assert translate_ingest(str(caught.value)) == english


def test_values_inside_a_reason_stay_as_they_are(tmp_path):
    with pytest.raises(BadFile) as caught:
        file_kind(tmp_path / "slides.pptx")
    with use_language("zh"):
        assert translate_ingest(str(caught.value)) == "不支持的文件类型 .pptx"


def test_a_progress_line_translates_its_stage_word_and_keeps_the_file_name():
    line = words.FILE_STAGE_AT.format(stage="parsing", filename="manual.md", index=2, total=5)
    with use_language("zh"):
        shown = translate_ingest(line)
    assert "manual.md" in shown and "2/5" in shown and "parsing" not in shown
    with use_language("zh"):
        assert translate_ingest(words.EMBEDDING_CHUNKS.format(done=8, total=40)) == "正在向量化文本块 8/40"


def test_text_made_from_no_template_is_shown_unchanged():
    with use_language("zh"):
        assert translate_ingest("pypdf said something odd") == "pypdf said something odd"
        assert translate_ingest(None) == ""


def test_the_most_literal_template_wins_and_values_can_be_rewritten():
    table = TemplateTable(["Mode: {mode}", "Mode: fast (cached)"], values=lambda name, value: value.upper())
    assert table.match("Mode: fast (cached)") == ("Mode: fast (cached)", {})
    assert table.translate("Mode: slow") == "Mode: SLOW"
