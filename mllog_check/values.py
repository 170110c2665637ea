"""Small value types of the check path, written out: not dataclasses or NamedTuples.

Creating a dataclass execs generated code (and the module imports inspect); creating a
typing.NamedTuple checks every annotation. On the pre-commit hook's single-file check
those costs were larger than checking the log (the figures are in
docs/design.md). A ``Value`` subclass names its fields in ``__slots__`` and writes its
``__init__``; this base gives equality, order, hashing, ``repr`` and ``replace`` over them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import Any, Self


class Value:
    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[Any, ...]:
        """What equality, order and hash compare: every field (a subclass may leave one out)."""
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    # Ordered field by field, as a NamedTuple (Problem sorts by its Context).
    def __lt__(self, other: Self) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() < other._values()

    def __le__(self, other: Self) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() <= other._values()

    def __gt__(self, other: Self) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() > other._values()

    def __ge__(self, other: Self) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._values() >= other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def replace(self, **changes: Any) -> Self:
        """A copy with some fields changed (as dataclasses.replace)."""
        unknown = set(changes) - set(self.__slots__)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        new = object.__new__(type(self))
        for name in self.__slots__:
            # object.__setattr__: an immutable subclass (Problem) refuses setattr
            object.__setattr__(new, name, changes[name] if name in changes else getattr(self, name))
        return new
