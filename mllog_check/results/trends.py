"""Trends across rounds: the best result per benchmark per round (docs/scores.md,
"Trends").

A benchmark renamed between rounds keeps one line: its name is the one later rounds
give it (``rounds.current_benchmark_name``, from the registry's ``names``: v2.0-v4.1
``ssd`` is ``retinanet``, v4.0-v4.1 ``gnn`` is ``rgat``). A result counts when its
score is valid and, in the closed division, its RCP check did not fail.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..problems import Problem
from .filters import ResultFilter

ALL_SCALES = "all"


@dataclass(frozen=True, slots=True)
class TrendRow:
    """The fastest result of one benchmark, division and scale in one round."""

    benchmark: str  # the current name (retinanet, rgat)
    division: str
    scale: str  # "all", or the accelerator count asked for ("8")
    round: str  # v4.0
    minutes: float
    org: str
    system: str
    system_name: str | None
    accelerator_model: str | None
    accelerators: int | None
    published_as: str  # the benchmark folder's name in that round (ssd, gnn)
    results: int  # results of this benchmark, division and scale in the round
    speedup: float | None  # the previous round's best minutes / these (None: first round)


@dataclass
class TrendReport:
    rows: list[TrendRow] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    scores: int = 0  # scores read before choosing (valid or not)

    @property
    def rounds(self) -> list[str]:
        return sorted({r.round for r in self.rows}, key=_round_order)


def counts(score: Any) -> bool:
    """A valid score, not failed by the RCP check (official results only)."""
    if not score.valid or score.minutes is None:
        return False
    return score.division != "closed" or score.rcp_verdict in (None, "Pass")


def best_per_round(scores: Sequence[Any], accelerators: int | None = None) -> list[TrendRow]:
    """The trend rows of scores (``Score`` values): scale "all", and the fixed scale
    ``accelerators`` when given."""
    from ..rounds import RoundError, current_benchmark_name, parse_round

    groups: dict[tuple[str, str, str, str], list[Any]] = {}
    for s in scores:
        if not counts(s):
            continue
        try:
            label = parse_round(s.ruleset).folder
        except RoundError:
            continue
        name = current_benchmark_name(s.ruleset, s.benchmark)
        division = s.division or ""
        groups.setdefault((name, division, ALL_SCALES, label), []).append(s)
        if accelerators is not None and s.accelerators == accelerators:
            groups.setdefault((name, division, str(accelerators), label), []).append(s)
    rows = []
    previous: dict[tuple[str, str, str], float] = {}
    ordered = sorted(groups, key=lambda k: (k[0], k[1], _scale_order(k[2]), _round_order(k[3])))
    for key in ordered:
        name, division, scale, label = key
        members = groups[key]
        best = min(members, key=lambda s: (s.minutes, s.org, s.system))
        line = (name, division, scale)
        before = previous.get(line)
        rows.append(
            TrendRow(
                benchmark=name,
                division=division,
                scale=scale,
                round=label,
                minutes=best.minutes,
                org=best.org,
                system=best.system,
                system_name=best.system_name,
                accelerator_model=best.accelerator_model,
                accelerators=best.accelerators,
                published_as=best.benchmark,
                results=len(members),
                speedup=None if before is None else before / best.minutes,
            )
        )
        previous[line] = best.minutes
    return rows


def compute_trends(
    paths: list[str],
    result_filter: ResultFilter | None = None,
    accelerators: int | None = None,
    ruleset: str = "auto",
    setting: Any = None,
) -> TrendReport:
    """Score every result below ``paths`` (round folders, usually several) and keep the
    best per benchmark, division, round (and scale)."""
    from .scores import compute_scores

    scored = compute_scores(paths, ruleset=ruleset, setting=setting)
    chosen = scored.scores if result_filter is None else result_filter.apply(scored.scores)
    rows = best_per_round(chosen, accelerators)
    return TrendReport(rows=rows, problems=scored.problems, scores=len(scored.scores))


def trend_columns() -> list[str]:
    import dataclasses

    return [f.name for f in dataclasses.fields(TrendRow)]


def trend_rows(report: TrendReport) -> list[dict[str, Any]]:
    import dataclasses

    return [dataclasses.asdict(r) for r in report.rows]


def _round_order(label: str) -> tuple[int, ...]:
    digits = label.lstrip("v").split(".")
    try:
        return tuple(int(d) for d in digits)
    except ValueError:
        return (999,)


def _scale_order(scale: str) -> tuple[int, int]:
    return (0, 0) if scale == ALL_SCALES else (1, int(scale))
