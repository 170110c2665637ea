"""The result filters every comparing command offers (``score``, ``report``, ``audit``,
``cost``, ``trends``), stated once: ``@filter_options`` adds the options, and the
command gets one ``results.filters.ResultFilter`` as its ``result_filter`` argument."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

from ..results.filters import ResultFilter
from ..results.hardware import AVAILABILITY

_OPTIONS = (
    click.option(
        "--benchmark",
        "f_benchmarks",
        multiple=True,
        help="Only this benchmark (repeatable; any of its names: ssd = retinanet, gnn = rgat).",
    ),
    click.option(
        "--division",
        "f_divisions",
        multiple=True,
        type=click.Choice(["closed", "open"], case_sensitive=False),
        help="Only this division (repeatable).",
    ),
    click.option(
        "--availability",
        "f_availability",
        multiple=True,
        type=click.Choice(AVAILABILITY, case_sensitive=False),
        help="Only this availability (repeatable): on-premise, cloud, preview, RDI.",
    ),
    click.option(
        "--accelerator",
        "f_accelerators",
        multiple=True,
        metavar="GLOB",
        help="Only accelerators whose model matches (repeatable, case-insensitive glob on "
        "the description's name or its short form: B200, 'MI3*', 'TPU*').",
    ),
    click.option(
        "--min-accelerators",
        "f_min",
        type=click.IntRange(min=1),
        help="Only systems with at least this many accelerators.",
    ),
    click.option(
        "--max-accelerators",
        "f_max",
        type=click.IntRange(min=1),
        help="Only systems with at most this many accelerators.",
    ),
)


def filter_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the filter options; the command receives ``result_filter`` instead."""

    @functools.wraps(command)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        # Defaults too: a test may call the callback without the filter's arguments.
        low, high = kwargs.pop("f_min", None), kwargs.pop("f_max", None)
        if low is not None and high is not None and low > high:
            raise click.UsageError(f"--min-accelerators {low} is above --max-accelerators {high}")
        kwargs["result_filter"] = ResultFilter(
            benchmarks=tuple(kwargs.pop("f_benchmarks", ())),
            divisions=tuple(d.lower() for d in kwargs.pop("f_divisions", ())),
            availability=tuple(a.lower() for a in kwargs.pop("f_availability", ())),
            accelerators=tuple(kwargs.pop("f_accelerators", ())),
            min_accelerators=low,
            max_accelerators=high,
        )
        return command(*args, **kwargs)

    for option in reversed(_OPTIONS):
        wrapped = option(wrapped)
    return wrapped
