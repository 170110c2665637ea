"""Trends across rounds: the best result per benchmark per round (docs/scores.md,
"Trends").

A benchmark renamed between rounds keeps one line: its name is the one later rounds
give it (``rounds.current_benchmark_name``, from the registry's ``names``: v2.0-v4.1
``ssd`` is ``retinanet``, v4.0-v4.1 ``gnn`` is ``rgat``). A result counts when its
score is valid and, in the closed division, its RCP check did not fail. A published
result faster than the counted best that does not count is shown with the reason
(``excluded``), and the next round's speed-up is taken over the fastest result shown: a
round's record is what was published. A best whose runs were published in an earlier
round (the same run windows) names it (``reused_from``). Open-division speed-ups compare
unrelated systems (each submitter changes the model), so they are left out unless the
two bests are the same system or they are asked for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    results: int  # results that count, of this benchmark, division and scale in the round
    speedup: float | None  # the previous round's fastest shown / these (None: first round)
    excluded: str = ""  # why this published result does not count ("" when it counts)
    reused_from: str = ""  # round/org/system whose runs (run windows) these are
    # Across rounds (results/columns.py): the round's publication date, the model the
    # folder held in that round, the accelerator's short model and generation, and
    # whether a run of it is dated before the previous round's results.
    published: str | None = None
    benchmark_model: str | None = None
    accelerator_short: str | None = None
    accelerator_generation: str | None = None
    republished: bool = False


@dataclass
class TrendReport:
    rows: list[TrendRow] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    scores: int = 0  # scores read before choosing (valid or not)
    valid: int = 0  # of them valid, before the filters
    # What was not read: paths missing, links not followed, logs not regular (MLS010)
    inputs: list[Problem] = field(default_factory=list)

    @property
    def rounds(self) -> list[str]:
        return sorted({r.round for r in self.rows}, key=_round_order)


def counts(score: Any) -> bool:
    """A valid score, not failed by the RCP check (official results only)."""
    if not score.valid or score.minutes is None:
        return False
    return score.division != "closed" or score.rcp_verdict in (None, "Pass")


def excluded_reason(score: Any) -> str:
    """Why a valid published score does not count ("" when it counts)."""
    if counts(score) or not score.valid or score.minutes is None:
        return ""
    text = getattr(score, "rcp_message", "")
    message = f": {text}" if text else ""
    return f"RCP {score.rcp_verdict or 'not checked'}{message}"


_Key = tuple[str, str, str, str]  # benchmark (current name), division, scale, round


def best_per_round(
    scores: Sequence[Any],
    accelerators: int | None = None,
    runs: Sequence[Any] = (),
    open_speedups: bool = False,
) -> list[TrendRow]:
    """The trend rows of scores (``Score`` values): scale "all", and the fixed scale
    ``accelerators`` when given; per line and round the best result that counts, after
    the faster published results that do not (``excluded``). ``runs`` (their ``Run``
    values) name a best re-published from an earlier round; ``open_speedups`` gives the
    open division's speed-ups between different systems."""
    groups = _groups(scores, accelerators)
    reuse = _Reuse(scores, runs)
    rows: list[TrendRow] = []
    previous: dict[tuple[str, str, str], Any] = {}  # line -> fastest shown of last round
    ordered = sorted(groups, key=lambda k: (k[0], k[1], _scale_order(k[2]), _round_order(k[3])))
    for key in ordered:
        members = sorted(groups[key], key=lambda s: (s.minutes, s.org, s.system))
        counted = [s for s in members if counts(s)]
        best = counted[0] if counted else None
        if best is None:  # nothing counts: the fastest published result, and why
            shown = members[:1]
        else:
            shown = [s for s in members if not counts(s) and s.minutes < best.minutes]
            shown.append(best)
        line = key[:3]
        before = previous.get(line)
        for s in shown:
            speedup = _speedup(before, s, key[1], open_speedups)
            rows.append(_row(key, s, len(counted), speedup, reuse.source(s)))
        previous[line] = shown[0]
    return rows


def _groups(scores: Sequence[Any], accelerators: int | None) -> dict[_Key, list[Any]]:
    """Every valid published score by line and round (counting or not)."""
    from ..rounds import RoundError, current_benchmark_name, parse_round

    groups: dict[_Key, list[Any]] = {}
    for s in scores:
        if not s.valid or s.minutes is None:
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
    return groups


def _speedup(before: Any, best: Any, division: str, open_speedups: bool) -> float | None:
    if before is None or not best.minutes:
        return None
    same_system = (before.org, before.system_name) == (best.org, best.system_name)
    if division == "open" and not (open_speedups or same_system):
        return None  # open results of different systems change the model, not the speed
    return float(before.minutes) / float(best.minutes)


