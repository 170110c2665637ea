"""Hyperparameters as a table: one row per result set, a column per key the round's
closed rules constrain (docs/hparams.md).

The keys are those the closed-division sections of the round's rules name for the
benchmark (the same chain of sections ``check`` applies: common → closed → benchmark →
optimizer variant), less the quality metric (a key with a target), the ``submission_*``
keys and two keys that are not hyperparameters; ``global_batch_size`` always. A value is
the first one logged in a run; a result set's row holds its first run's values and names
the keys on which its runs disagree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..parsing import parse_file
from ..problems import Problem
from ..records import ParseResult, Record
from ..rounds import Round, RoundError, Setting, current_benchmark_name
from .tree import ResultSet, discover

if TYPE_CHECKING:
    from ..records import Logged
    from ..rules.engine import FirstValues

    # A row of the table: the id columns, each constrained key's first value (the keys
    # are the round's), disagree and note.
    HparamsRow = dict[str, Logged]

# Always a column: the batch size is what borrowing may change (docs/hparams.md).
BATCH_KEY = "global_batch_size"
# The batch-size group the training rules let a borrower change ("Hyperparameter
# Borrowing", training_rules.adoc in mlcommons/training_policies): local and global batch
# size (gradient accumulation makes the local one) and the batch-norm span.
BATCH_GROUP = frozenset(
    {
        BATCH_KEY,
        "local_batch_size",
        "model_bn_span",
        "train_batch_size",
        "gradient_accumulation_steps",
    }
)
# Keys the closed rules name that are not hyperparameters: a seed must differ between
# runs, and minigo's games per generation is "NOT A HYPERPARAMETER, CANNOT BE 'BORROWED'"
# (the hyperparameter table of training_rules.adoc, mlcommons/training_policies).
NOT_HYPERPARAMETERS = frozenset({"seed", "actual_selfplay_games_per_generation"})
ID_COLUMNS = ("round", "org", "system", "benchmark", "division", "runs", "folder")
ABSENT = object()


@dataclass(frozen=True)
class HparamRow:
    """One result set's hyperparameters (first run's first values)."""

    round: str
    org: str
    system: str
    benchmark: str  # the name later rounds give it (rounds.current_benchmark_name)
    division: str
    runs: int
    folder: str
    keys: tuple[str, ...]  # the keys the round's closed rules constrain, sorted
    values: FirstValues = field(default_factory=dict)  # key -> first value (absent: none)
    disagree: tuple[str, ...] = ()  # keys whose first values differ between runs
    note: str = ""  # why no key is constrained (no rules for the round, not read)

    def cells(self) -> HparamsRow:
        ids = {c: getattr(self, c) for c in ID_COLUMNS}
        return {**ids, **self.values, "disagree": ",".join(self.disagree), "note": self.note}

    def signature(self) -> tuple[Any, ...]:
        """What borrowing must keep: every constrained value but the batch-size group."""
        kept = sorted((k, canonical(v)) for k, v in self.values.items() if k not in BATCH_GROUP)
        return (self.benchmark, tuple(kept))


@dataclass
class HparamReport:
    rows: list[HparamRow] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def columns(self) -> list[str]:
        """The identity columns, then every key some row constrains (sorted), then flags."""
        keys = sorted({k for row in self.rows for k in row.keys})
        return [*ID_COLUMNS, *keys, "disagree", "note"]


def hparam_table(
    paths: Sequence[str], ruleset: str = "auto", setting: Setting | None = None
) -> HparamReport:
    """The hyperparameter rows of every result set below ``paths``, sorted."""
    from .counting import choose_round

    sets, problems = discover(list(paths))
    report = HparamReport(problems=list(problems))
    for rs in sets:
        results = [parse_file(path, root=rs.root or None) for path in rs.files]
        try:
            version = choose_round(rs, results, ruleset, setting).ruleset
        except RoundError as err:
            report.rows.append(_row(rs, "", results, (), note=f"round unknown: {err}"))
            continue
        report.rows.append(_row_for_round(rs, version, results))
    report.rows.sort(key=lambda r: (r.round, r.org, r.system, r.benchmark, r.folder))
    return report


def _row_for_round(rs: ResultSet, version: str, results: list[ParseResult]) -> HparamRow:
    from ..rules.loader import UnknownRuleset, load_ruleset

    try:
        ruleset = load_ruleset(version)
    except UnknownRuleset:  # v0.5, HPC v0.7: no compliance rules in this build
        return _row(rs, version, results, (), note=f"no closed rules for {version}")
    keys: set[str] = {BATCH_KEY}
    for result in results:
        keys |= closed_keys(ruleset, result.records)
    return _row(rs, version, results, tuple(sorted(keys)))


def closed_keys(ruleset: Any, records: Sequence[Record]) -> set[str]:
    """The keys the closed sections of ``ruleset`` constrain for this log's benchmark
    (and optimizer variant), whatever division the log declares."""
    from ..rules.engine import chain_of, first_values, selector_keys

    closed = ruleset.sections.get("closed")
    if closed is None or closed.when is None:
        return set()
    first: FirstValues = {}  # the first values that choose the chain
    first_values(records, selector_keys(ruleset), first)
    first[closed.when[0]] = closed.when[1]
    below = _descendants(ruleset, "closed")
    return {
        key
        for section in chain_of(ruleset, first)
        if section.name in below
        for key, spec in section.keys.items()
        if spec.target is None
        and not key.startswith("submission_")
        and key not in NOT_HYPERPARAMETERS
    }


def _descendants(ruleset: Any, name: str) -> set[str]:
    found, level = {name}, [name]
    while level:
        level = [s.name for parent in level for s in ruleset.children(parent)]
        found.update(level)
    return found


def _row(
    rs: ResultSet,
    version: str,
    results: list[ParseResult],
    keys: tuple[str, ...],
    note: str = "",
) -> HparamRow:
    firsts = [first_logged(r.records, keys) for r in results]
    values = {k: v for k, v in (firsts[0] if firsts else {}).items() if v is not ABSENT}
    disagree = tuple(k for k in keys if len({canonical(f.get(k, ABSENT)) for f in firsts}) > 1)
    return HparamRow(
        round=version,
        org=rs.org,
        system=rs.system,
        benchmark=current_benchmark_name(version, _benchmark(rs, results)),
        division=_division(results),
        runs=len(results),
        folder=str(rs.folder),
        keys=keys,
        values=values,
        disagree=disagree,
        note=note,
    )


def first_logged(records: Iterable[Record], keys: Iterable[str]) -> FirstValues:
    """Each key's first logged value (``ABSENT`` when never logged)."""
    wanted = set(keys)
    found: FirstValues = dict.fromkeys(wanted, ABSENT)
    for rec in records:
        if rec.key in wanted:
            found[rec.key] = rec.value
            wanted.discard(rec.key)
            if not wanted:
                break
    return found


