"""The one exception root of the library (as lark has one): ``MllogCheckError``.

Every exception mllog-check raises on purpose derives from it, so that a caller
catches one class; each keeps the built-in base it had (``ValueError`` for a bad
name or value), so existing ``except ValueError`` code still works. Bad *input*
(a broken log line, an unreadable file) is never an exception: it is a ``Problem``.

Three branches say whose the fault is, as lark's ``ParseError``, ``GrammarError`` and
``ConfigurationError`` do (``tests/test_errors.py`` holds every class under one):

- ``ReadError``: something handed to the tool cannot be read as what it should be (a
  path, a folder that is no submission, a user's YAML, price catalog or borrowing file);
- ``DataError``: round data is broken (the registry, a rule, scoring or other data file);
- ``UsageError``: a request that cannot be honoured (an unknown round, a round whose
  data this build lacks, a missing optional dependency, an output that cannot be
  written safely, a comparison that must not be made).
"""

from __future__ import annotations

# A message longer than this is cut (docs/security.md): messages quote input (a price
# catalog's value, a rule file's), and one quoted a 328 MB string whole.
MESSAGE_LIMIT = 4_000


class MllogCheckError(Exception):
    """Root of every exception mllog-check raises on purpose; its message is bounded."""

    def __init__(self, *args: object) -> None:
        if args and isinstance(args[0], str) and len(args[0]) > MESSAGE_LIMIT:
            args = (cut_message(args[0]), *args[1:])
        super().__init__(*args)


class ReadError(MllogCheckError):
    """Something handed to the tool cannot be read as what it should be."""


class DataError(MllogCheckError):
    """Round data (shipped or a file of one's own) breaks its format or rules."""


class UsageError(MllogCheckError):
    """A request that cannot be honoured: a flag, a round, an output, an extra."""


def cut_message(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` when at most ``limit`` characters, else its start and end around a note,
    the whole at most ``limit`` long: cutting again changes nothing, so a problem read
    back (a worker's answer, the result cache) keeps the count its note states."""
    if len(text) <= limit:
        return text
    widest = len(f"…[{len(text):,} characters cut]…")  # the note, whatever the count
    keep = max(0, limit - widest)
    head = (keep + 1) // 2
    tail = text[len(text) - (keep - head) :]
    return f"{text[:head]}…[{len(text) - keep:,} characters cut]…{tail}"
