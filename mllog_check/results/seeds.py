"""Seed checks (closed division): runs of one benchmark must use different seeds."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..problems import Problem
from . import codes
from .runs import Run


def _key(value: Any) -> str:
    return repr(value)


def check_seeds(runs: list[Run], folder: str, checked: bool = True) -> list[Problem]:
    """Same seed in two runs: an error where the round's official tools check seeds
    (``checked``: the registry's seeds_checked, from v1.0), else MLR023, a warning; several
    seeds in a run, or some runs without: warnings. Null seeds are no seeds (Run.seeds)."""
    reused = codes.SEED_REUSED if checked else codes.SEED_REUSED_UNCHECKED
    problems: list[Problem] = []
    owners: dict[str, list[Run]] = defaultdict(list)
    for run in runs:
        distinct = {_key(s) for s in run.seeds}
        if len(distinct) > 1:
            shown = ", ".join(sorted(distinct))
            message = f"{len(distinct)} different seeds in one run: {shown}"
            problems.append(codes.SEED_SEVERAL.problem(run.path, message))
        for value in distinct:
            owners[value].append(run)
    for value, users in sorted(owners.items()):
        if len(users) < 2:
            continue
        for run in users:
            others = ", ".join(_name(u.path) for u in users if u is not run)
            line = next((s.line for s in run.seed_records if _key(s.value) == value), 0)
            message = f"seed {value} also used by {others}"
            problems.append(reused.problem(run.path, message, line))
    without = [r for r in runs if not r.seeds]
    if without and len(without) < len(runs):
        for run in without:
            message = f"no seed logged, while {len(runs) - len(without)} other run(s) log one"
            problems.append(codes.SEED_MISSING.problem(run.path, message))
    return problems


def _name(path: str) -> str:
    return path.rsplit("/", 1)[-1]
