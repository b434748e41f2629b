"""The inspector sends a section's HTML only when the browser does not already show it
(rag_debugger/views/section_delivery.py): the rules as a table, and the page's side of it under AppTest."""
from __future__ import annotations

import pytest

from rag_debugger.views.section_delivery import Delivered, digest, payload

NAMES = ("head", "graph", "step")


def full_sections(data: dict, names: tuple[str, ...]) -> bool:
    """Whether `data` carries every section's HTML (nothing kept)."""
    return not data.get("kept") and all(name in data for name in names)


def sent(data: dict) -> set[str]:
    return {name for name in NAMES if name in data}


def test_nothing_known_sends_every_section_and_the_other_values():
    data, now = payload({"head": "h", "graph": "g1", "step": "s", "link": "?run=1"}, NAMES, None)
    assert sent(data) == set(NAMES) and data["link"] == "?run=1" and data["kept"] == {}
    assert full_sections(data, NAMES)
    assert now.shown == {name: digest(html) for name, html in (("head", "h"), ("graph", "g1"), ("step", "s"))}
    assert now.cached == [digest("g1")]


@pytest.mark.parametrize("before, after, expect_sent", [
    ({"head": "h", "graph": "g1", "step": "s1"}, {"head": "h", "graph": "g1", "step": "s2"}, {"step"}),
    ({"head": "h", "graph": "g1", "step": "s1"}, {"head": "h2", "graph": "g2", "step": "s1"}, {"head", "graph"}),
    ({"head": "h", "graph": "g1", "step": "s1"}, {"head": "h", "graph": "g1", "step": "s1"}, set()),
])
def test_a_step_sends_only_what_changed(before, after, expect_sent):
    _, known = payload(before, NAMES, None)
    data, _ = payload(after, NAMES, known)
    assert sent(data) == expect_sent
    assert set(data["kept"]) == set(NAMES) - expect_sent
    assert data["hashes"] == {name: digest(after[name]) for name in NAMES}
    assert not full_sections(data, NAMES) or expect_sent == set(NAMES)


def test_a_graph_picture_seen_before_is_not_sent_again_but_other_sections_are():
    """The browser keeps every graph picture it was sent (Restart and time travel return to them);
    of the other sections it keeps only the one it shows."""
    _, known = payload({"head": "h1", "graph": "g1", "step": "s1"}, NAMES, None)
    _, known = payload({"head": "h2", "graph": "g2", "step": "s2"}, NAMES, known)
    data, known = payload({"head": "h1", "graph": "g1", "step": "s1"}, NAMES, known)
    assert sent(data) == {"head", "step"}
    assert data["kept"] == {"graph": digest("g1")}
    assert known.cached == [digest("g2"), digest("g1")]  # most recently shown last


def test_the_graph_cache_forgets_the_oldest_pictures_like_the_browser():
    known = None
    for i in range(5):
        _, known = payload({"graph": f"g{i}"}, ("graph",), known, cache_size=3)
    assert known.cached == [digest("g2"), digest("g3"), digest("g4")]
    data, _ = payload({"graph": "g0"}, ("graph",), known, cache_size=3)
    assert data["graph"] == "g0"  # forgotten: sent again


def test_an_empty_section_is_kept_like_any_other():
    _, known = payload({"head": "", "graph": "g", "step": ""}, NAMES, None)
    data, _ = payload({"head": "", "graph": "g", "step": ""}, NAMES, known)
    assert data["kept"] == {"head": digest(""), "graph": digest("g"), "step": digest("")}


def test_delivered_is_a_plain_model():
    assert Delivered().shown == {} and Delivered().cached == []
