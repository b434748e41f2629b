"""The README is the front door: short, the two commands, and every page it sends a reader to exists (and every
page under docs/ is reachable from it)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


def _anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    out = set()
    for line in markdown.splitlines():
        if line.startswith("#"):
            text = line.lstrip("#").strip().lower()
            out.add(re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", text)))
    return out


def test_the_readme_is_under_200_lines():
    assert len(README.splitlines()) < 200


def test_the_two_commands_and_the_python_version_are_there():
    assert "pip install -r requirements.txt && streamlit run app.py" in README
    assert "bash scripts/test.sh" in README
    assert "Python 3.11" in README and "venv" in README
    assert (ROOT / ".ci" / "run").read_text().count("scripts/test.sh") == 1


def test_every_local_link_resolves_with_its_anchor():
    for source in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = source.read_text(encoding="utf-8")
        for target, anchor in LINK.findall(text):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            path = (source.parent / target).resolve()
            assert path.exists(), f"{source.name} links to a missing {target}"
            if anchor and path.suffix == ".md":
                assert anchor[1:] in _anchors(path.read_text(encoding="utf-8")), f"{source.name}: {target}{anchor}"


def test_every_docs_page_is_reachable_from_the_readme():
    linked = {Path(t).name for t, _ in LINK.findall(README) if t.startswith("docs/")}
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert pages <= linked, f"not linked from the README: {sorted(pages - linked)}"
