"""Worker processes where the work allows: an org's result sets (``package``) and a
record's orgs (``audit``) are independent, so each can be checked in its own process.

A pool costs a fork per worker and the pickling of each answer (a few milliseconds);
it pays only for tasks of about a megabyte of logs or more (docs/benchmarks.md,
"Both cores"). Largest tasks go first so that the last to finish is a small one; the
answers come back in the tasks' order, whatever the workers: the same result as one
process.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Generic, TypeVar

from ..errors import MllogCheckError

T = TypeVar("T")

# The logs' bytes below which another worker process costs more than it saves.
MIN_BYTES_PER_WORKER = 1 << 20


def workers_for(jobs: int | None, weights: Sequence[int], min_bytes: int | None = None) -> int:
    """How many worker processes pay off for tasks of these sizes (bytes): at most
    ``jobs`` (None: the CPUs), one per task, one per ``min_bytes`` of the whole."""
    least = MIN_BYTES_PER_WORKER if min_bytes is None else min_bytes
    wanted = jobs if jobs is not None else os.cpu_count() or 1
    by_size = sum(weights) // least if least > 0 else len(weights)
    return max(1, min(wanted, len(weights), by_size))


def ordered_map(
    function: Callable[..., T],
    tasks: Sequence[tuple[Any, ...]],
    weights: Sequence[int],
    workers: int,
) -> list[T]:
    """``[function(*task) for task in tasks]``, in ``workers`` processes when more than
    one, the heaviest task submitted first; an exception of a task is raised here."""
    if workers <= 1 or len(tasks) <= 1:
        return [function(*task) for task in tasks]
    order = sorted(range(len(tasks)), key=lambda i: -weights[i])
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {i: pool.submit(function, *tasks[i]) for i in order}
        return [futures[i].result() for i in range(len(tasks))]


class Aside(Generic[T]):
    """``function(*args)`` run aside in a thread while the caller goes on, or at once
    when ``inline``; ``result()`` gives its value or raises its exception, either way.

    A thread, not a process: the work shares the caller's memory, and the two overlap
    where either leaves the interpreter (zlib, file writes, pyarrow). A forked writer
    was under a second faster on a record-sized re-audit but copied every page it
    touched: 60 MB more, the process tree over its 300 MB bound (docs/benchmarks.md,
    "A record-sized re-audit"). The function must only read what the caller shares.
    """

    def __init__(self, function: Callable[..., T], args: tuple[Any, ...], inline: bool) -> None:
        self._value: Any = None
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        if inline:
            self._run(function, args)
            return
        self._thread = threading.Thread(target=self._run, args=(function, args), daemon=True)
        self._thread.start()

    def _run(self, function: Callable[..., T], args: tuple[Any, ...]) -> None:
        try:
            self._value = function(*args)
        except Exception as err:  # raised by result(), in the caller's thread
            self._error = err

    def result(self) -> T:
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._error is not None:
            raise self._error
        return self._value


def tree_bytes(folder: str | os.PathLike[str]) -> int:
    """The bytes of the files below ``folder`` (logs, power logs; links not followed): a
    task's work, for ordering and sizing the pool."""
    total, stack = 0, [os.fspath(folder)]
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        total += entry.stat(follow_symlinks=False).st_size
        except OSError:
            continue
    return total


def prewarm(ruleset: str, audit: bool = True) -> None:
    """Load the round's rules and scoring data once before forking: workers inherit them;
    with ``audit``, every round's rule keys too (the audit's anomaly detectors read them,
    the package's checks do not: loading them costs a package run a tenth of a second).

    Without this every worker compiles the rule and scoring files itself; with fork
    (Linux) the parent's copy is shared. A performance step only: a round whose data
    fails to load is reported by the workers.
    """
    from ..results.scoring import scoring_for
    from ..rules import load_ruleset
    from .anomalies import hyperparameter_keys

    with contextlib.suppress(MllogCheckError):
        load_ruleset(ruleset)
    with contextlib.suppress(MllogCheckError):
        scoring_for(ruleset)
    if audit:
        with contextlib.suppress(MllogCheckError):
            hyperparameter_keys()  # every round's rule keys (lines-after-run-stop)