def _row(key: _Key, best: Any, counted: int, speedup: float | None, reused: str) -> TrendRow:
    from .columns import hardware_columns, round_columns

    name, division, scale, label = key
    model = getattr(best, "accelerator_model", None)
    system_name, host = getattr(best, "system_name", None), getattr(best, "host", None)
    return TrendRow(
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
        results=counted,
        speedup=speedup,
        excluded=excluded_reason(best),
        reused_from=reused,
        published=round_columns(best.ruleset, best.benchmark)["published"],
        benchmark_model=round_columns(best.ruleset, best.benchmark)["benchmark_model"],
        **hardware_columns(model, system_name, host),
        republished=bool(getattr(best, "republished", False)),
    )


class _Reuse:
    """Which earlier round's result holds the same runs (run_start/run_stop times) as a
    score: the audit's shared-run-window finding (docs/audit.md), for trends."""

    def __init__(self, scores: Sequence[Any], runs: Sequence[Any]) -> None:
        import os

        self._windows: dict[str, set[tuple[float, float]]] = {}
        for run in runs:  # a run's folder is its score's (results/tree.py)
            if run.start_ms is None or run.stop_ms is None:
                continue
            folder = os.path.dirname(run.path)
            self._windows.setdefault(folder, set()).add((run.start_ms, run.stop_ms))
        self._scores = list(scores)

    def _of(self, score: Any) -> set[tuple[float, float]]:
        return self._windows.get(getattr(score, "folder", ""), set())

    def source(self, score: Any) -> str:
        from ..rounds import RoundError, parse_round

        mine = self._of(score)
        if not mine:
            return ""
        found = []
        for other in self._scores:
            if other.ruleset == score.ruleset or not mine & self._of(other):
                continue
            try:
                label = parse_round(other.ruleset).folder
            except RoundError:
                continue
            if _round_order(label) < _round_order(parse_round(score.ruleset).folder):
                found.append((_round_order(label), label, other.org, other.system))
        return "/".join(min(found)[1:]) if found else ""


def compute_trends(
    paths: list[str],
    result_filter: ResultFilter | None = None,
    accelerators: int | None = None,
    ruleset: str = "auto",
    setting: Any = None,
    open_speedups: bool = False,
) -> TrendReport:
    """Score every result below ``paths`` (round folders, usually several) and keep the
    best per benchmark, division, round (and scale)."""
    from .scores import compute_scores

    scored = compute_scores(paths, ruleset=ruleset, setting=setting)
    chosen = scored.scores if result_filter is None else result_filter.apply(scored.scores)
    rows = best_per_round(chosen, accelerators, scored.runs, open_speedups)
    from ..syntax_codes import INPUT_ERROR

    inputs = [p for p in scored.problems if p.rule == INPUT_ERROR.code] + scored.unread
    valid = sum(1 for s in scored.scores if s.valid and s.minutes is not None)
    return TrendReport(rows, scored.problems, len(scored.scores), valid, sorted(set(inputs)))


def trends_from_rows(
    scores: Sequence[Mapping[str, Any]],
    runs: Sequence[Mapping[str, Any]],
    result_filter: ResultFilter | None = None,
    accelerators: int | None = None,
    open_speedups: bool = False,
) -> TrendReport:
    """``compute_trends`` of rows an audit wrote (its scores table's rows, its runs'
    ``path``, ``run_start_ms`` and ``run_stop_ms``; ``trends --from-audit``), checked
    before (``html_report.record``). An org named with its round folder
    (``v1.0/Google``, rounds audited together) is named as ``score`` names it."""
    from types import SimpleNamespace

    chosen_all = [SimpleNamespace(**{**row, "org": _org(row["org"])}) for row in scores]
    chosen = chosen_all if result_filter is None else result_filter.apply(chosen_all)
    windows = [
        SimpleNamespace(path=r["path"], start_ms=r["run_start_ms"], stop_ms=r["run_stop_ms"])
        for r in runs
    ]
    rows = best_per_round(chosen, accelerators, windows, open_speedups)
    valid = sum(1 for s in chosen_all if s.valid and s.minutes is not None)
    return TrendReport(rows, [], len(chosen_all), valid)


def _org(label: str) -> str:
    """An org folder's name: the last part of an audit's org label (``v1.0/Google``)."""
    return label.rsplit("/", 1)[-1]


def trend_columns() -> list[str]:
    import dataclasses

    return [f.name for f in dataclasses.fields(TrendRow)]


def trend_rows(report: TrendReport) -> list[dict[str, object]]:
    """The rows as their fields by name (``trend_columns``)."""
    import dataclasses

    return [dataclasses.asdict(r) for r in report.rows]


def _round_order(label: str) -> int:
    """A round's place in the round registry (oldest first, Training then MLPerf HPC),
    never the order of its name: ``hpc-v3.0`` comes after ``hpc-v2.0``. A label no round
    of the registry has comes last."""
    from ..rounds import RoundError, all_rounds, parse_round

    versions = [r.version for r in all_rounds()]
    try:
        return versions.index(parse_round(label).version)
    except (RoundError, ValueError):
        return len(versions)


def _scale_order(scale: str) -> tuple[int, int]:
    return (0, 0) if scale == ALL_SCALES else (1, int(scale))
