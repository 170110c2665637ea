"""One row per result, ranked by what its anomalies do (the audit's results table), and
the roll-up of power-log anomalies to one per cause per result (docs/audit.md)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, TypedDict, cast, get_args

from ..problems import Problem
from ..results.scores import ScoreRow
from ..results.tree import SCALINGS
from .impact import IMPACTS, RANK, worst

# What names a result: a row's values of these columns, in order. The org carries its
# round folder when rounds are audited together (v5.1/Oracle). Other trees (HPC) may
# name results by more columns: they are added here and to ResultRow.
KEY_COLUMNS = ("org", "system", "benchmark")
# A result's anomaly count of each severity, in IMPACTS order (a test holds them to it).
CountColumn = Literal["anomalies_score", "anomalies_rules", "anomalies_info"]
COUNT_COLUMNS: dict[str, CountColumn] = dict(zip(IMPACTS, get_args(CountColumn), strict=True))


class ResultRow(TypedDict):
    """One row of the results table (results.csv/.json/.parquet, the report's ranked
    results): ``RESULT_COLUMNS`` are its keys, in order."""

    rank: int
    org: str
    system: str
    benchmark: str
    division: str | None
    minutes: float | None
    copies: int  # runs of the result that copy another (submission/copies.py)
    minutes_without_copies: float | None
    valid: bool | None  # None: a result only anomalies name (no score)
    worst: str  # the worst severity of its anomalies, '' without any
    worst_kind: str  # the most frequent anomaly kind of that severity
    anomalies_score: int
    anomalies_rules: int
    anomalies_info: int
    anomalies: int
    # Across rounds (results/columns.py): the score's, else the org's round.
    round: str | None
    published: str | None
    benchmark_model: str | None
    accelerator_short: str | None
    accelerator_generation: str | None
    republished: bool | None  # None: no score


RESULT_COLUMNS: tuple[str, ...] = tuple(ResultRow.__annotations__)
Key = tuple[str, ...]


class AnomalyRow(TypedDict):
    """One row of the audit's anomaly table (anomalies.csv/.json) and of the report's
    anomalies: ``Problem.row(ANOMALY_COLUMNS)``; ``kind`` is the rule's name, ``code``
    its code, ``impact`` its severity (score, rules, info)."""

    org: str
    system: str
    benchmark: str
    path: str
    line: int
    kind: str
    message: str
    code: str
    impact: str


ANOMALY_COLUMNS: tuple[str, ...] = tuple(AnomalyRow.__annotations__)


def anomaly_row(anomaly: Problem) -> AnomalyRow:
    """An anomaly's row, with ``ANOMALY_COLUMNS`` in order."""
    return cast(AnomalyRow, anomaly.row(ANOMALY_COLUMNS))


def key_of(row: Mapping[str, Any]) -> Key:
    """The result a row (runs, scores, results tables) belongs to."""
    return tuple(row[column] for column in KEY_COLUMNS)


class _Facts:
    """What the table reads of an anomaly: a Problem, or its row (ANOMALY_COLUMNS)."""

    __slots__ = ("org", "system", "benchmark", "path", "kind", "impact")

    def __init__(self, anomaly: Problem | AnomalyRow) -> None:
        if isinstance(anomaly, Problem):
            where = anomaly.context
            self.org, self.system, self.benchmark = where.org, where.system, where.benchmark
            self.path, self.kind, self.impact = anomaly.path, anomaly.name, anomaly.impact
        else:
            self.org, self.system = anomaly["org"], anomaly["system"]
            self.benchmark, self.path = anomaly["benchmark"], anomaly["path"]
            self.kind, self.impact = anomaly["kind"], anomaly.get("impact") or ""


def result_of(anomaly: Problem | AnomalyRow | _Facts) -> Key | None:
    """The result (org, system, benchmark) an anomaly belongs to, or None (an org's or a
    system's own files). A result folder's path names its benchmark."""
    where = anomaly if isinstance(anomaly, _Facts) else _Facts(anomaly)
    if where.benchmark:
        return (where.org, where.system, where.benchmark)
    parts = where.path.split("/")
    if "results" in parts:
        tail = parts[parts.index("results") + 1 :]
        if len(tail) >= 3 and tail[1] in SCALINGS:  # MLPerf HPC: <system>/<strong|weak>/
            tail = [tail[0], *tail[2:]]
        if len(tail) >= 2 and where.system == tail[0]:
            return (where.org, tail[0], tail[1])
    return None