def _first_text(results: list[ParseResult], key: str) -> str:
    for result in results:
        for rec in result.records:
            if rec.key == key and isinstance(rec.value, str):
                return rec.value.strip().lower()
    return ""


def _benchmark(rs: ResultSet, results: list[ParseResult]) -> str:
    return _first_text(results, "submission_benchmark") or rs.benchmark


def _division(results: list[ParseResult]) -> str:
    return _first_text(results, "submission_division")


def canonical(value: Any) -> Any:
    """A value as equality sees it: 1 and 1.0 alike, lists as tuples, dicts sorted;
    ``ABSENT`` stays itself (a key logged in one run only is a disagreement)."""
    if value is ABSENT or value is None:
        return value
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        try:
            return ("number", float(value))
        except OverflowError:  # an integer beyond floats (a hostile log): itself
            return ("number", value)
    if isinstance(value, list | tuple):
        return ("list", tuple(canonical(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((str(k), canonical(v)) for k, v in value.items())))
    return ("text", str(value))


def same_as_groups(rows: Sequence[HparamRow]) -> list[list[HparamRow]]:
    """Closed results whose constrained hyperparameters (less the batch-size group) are
    identical, grouped where a group spans two submitters or more: the candidates a
    reviewer checks a borrowing declaration against. Sorted by benchmark, then size."""
    groups: dict[tuple[Any, ...], list[HparamRow]] = {}
    for row in rows:
        if row.division != "closed" or not row.values:
            continue
        groups.setdefault(row.signature(), []).append(row)
    found = [g for g in groups.values() if len({r.org for r in g}) > 1]
    return sorted(found, key=lambda g: (g[0].benchmark, -len(g), g[0].round, g[0].org))


def result_id(row: HparamRow) -> str:
    """How a borrowing file and messages name a result: round/org/system/benchmark."""
    return f"{row.round}/{row.org}/{row.system}/{row.benchmark}"


def describe(value: Any) -> str:
    return "(not logged)" if value is ABSENT else repr(value)


# How many run names a message lists per value before "and N more".
_NAMES_SHOWN = 4
# How much of a value a message quotes (a hostile log may log a megabyte).
_VALUE_SHOWN = 60


def runs_disagree(
    results: Sequence[ParseResult], version: str | Round, folder: str
) -> list[Problem]:
    """MLR068 when the closed runs of one result log different first values for a key the
    round's closed rules constrain (docs/hparams.md, "Runs that disagree"): one problem,
    at the first run off the majority's value, naming the runs of every value."""
    from ..rules.loader import UnknownRuleset, load_ruleset
    from .codes import HPARAMS_DIFFER

    if len(results) < 2 or _division(list(results)) != "closed":
        return []
    try:
        ruleset = load_ruleset(version)
    except UnknownRuleset:  # v0.5, HPC v0.7: no closed rules to name the keys
        return []
    keys = closed_keys(ruleset, results[0].records) | {BATCH_KEY}
    firsts = [_first_records(r.records, keys) for r in results]
    split = [k for k in sorted(keys) if len({canonical(_value(f.get(k))) for f in firsts}) > 1]
    if not split:
        return []
    parts, where = [], None
    for key in split:
        text, off = _split_text(key, results, firsts)
        parts.append(text)
        where = where or off
    path, line, column = where if where else (folder, 0, 0)
    message = "closed runs disagree: " + "; ".join(parts)
    return [HPARAMS_DIFFER.problem(path, message, line=line, column=column)]


def _first_records(records: Iterable[Record], keys: set[str]) -> dict[str, Record]:
    wanted, found = set(keys), {}
    for rec in records:
        if rec.key in wanted:
            found[rec.key] = rec
            wanted.discard(rec.key)
            if not wanted:
                break
    return found


def _value(rec: Record | None) -> Any:
    return ABSENT if rec is None else rec.value


def _split_text(
    key: str, results: Sequence[ParseResult], firsts: list[dict[str, Record]]
) -> tuple[str, tuple[str, int, int] | None]:
    """ "key: 0.003 in result_0.txt, …; 0.005 in result_7.txt, …" (the majority's value
    first) and where the first run off it logs the key."""
    groups: dict[Any, list[int]] = {}
    for i, first in enumerate(firsts):
        groups.setdefault(canonical(_value(first.get(key))), []).append(i)
    ordered = sorted(groups.values(), key=lambda runs: (-len(runs), runs[0]))
    shown = []
    for runs in ordered:
        value = _shorten(describe(_value(firsts[runs[0]].get(key))))
        names = [_name(results[i].path) for i in runs]
        more = len(names) - _NAMES_SHOWN
        listed = ", ".join(names[:_NAMES_SHOWN]) + (f", +{more}" if more > 0 else "")
        runs_word = "run" if len(names) == 1 else "runs"
        shown.append(f"{value} ({len(names)} {runs_word}: {listed})")
    off = min(i for runs in ordered[1:] for i in runs)
    rec = firsts[off].get(key)
    where = (results[off].path, rec.line, rec.column) if rec is not None else None
    return f"{key} " + " vs ".join(shown), where


def _name(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def _shorten(text: str) -> str:
    if len(text) <= _VALUE_SHOWN:
        return text
    return text[: _VALUE_SHOWN - 1] + "…"
