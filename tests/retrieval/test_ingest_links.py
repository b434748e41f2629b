"""A knowledge base is what is inside its folder: links that lead out of it are not followed, and the
ingestion report names them (an adversarial review ingested /etc/passwd through a link)."""
from __future__ import annotations

import pytest

from rag.ingest import ingest_folder
from rag.ingest.store import Store
from rag.ingest.words import OUTSIDE_LINK


@pytest.fixture
def linked(tmp_path):
    kb, outside = tmp_path / "kb", tmp_path / "outside"
    (kb / "sub").mkdir(parents=True)
    outside.mkdir()
    (kb / "guide.md").write_text("# Guide\n\nThe Nova battery lasts 20 hours.\n", "utf-8")
    (outside / "secret.md").write_text("# Secret\n\nTOP-SECRET-PAYROLL text that is not in the knowledge base.\n", "utf-8")
    (outside / "more.txt").write_text("OUTSIDE-DIR-TEXT in a folder next to the knowledge base.\n", "utf-8")
    (kb / "secret.md").symlink_to(outside / "secret.md")
    (kb / "sub" / "up.md").symlink_to("../../outside/secret.md")  # relative, two levels up
    (kb / "outdir").symlink_to(outside, target_is_directory=True)
    (kb / "alias.md").symlink_to("guide.md")  # stays inside: fine
    return kb


def test_links_leaving_the_folder_are_skipped_and_reported(linked, tmp_path):
    report = ingest_folder(linked, tmp_path / "store", embedder=None)
    reasons = {s.filename: s.reason for s in report.skipped}
    assert reasons == {"secret.md": OUTSIDE_LINK, "sub/up.md": OUTSIDE_LINK, "outdir": OUTSIDE_LINK}
    assert sorted(report.ingested) == ["alias.md", "guide.md"]
    texts = " ".join(c.text for c in Store.load(tmp_path / "store").chunks)
    assert "TOP-SECRET-PAYROLL" not in texts and "OUTSIDE-DIR-TEXT" not in texts
    assert "Nova battery" in texts


def test_a_link_to_a_system_file_is_not_ingested(tmp_path):
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "notes.md").write_text("# Notes\n\nSomething real.\n", "utf-8")
    (kb / "passwd.txt").symlink_to("/etc/passwd")
    report = ingest_folder(kb, tmp_path / "store", embedder=None)
    assert [(s.filename, s.reason) for s in report.skipped] == [("passwd.txt", OUTSIDE_LINK)]
    assert report.ingested == ["notes.md"]