def results_table(
    scores: Sequence[ScoreRow], anomalies: Sequence[Problem | AnomalyRow]
) -> list[ResultRow]:
    """A row per result (scored, or named by an anomaly), ranked: worst severity first,
    then the number of anomalies of each severity; rank 1 is the result to read first.
    Anomalies are Problems or their rows (the report's)."""
    rows: dict[Key, ResultRow] = {}
    for score in scores:
        named: Key = key_of(score)
        rows[named] = _row(named, score)
    found: dict[Key, list[_Facts]] = {}
    for anomaly in anomalies:
        facts = _Facts(anomaly)
        key = result_of(facts)
        if key is not None:
            found.setdefault(key, []).append(facts)
            rows.setdefault(key, _row(key, None))
    for key, mine in found.items():
        counts = Counter(a.impact for a in mine)
        row = rows[key]
        for name, column in COUNT_COLUMNS.items():
            row[column] = counts.get(name, 0)
        row["anomalies"] = len(mine)
        row["worst"] = worst([a.impact for a in mine if a.impact])
        kinds = Counter(a.kind for a in mine if a.impact == row["worst"])
        row["worst_kind"] = min(kinds.items(), key=lambda kv: (-kv[1], kv[0]))[0] if kinds else ""
    ordered = sorted(rows.values(), key=_order)
    for i, row in enumerate(ordered, 1):
        row["rank"] = i
    return ordered


def _row(key: Key, score: ScoreRow | None) -> ResultRow:
    """A result's row before its anomalies are counted and it is ranked; ``score``: None
    for a result only anomalies name."""
    org, system, benchmark = key  # KEY_COLUMNS
    given: Mapping[str, Any] = score or {}
    return {
        "rank": 0,  # set once the table is ordered (results_table)
        "org": org,
        "system": system,
        "benchmark": benchmark,
        "division": given.get("division"),
        "minutes": given.get("minutes"),
        "copies": given.get("copies") or 0,  # runs of the result that copy another
        "minutes_without_copies": given.get("minutes_without_copies"),
        "valid": given.get("valid"),
        "worst": "",
        "worst_kind": "",
        "anomalies_score": 0,
        "anomalies_rules": 0,
        "anomalies_info": 0,
        "anomalies": 0,
        "round": given.get("round"),
        "published": given.get("published"),
        "benchmark_model": given.get("benchmark_model"),
        "accelerator_short": given.get("accelerator_short"),
        "accelerator_generation": given.get("accelerator_generation"),
        "republished": given.get("republished"),
    }


def _order(row: ResultRow) -> tuple[Any, ...]:
    """Worst severity first; within a severity, results first published here before
    re-published ones (their findings were the earlier round's: docs/scores.md), and
    scored results before those with no score; then the counts."""
    severity = RANK.get(row["worst"], len(IMPACTS))
    counts = tuple(-row[column] for column in COUNT_COLUMNS.values())
    again = row["republished"] is True
    return (severity, again, row["minutes"] is None, *counts, *key_of(row))


# A power log: <result folder>/power/result_N/<node or switch>.txt (docs/power.md).
_POWER = re.compile(r"/power/[^/]+/[^/]+$")
_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def roll_up_power(anomalies: Iterable[Problem]) -> list[Problem]:
    """Anomalies of power-log files: one per cause (kind and message, numbers aside) per
    result, at its first file, saying how many files show it; the others unchanged."""
    out: list[Problem] = []
    groups: dict[tuple[Any, ...], list[Problem]] = {}
    for anomaly in anomalies:
        if _POWER.search(anomaly.path):
            cause = (result_of(anomaly), anomaly.name, _NUMBER.sub("N", anomaly.message))
            groups.setdefault(cause, []).append(anomaly)
        else:
            out.append(anomaly)
    for group in groups.values():
        group.sort()
        head = group[0]
        if len(group) > 1:
            more = f" (the same in {len(group)} power log files of this result)"
            head = head.replace(message=head.message + more)
        out.append(head)
    return out
