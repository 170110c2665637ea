"""The one exception root of the library (as lark has one): ``MllogCheckError``.

Every exception mllog-check raises on purpose derives from it, so that a caller
catches one class; each keeps the built-in base it had (``ValueError`` for a bad
name or value), so existing ``except ValueError`` code still works. Bad *input*
(a broken log line, an unreadable file) is never an exception: it is a ``Problem``.
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


def cut_message(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` when at most ``limit`` characters, else its start and end around a note."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}…[{len(text) - 2 * half:,} characters cut]…{text[-half:]}"
