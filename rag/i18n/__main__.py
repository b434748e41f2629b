"""`python -m rag.i18n update` refreshes the catalogues from the code; `check` lists what is missing."""
from __future__ import annotations

import sys
from pathlib import Path

from rag.i18n.catalog import fill, problems, todo, update


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    if command == "update":
        untranslated, _taken = update()
        for lang, count in sorted(untranslated.items()):
            print(f"{lang}: {count} string(s) to translate")
        return 0
    if command == "check":
        found = problems()
        for line in found:
            print(line)
        print(f"{len(found)} problem(s)")
        return 1 if found else 0
    if command == "todo":  # the untranslated Chinese messages, as JSON to fill in and pass to `fill`
        import json

        print(json.dumps({message: "" for message in todo(argv[1] if len(argv) > 1 else "zh")}, ensure_ascii=False,
                         indent=1))
        return 0
    if command == "fill":
        print(f"filled {fill([Path(a) for a in argv[1:]])}")
        return 0
    print("usage: python -m rag.i18n [update | check | todo | fill FILE.json|FILE.po ...]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
