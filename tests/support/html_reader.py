"""Read HTML back the way a person reads the page: its text, its tables (by id) and <pre> blocks."""
from __future__ import annotations

from html.parser import HTMLParser


class _Reader(HTMLParser):
    """Text of the page (cells separated) and every table with an id, as header + rows."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.tables: dict[str, dict] = {}
        self.pre: dict[str, str] = {}
        self._table: dict | None = None
        self._row: list | None = None
        self._row_class = ""
        self._cell: list | None = None
        self._pre: tuple[str, list] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._table = {"id": a.get("id", ""), "head": [], "rows": [], "classes": []}
        elif tag == "tr":
            self._row, self._row_class = [], a.get("class", "")
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "pre":
            self._pre = (a.get("class", ""), [])
        elif tag in ("p", "div", "h3", "h4", "li", "summary", "br", "tr"):
            self.text.append("\n")

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell))
            self._cell = None
            self.text.append(" | ")
        elif tag == "tr" and self._row is not None and self._table is not None:
            if not self._table["head"]:
                self._table["head"] = self._row
            else:
                self._table["rows"].append(self._row)
                self._table["classes"].append(self._row_class)
            self._row = None
        elif tag == "table" and self._table is not None:
            self.tables[self._table["id"]] = self._table
            self._table = None
        elif tag == "pre" and self._pre is not None:
            self.pre[self._pre[0]] = "".join(self._pre[1])
            self._pre = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)
        if self._pre is not None:
            self._pre[1].append(data)


def read_html(html: str) -> _Reader:
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return reader
