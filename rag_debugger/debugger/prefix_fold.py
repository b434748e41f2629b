"""A left fold over a run's step records, remembered so that the fold after n+1 records costs one
step from the fold after n.

Why: what the graph highlights after a step (the nodes run so far, the most lanes seen, the `Send`
edges seen) is a fold over all the records before it. Folding from the first record at every Step,
every time-travel click and every position of an HTML file made a 300-step run quadratic. Records are
only ever appended, so the fold of a prefix stays true; a cached prefix is used only while the same
record objects are still in place (a replaced or cut recording is folded afresh)."""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Generic, Iterator, NamedTuple, Sequence, TypeVar, cast

S = TypeVar("S")


class _Entry(NamedTuple):
    first: object
    last: object
    n: int
    state: object


class PrefixFold(Generic[S]):
    """`fold(records, n)`: `add` applied to `start()` and the first `n` records, in order. States must
    be immutable (each `add` returns a new one): a cached state is shared."""

    def __init__(self, start: Callable[[], S], add: Callable[[S, Any], S], size: int = 256):
        self._start = start
        self._add = add
        self._size = size
        self._cache: "OrderedDict[int, _Entry]" = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, records: Sequence[object], n: int) -> S:
        if n <= 0 or not records:
            return self._start()
        first = records[0]
        key = id(first)
        entry = self._cache.get(key)  # one dict read: atomic, no lock needed
        if (entry is not None and entry.first is first and 0 < entry.n <= n
                and len(records) >= entry.n and records[entry.n - 1] is entry.last):
            state, i = cast(S, entry.state), entry.n
            if i == n:  # asked again for the same prefix (every redraw of the same position)
                return state
        else:
            state, i = self._start(), 0
        add = self._add
        for k in range(i, n):
            state = add(state, records[k])
        with self._lock:  # the entry holds its records: their ids cannot be reused while cached
            self._cache[key] = _Entry(first, records[n - 1], n, state)
            self._cache.move_to_end(key)
            if len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return state

    def along(self, records: Sequence[object]) -> Iterator[S]:
        """The fold after 1, 2, ... len(records) records, in one pass (a run's HTML file asks for every
        one; the cache holds one prefix per run, so asking n by n would fold only from the last asked)."""
        state = self._start()
        add = self._add
        for rec in records:
            state = add(state, rec)
            yield state
