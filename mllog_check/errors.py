"""The one exception root of the library (as lark has one): ``MllogCheckError``.

Every exception mllog-check raises on purpose derives from it, so that a caller
catches one class; each keeps the built-in base it had (``ValueError`` for a bad
name or value), so existing ``except ValueError`` code still works. Bad *input*
(a broken log line, an unreadable file) is never an exception: it is a ``Problem``.
"""

from __future__ import annotations


class MllogCheckError(Exception):
    """Root of every exception mllog-check raises on purpose."""
