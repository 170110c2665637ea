"""What the engine keeps of one key's records: a count and the few records rules name.

Every judgement of the engine (docs/rules.md) reads a key's records through these
fields only: how many (``count``: exactly once, at least N, ``{count: KEY}``), the
first (its value and line: order, repeated keys, did-you-mean), the second (where
a repeat is reported), the first whose value differs from the first's (``exactly
once`` with different values), the last and the one before it (the quality target,
``{last: KEY}``). So memory is bounded per key whatever the number of records
(docs/design.md, memory), where a list of records grew with the log.
"""

from __future__ import annotations

from ..records import Record


class Occurrences:
    """One key's records as the rules see them; ``add`` each record in log order.

    ``differs`` is tracked only when asked (``track``): comparing every value with
    the first costs time, and only keys required exactly once (and header keys) need it.
    """

    __slots__ = ("count", "differs", "first", "last", "previous", "second", "track")

    def __init__(self, rec: Record, track: bool = False) -> None:
        self.count = 1
        self.first = rec
        self.second: Record | None = None
        self.differs: Record | None = None  # the first record whose value is not first's
        self.previous: Record | None = None  # the record before ``last``
        self.last = rec
        self.track = track

    def add(self, rec: Record) -> None:
        self.count += 1
        self.previous = self.last
        self.last = rec
        if self.second is None:
            self.second = rec
        if self.track and self.differs is None and rec.value != self.first.value:
            self.differs = rec

    def copy(self) -> Occurrences:
        twin = Occurrences(self.first, self.track)
        twin.count, twin.second, twin.differs = self.count, self.second, self.differs
        twin.previous, twin.last = self.previous, self.last
        return twin

    def before(self, rec: Record) -> Record | None:
        """The latest record other than ``rec`` itself when ``rec`` is the last one (an
        expression reading the key of the record it checks sees the records before it)."""
        if self.last is rec:
            return self.previous
        return self.last

    def __repr__(self) -> str:
        return f"Occurrences(count={self.count}, first={self.first!r}, last={self.last!r})"
