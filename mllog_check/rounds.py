"""The round registry: every question about MLPerf Training rounds, answered from data.

``schemas/rounds.yaml`` (one entry per round: spellings, folders, log syntax
generation, benchmarks and run counts, data file names; and the policies of the
official tools by round) is read once; nothing else in mllog-check states a round fact
or compares round versions (``Round.applies``). ``parse_round`` is the one parser of round names
(flags, folders, ``pyproject.toml``); ``choose`` picks the round of a log or folder
from, strongest first, the flag, the project setting, a round folder in the path and
the log's content (the newest of several rounds the content allows, said so).

``MLLOG_CHECK_ROUNDS=/path/rounds.yaml`` replaces the shipped registry (file names in it
are read beside it first, then in the shipped schemas); ``load_registry(path)`` reads
one without installing it and ``reload()`` re-reads after the variable changes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path

from .errors import DataError, UsageError
from .records import Record
from .values import Value

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import Any

    from .datafiles import Document

ENV_REGISTRY = "MLLOG_CHECK_ROUNDS"
TRAINING = "training"
HPC = "hpc"
USAGES = (TRAINING, HPC)
FILE_KINDS = ("rules", "scoring", "rcp", "system_description")
_MARKERS = {"mlp": ":::MLPv0.5.0", "mll": ":::MLL", "mllog": ":::MLLOG"}


class RoundError(UsageError, ValueError):
    """An unknown round name, or no evidence for a round (a usage error for the CLI)."""


class RegistryError(DataError, ValueError):
    """The round registry file breaks its format (a packaging bug)."""


class Benchmark(Value):
    __slots__ = ("name", "runs", "drop", "names", "rcp", "divisions")

    def __init__(
        self,
        name: str,  # as the round's rules name it: "ssd", "llama2_70b_lora"
        runs: int,  # result files required (exactly or at least, per round)
        drop: int,  # olympic mean: dropped from each end (and failed runs allowed)
        names: tuple[str, ...] = (),  # other names in folders and logs ("retinanet" for ssd)
        rcp: bool = True,  # False: the rules define no reference convergence points (minigo)
        # The divisions whose logs may name it (v3.0-v4.1: gpt3, llama2_70b_lora closed only).
        divisions: tuple[str, ...] = ("closed", "open"),
    ) -> None:
        self.name = name
        self.runs = runs
        self.drop = drop
        self.names = names
        self.rcp = rcp
        self.divisions = divisions

    @property
    def all_names(self) -> tuple[str, ...]:
        return (self.name, *self.names)


class Round(Value):
    __slots__ = (
        "version",
        "generation",
        "run_count",
        "benchmarks",
        "spellings",
        "files",
        "usage",
        "policies",
        "published",
        "summary_columns",
    )

    def __init__(
        self,
        version: str,  # "1.0.0"
        generation: str,  # log syntax: "mlp", "mll" or "mllog"
        run_count: str,  # "exact" or "minimum"
        benchmarks: dict[str, Benchmark] | None,  # None: not known (v0.5)
        spellings: frozenset[str],  # normalized (lower case, "-" as "_")
        files: dict[str, Path | None],  # kind -> path (may not exist), None: the round has none
        usage: str = TRAINING,  # "training" or "hpc" (the official tools' --usage)
        # Each policy of the registry's `policies` table: in force for this round or not.
        policies: dict[str, bool] | None = None,
        published: str | None = None,  # results publication date, YYYY-MM-DD (None: not yet)
        # The official result summarizer's benchmark columns, in its order (registry).
        summary_columns: tuple[str, ...] = (),
    ) -> None:
        # The round's key everywhere (flags, rulesets, choices): "1.0.0" for Training,
        # "hpc-1.0.0" for HPC, whose release numbers repeat Training's.
        self.version = version if usage == TRAINING else f"{usage}-{version}"
        self.usage = usage
        self.generation = generation
        self.run_count = run_count
        self.benchmarks = benchmarks
        self.spellings = spellings
        self.files = files
        self.policies = policies or {}
        self.published = published
        self.summary_columns = summary_columns

    def applies(self, policy: str) -> bool:
        """Whether a policy of the registry (``policies``: seeds_always, power_folder, ...)
        is in force for this round. RegistryError for a name the registry does not have."""
        found = self.policies.get(policy)
        if found is None:
            raise RegistryError(f"no policy {policy!r} in the round registry")
        return found

    @property
    def published_ms(self) -> float | None:
        """The publication date as a time_ms (00:00 UTC), None when not dated."""
        if self.published is None:
            return None
        year, month, day = (int(part) for part in self.published.split("-"))
        return _days_from_civil(year, month, day) * 86_400_000.0

    @property
    def release(self) -> str:
        """'1.0.0' for Training 1.0.0 and for HPC 1.0.0 (the official --ruleset)."""
        return self.version.rsplit("-", 1)[-1]

    @property
    def short(self) -> str:
        """'1.0' for 1.0.0."""
        return _short(self.release)

    @property
    def number(self) -> tuple[int, ...]:
        """(1, 0, 0) for 1.0.0: rounds of one usage compare in this order."""
        return _number(self.release)

    @property
    def folder(self) -> str:
        """'v1.0' ('hpc-v1.0'): the round's folder in the MLCommons results repositories."""
        return _folder(self.usage, self.short)

    @property
    def ruleset(self) -> str:
        """'training-1.0.0' ('hpc-1.0.0'): the name of its compliance ruleset."""
        return f"{self.usage}-{self.release}"

    @property
    def is_hpc(self) -> bool:
        return self.usage == HPC

    @property
    def exact_runs(self) -> bool:
        return self.run_count == "exact"

    def benchmark(self, name: str) -> Benchmark | None:
        """The benchmark a folder or log names (any of its names), None if not of this round."""
        wanted = name.strip().lower()
        for bench in (self.benchmarks or {}).values():
            if wanted in bench.all_names:
                return bench
        return None

    def runs(self) -> dict[str, int]:
        """Required runs per benchmark folder name (other names included)."""
        return {n: b.runs for b in (self.benchmarks or {}).values() for n in b.all_names}

    def path(self, kind: str) -> Path | None:
        """The round's data file of a kind (FILE_KINDS) when it exists in this build."""
        found = self.files.get(kind)
        return found if found is not None and found.exists() else None

    def missing(self, kind: str) -> str | None:
        """Why a stage needing this kind of data cannot run for the round; None if it can.

        A round that has no such data at all (v0.5 has no rules) is not "missing":
        ``has(kind)`` tells that case apart.
        """
        named = self.files.get(kind)
        if named is None or named.exists():
            return None
        return f"round {self.version} has no {kind.replace('_', ' ')} data in this build"

    def has(self, kind: str) -> bool:
        """Whether the round has this kind of data at all (e.g. v0.5 has no rules)."""
        return self.files.get(kind) is not None

    def has_rules(self) -> bool:
        return self.path("rules") is not None


class Registry(Value):
    __slots__ = ("source", "rounds", "by_spelling")

    def __init__(
        self,
        source: Path,
        rounds: tuple[Round, ...],  # oldest first
        by_spelling: dict[str, Round],  # normalized spelling -> round
    ) -> None:
        self.source = source
        self.rounds = rounds
        self.by_spelling = by_spelling

    def get(self, text: str, usage: str | None = None) -> Round:
        found = self.find(text, usage)
        if found is None:
            raise RoundError(
                f"unknown ruleset {text.strip()!r}"
                + (f" for usage {usage!r}" if usage else "")
                + f"; known rounds: {', '.join(self.versions())} (also written v1.0, 1.0, "
                "training-1.0.0, hpc-v3.0, hpc_3.0.0, or 3.0.0 with --usage hpc) or 'auto'"
            )
        return found

    def find(self, text: str, usage: str | None = None) -> Round | None:
        """The round a name means; with ``usage`` (the official tools' ``--usage hpc
        --ruleset 3.0.0``) a bare version names that usage's round."""
        found = self.by_spelling.get(_normal(text))
        if usage is None or (found is not None and found.usage == usage):
            return found
        if usage == TRAINING:
            return None
        return self.by_spelling.get(_normal(f"{usage}_{text.strip()}"))

    def versions(self) -> list[str]:
        return [r.version for r in self.rounds]

    def newest(self, versions: Iterable[str]) -> Round:
        wanted = set(versions)
        return [r for r in self.rounds if r.version in wanted][-1]


def _normal(text: str) -> str:
    return text.strip().lower().replace("-", "_")


def shipped_schemas() -> Path:
    from .prepared import schemas_dir

    return schemas_dir()


def load_registry(path: str | Path | None = None) -> Registry:
    """Read a registry file (default: the shipped schemas/rounds.yaml, from its prepared
    copy when current: no YAML import) and check it."""
    source = Path(path) if path is not None else shipped_schemas() / "rounds.yaml"
    data = None
    if path is None:
        from .prepared import read

        data = read("rounds")
    if data is None:
        data = read_registry_file(source)
    if not isinstance(data, dict) or not isinstance(data.get("rounds"), list):
        raise RegistryError(f"{source}: a round registry has a 'rounds' list")
    try:
        shared = _Shared(source, data)
        rounds = tuple(_round(source, data, entry, shared) for entry in data["rounds"])
    except RegistryError:
        raise
    except (TypeError, ValueError, AttributeError, KeyError, IndexError) as err:
        # A field of another type than docs/rounds.md says (a list for a mapping, text
        # for a count): the file is refused, never a traceback.
        raise RegistryError(
            f"{source}: a field of the round registry has the wrong type "
            f"({type(err).__name__}: {err}); docs/rounds.md describes every field"
        ) from None
    by_spelling: dict[str, Round] = {}
    for rnd in rounds:
        for spelling in rnd.spellings:
            other = by_spelling.setdefault(spelling, rnd)
            if other is not rnd:
                raise RegistryError(
                    f"{source}: {spelling!r} names {other.version} and {rnd.version}"
                )
    _check_dates(source, rounds)
    return Registry(source, rounds, by_spelling)


def _check_dates(source: Path, rounds: Sequence[Round]) -> None:
    """Per usage, in version order: publication dates increase, and a round without one
    comes after every dated round (a round's runs are those between the previous round's
    publication and its own: docs/rounds.md, "Choosing the round")."""
    for usage in USAGES:
        ordered = sorted((r for r in rounds if r.usage == usage), key=lambda r: r.number)
        undated: Round | None = None
        before: Round | None = None
        for rnd in ordered:
            if rnd.published is None:
                undated = undated or rnd
                continue
            if undated is not None:
                raise RegistryError(
                    f"{source}: round {rnd.version} is dated ({rnd.published}) but the older "
                    f"round {undated.version} is not: only the newest rounds may be undated"
                )
            if before is not None and rnd.published <= str(before.published):
                raise RegistryError(
                    f"{source}: round {rnd.version}'s date ({rnd.published}) is not after "
                    f"round {before.version}'s ({before.published})"
                )
            before = rnd


def read_registry_file(source: Path) -> Any:
    """A registry file's data (YAML)."""
    from .datafiles import DataFileError, load_yaml

    try:
        return load_yaml(source)
    except DataFileError as err:
        raise RegistryError(f"cannot read the round registry: {err}") from None


class _Shared:
    """What every round of one usage takes from the registry file, worked out once per
    usage (the registry is read on every check: docs/design.md, start-up time)."""

    __slots__ = ("by_usage", "drops", "folder", "shipped", "without_rcp")

    def __init__(self, source: Path, data: Document) -> None:
        self.folder = source.parent
        self.shipped = self.folder == shipped_schemas()  # the shipped registry: no stat
        self.drops = data.get("olympic_drop") or {}
        self.without_rcp = set(data.get("without_rcp") or ())
        # usage -> (its spelling forms, its file names, its policies' first rounds)
        self.by_usage: dict[str, tuple[list[tuple[str, str]], Document, list[Any]]] = {}

    def of(self, data: Document, usage: str) -> tuple[list[tuple[str, str]], Document, list[Any]]:
        found = self.by_usage.get(usage)
        if found is None:
            # A usage other than training states its own spellings and file names (usages:).
            own = (data.get("usages") or {}).get(usage) or {} if usage != TRAINING else data
            spelling = own.get("spellings") or {}
            forms = [
                (prefix, form)
                for prefix in spelling.get("prefixes", [""])
                for form in spelling.get("versions", ["{version}"])
            ]
            # A usage may state its own first rounds (usages: hpc: policies:) over Training's.
            firsts = {**(data.get("policies") or {}), **(own.get("policies") or {})}
            policies = [(name, _number(str(first))) for name, first in firsts.items()]
            found = self.by_usage[usage] = (forms, own.get("files") or {}, policies)
        return found

    def path(self, source: Path, relative: str) -> Path:
        if self.shipped:
            return self.folder / relative
        return _data_path(source, relative)


def _round(source: Path, data: Document, entry: Any, shared: _Shared | None = None) -> Round:
    if not isinstance(entry, dict) or not isinstance(entry.get("version"), str):
        raise RegistryError(f"{source}: every round has a version string: {entry!r}")
    shared = shared or _Shared(source, data)
    version = entry["version"]
    usage = str(entry.get("usage", TRAINING))
    if usage not in USAGES:
        raise RegistryError(f"{source}: round {version}: usage is one of {', '.join(USAGES)}")
    short = _short(version)
    names = {"version": version, "short": short, "folder": _folder(usage, short)}
    forms, own_files, firsts = shared.of(data, usage)
    spellings = {_normal(prefix + form.format(**names)) for prefix, form in forms}
    spellings |= {_normal(s) for s in entry.get("also", [])}
    kinds = {**own_files, **(entry.get("files") or {})}
    files = {
        kind: None if kinds.get(kind) is None else shared.path(source, kinds[kind].format(**names))
        for kind in FILE_KINDS
    }
    benchmarks = entry.get("benchmarks")
    number = _number(version)
    policies = {name: number >= first for name, first in firsts}
    return Round(
        version=version,
        generation=str(entry.get("generation", "mllog")),
        run_count=str(entry.get("run_count", "minimum")),
        benchmarks=None
        if benchmarks is None
        else _benchmarks(benchmarks, shared.drops, shared.without_rcp),
        spellings=frozenset(spellings),
        files=files,
        usage=usage,
        policies=policies,
        published=_published(source, version, entry.get("dates")),
        summary_columns=tuple(str(c) for c in entry.get("summary_columns") or ()),
    )


def _short(version: str) -> str:
    return version.rsplit(".", 1)[0] if version.endswith(".0") else version


def _folder(usage: str, short: str) -> str:
    return f"v{short}" if usage == TRAINING else f"{usage}-v{short}"


def _number(version: str) -> tuple[int, ...]:
    """The numbers of a version, (1, 0, 0) for 1.0.0: the one reading (Round.number)."""
    try:
        return tuple(int(part) for part in version.split("."))
    except ValueError:
        raise RegistryError(f"a round version is numbers joined by dots: {version!r}") from None


def _published(source: Path, version: str, dates: Any) -> str | None:
    """A round's ``dates: {published: "YYYY-MM-DD"}`` (None when the round has none)."""
    if dates is None:
        return None
    value = dates.get("published") if isinstance(dates, dict) else None
    parts = value.split("-") if isinstance(value, str) else []
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise RegistryError(f"{source}: round {version}: dates.published is 'YYYY-MM-DD'")
    return value


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (no datetime import on the
    check path; H. Hinnant's algorithm, https://howardhinnant.github.io/date_algorithms.html)."""
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _benchmarks(
    raw: Document, drops: dict[str, int], without_rcp: set[str]
) -> dict[str, Benchmark]:
    out = {}
    for name, spec in raw.items():
        spec = spec if isinstance(spec, dict) else {"runs": spec}
        out[name] = Benchmark(
            name,
            int(spec["runs"]),
            int(spec.get("drop", drops.get(name, drops.get("default", 1)))),
            tuple(spec.get("names", ())),
            name not in without_rcp,
            tuple(spec.get("divisions", ("closed", "open"))),
        )
    return out


def _data_path(source: Path, relative: str) -> Path:
    """A data file beside the registry, else in the shipped schemas (a test registry
    adds one round's files and reuses the shipped ones)."""
    beside = source.parent / relative
    if source.parent == shipped_schemas() or beside.exists():  # shipped registry: no stat
        return beside
    shipped = shipped_schemas() / relative
    return shipped if shipped.exists() else beside


@cache
def registry() -> Registry:
    """The registry in use: $MLLOG_CHECK_ROUNDS, else the shipped one (read once)."""
    return load_registry(os.environ.get(ENV_REGISTRY) or None)


def reload() -> Registry:
    """Forget the registry read (and data cached per round) and read it again."""
    registry.cache_clear()
    _forget_round_data()
    return registry()


def _forget_round_data() -> None:
    import sys

    for module, name in (
        ("mllog_check.rules.loader", "_load"),
        ("mllog_check.results.scoring", "_scoring"),
        ("mllog_check.submission.sysdesc", "round_schema"),
        ("mllog_check.results.rcp", "load_rcp"),
    ):
        loaded = sys.modules.get(module)
        cached = getattr(loaded, name, None)
        if cached is not None and hasattr(cached, "cache_clear"):
            cached.cache_clear()


def all_rounds() -> tuple[Round, ...]:
    return registry().rounds


def parse_round(text: str, usage: str | None = None) -> Round:
    """The round a name means: '1.0', 'v1.0', '1.0.0', 'training-1.0.0',
    'training_results_v1.0', 'hpc-3.0', 'hpc_results_v3.0' ..., or with ``usage='hpc'``
    '3.0.0' (RoundError lists the known rounds)."""
    return registry().get(text, usage)


def usage_of(text: str | None) -> str | None:
    """A --usage value checked against the known usages (None: not given)."""
    if text is None or not text.strip():
        return None
    usage = text.strip().lower()
    if usage not in USAGES:
        raise RoundError(f"unknown usage {text.strip()!r}; known: {', '.join(USAGES)}")
    return usage


def is_auto(text: str | None) -> bool:
    return text is None or text.strip().lower() in ("", "auto")


def marker_of(generation: str) -> str:
    """How a generation's records start, for messages (``:::MLL``)."""
    return _MARKERS.get(generation, generation)


def rounds_of_generation(generation: str) -> tuple[str, ...]:
    return tuple(r.version for r in all_rounds() if r.generation == generation)


def rounds_of_benchmark(name: str) -> tuple[str, ...]:
    """Rounds that have a benchmark (by any of its names); () if no round knows it."""
    return tuple(r.version for r in all_rounds() if r.benchmark(name) is not None)


def current_benchmark_name(version: str, name: str) -> str:
    """The name later rounds give a benchmark, following the registry's ``names``: in
    v2.0-v4.1 ``ssd`` (RetinaNet) is ``retinanet``, in v4.0-v4.1 ``gnn`` is ``rgat``;
    v1.0's ``ssd`` (another network, no alias) stays ``ssd``. Without a known round
    (``version`` "" or unknown) the newest round knowing the name decides."""
    found = registry().find(version) if version else None
    rounds = [found] if found is not None else list(reversed(all_rounds()))
    primaries = {b.name for r in all_rounds() for b in (r.benchmarks or {}).values()}
    for rnd in rounds:
        bench = rnd.benchmark(name)
        if bench is None:
            continue
        renamed = [n for n in bench.names if n in primaries and n != bench.name]
        return renamed[0] if renamed else bench.name
    return name.strip().lower()


# --- choosing a round -------------------------------------------------------------------


class Choice(Value):
    """The round chosen for a log or folder, where from, and why (for -v and JSON)."""

    __slots__ = ("round", "source", "reason", "candidates", "alternatives")

    def __init__(
        self,
        round: Round,
        source: str,  # "flag", "config", "folder", "content", "date" or "newest" (content allows)
        reason: str,
        candidates: tuple[str, ...] = (),  # the rounds the evidence allowed (content)
        # Chosen by date: the next round the content allows, which a run re-used from the
        # date's round may have been submitted to (the round is then uncertain).
        alternatives: tuple[str, ...] = (),
    ) -> None:
        self.round = round
        self.source = source
        self.reason = reason
        self.candidates = candidates
        self.alternatives = alternatives

    @property
    def ruleset(self) -> str:
        return self.round.version

    def describe(self) -> str:
        return f"ruleset {self.ruleset} (from {self.source}: {self.reason})"

    @property
    def note(self) -> str | None:
        """A line for the text output when the round was not decided by evidence alone."""
        if self.source != "newest":
            return None
        return (
            f"round {self.ruleset} taken as the newest of {', '.join(self.candidates)}, which "
            "the log's content allows; pass --ruleset or set [tool.mllog-check] ruleset"
        )


class Setting(Value):
    """A project setting: ``[tool.mllog-check]`` of the nearest pyproject.toml that has the
    table: ``ruleset`` (None when the file leaves the round to the logs), and which
    problems are shown (``select``, ``ignore``, ``preview``: mllog_check/selection.py)."""

    __slots__ = ("ruleset", "path", "select", "ignore", "preview")

    def __init__(
        self,
        ruleset: str | None,
        path: Path,
        select: tuple[str, ...] = (),
        ignore: tuple[str, ...] = (),
        preview: bool = False,
    ) -> None:
        self.ruleset = ruleset
        self.path = path
        self.select = select
        self.ignore = ignore
        self.preview = preview

    @property
    def round_setting(self) -> Setting | None:
        """The setting as a round choice (``choose``), None when it names no round."""
        return self if self.ruleset is not None else None


def from_flag(flag: str) -> Choice:
    rnd = parse_round(flag)
    return Choice(rnd, "flag", f"--ruleset {flag}")


def from_setting(setting: Setting) -> Choice:
    assert setting.ruleset is not None  # Setting.round_setting
    try:
        rnd = parse_round(setting.ruleset)
    except RoundError as err:
        raise RoundError(f"{setting.path}: [tool.mllog-check] ruleset: {err}") from None
    return Choice(
        rnd, "config", f"{setting.path}: [tool.mllog-check] ruleset = {setting.ruleset!r}"
    )


def from_path(path: str | Path, *, is_folder: bool = False) -> Choice | None:
    """The innermost folder of the (absolute) path that names a round.

    For a file the file name itself is not a folder; ``is_folder`` counts the last
    component too (``audit v1.0/``, ``package training_results_v1.1/Org``).
    """
    parts = os.path.abspath(path).replace("\\", "/").split("/")
    if not is_folder:
        parts = parts[:-1]
    reg = registry()
    for folder in reversed(parts):
        found = reg.find(folder) if folder else None
        if found is not None:
            return Choice(found, "folder", f"folder {folder!r} names round {found.version}")
    return None


def from_records(records: Sequence[Record]) -> Choice | None:
    """The round the log's content allows: the only one, or the newest of several.

    Evidence: the syntax generation, and each benchmark named that exists only in some
    rounds (a name no round knows narrows nothing: the rules report it). None without
    evidence; RoundError when the evidence contradicts itself.
    """
    candidates = [r.version for r in all_rounds()]
    reasons: list[str] = []
    for generation in sorted({str(r.generation) for r in records}):
        candidates = _narrow(candidates, rounds_of_generation(generation))
        reasons.append(f"{marker_of(generation)} syntax")
    for benchmark in sorted(_benchmarks_named(records)):
        allowed = rounds_of_benchmark(benchmark)
        if allowed and len(allowed) < len(all_rounds()):
            candidates = _narrow(candidates, allowed)
            reasons.append(f"benchmark {benchmark!r}")
    if not reasons:
        return None
    if not candidates:
        raise RoundError(f"the log's content contradicts itself ({', '.join(reasons)})")
    # Without an HPC benchmark named, the log is taken as Training (the official tools'
    # default usage); HPC's benchmarks exist only in HPC rounds.
    trained = [c for c in candidates if registry().get(c).usage == TRAINING]
    candidates = trained or candidates
    said = " and ".join(reasons)
    if len(candidates) == 1:
        rnd = registry().get(candidates[0])
        return Choice(rnd, "content", f"{said} exist only there", tuple(candidates))
    fit = f"{said} fit rounds {', '.join(candidates)}"
    dated = by_date(candidates, run_time_ms(records))
    if dated is not None:
        rnd, why = dated
        later = candidates[candidates.index(rnd.version) + 1 :]
        return Choice(rnd, "date", f"{fit}; {why}", tuple(candidates), tuple(later[:1]))
    rnd = registry().newest(candidates)
    return Choice(rnd, "newest", f"{fit}: the newest taken", tuple(candidates))


# Logs dated before the first MLPerf round (2018) or without time carry no date.
_EARLIEST_MS = 1.5e12


def run_time_ms(records: Sequence[Record]) -> float | None:
    """When the run happened: run_start's time_ms, else the first plausible time_ms."""
    first = None
    for rec in records:
        ts = rec.timestamp_ms
        if not isinstance(ts, (int, float)) or not ts >= _EARLIEST_MS:
            continue
        if rec.key == "run_start":
            return float(ts)
        if first is None:
            first = float(ts)
    return first


def by_date(candidates: Sequence[str], when: float | None) -> tuple[Round, str] | None:
    """The round whose submission window holds a run at ``when`` (time_ms): the first of
    ``candidates`` whose results were published after it (a round's runs happen between
    the previous round's publication and its own), else the first candidate newer than
    every dated one and not yet dated. None when the log has no date, no candidate is
    dated, or the run is newer than every candidate."""
    # No calendar day: a hostile or broken time_ms (NaN, infinite, beyond year 30,000)
    # says nothing about the round (docs/security.md).
    if when is None or not -1e15 < when < 1e15:
        return None
    rounds = [registry().get(v) for v in candidates]
    dated = [r for r in rounds if r.published is not None]
    if not dated:
        return None
    day = _iso_day(when)
    # The registry's dates increase with versions and only the newest rounds are undated
    # (load_registry), so the first candidate published after the run is the round of
    # its submission window, or the first newer one the content allows.
    for rnd in dated:
        published = rnd.published_ms
        if published is not None and when < published:
            return rnd, f"run dated {day}, before round {rnd.version}'s results ({rnd.published})"
    last = dated[-1]
    for rnd in rounds:
        if rnd.published is None and rnd.usage == last.usage and rnd.number > last.number:
            return rnd, (
                f"run dated {day}, after round {last.version}'s results ({last.published}):"
                f" {rnd.version} is the first of them not yet published"
            )
    return None


def earlier_window(choice: Choice, records: Sequence[Record]) -> str | None:
    """A note when a log's folder names its round but the run is dated before the
    previous round's results were published: a run of an earlier submission window
    re-published (docs/rounds.md, "Choosing the round"). The folder still decides: a log
    is judged as the round it was published in. None when the dates agree or tell
    nothing."""
    if choice.source != "folder":
        return None
    when = run_time_ms(records)
    if when is None or not -1e15 < when < 1e15:
        return None
    earlier = [
        r
        for r in all_rounds()
        if r.usage == choice.round.usage and r.number < choice.round.number and r.published
    ]
    if not earlier:
        return None
    previous = max(earlier, key=lambda r: r.number)
    published = previous.published_ms
    if published is None or when >= published:
        return None
    return (
        f"run dated {_iso_day(when)}, before round {previous.version}'s results "
        f"({previous.published}): a run of an earlier round re-published in "
        f"{choice.ruleset}, checked by {choice.ruleset}'s rules as its folder says"
    )


def _iso_day(ms: float) -> str:
    """YYYY-MM-DD (UTC) of a time_ms."""
    import time

    return time.strftime("%Y-%m-%d", time.gmtime(ms / 1000))


def choose(
    path: str | Path,
    records: Sequence[Record] = (),
    flag: str | None = "auto",
    setting: Setting | None = None,
    *,
    is_folder: bool = False,
) -> Choice:
    """The round for one log or folder: flag > project setting > folder > content.

    RoundError when nothing tells (never a silent guess) or a name is unknown.
    """
    if not is_auto(flag):
        assert flag is not None
        return from_flag(flag)
    if setting is not None and setting.ruleset is not None:
        return from_setting(setting)
    found = from_path(path, is_folder=is_folder) or from_records(records)
    if found is not None:
        return found
    raise RoundError(
        f"{path}: cannot tell the round: no round folder in the path (e.g. v5.1/), no "
        "[tool.mllog-check] ruleset in pyproject.toml and no round-specific content; "
        "pass --ruleset"
    )


def _narrow(candidates: list[str], allowed: Iterable[str]) -> list[str]:
    allowed = set(allowed)
    return [c for c in candidates if c in allowed]


def _benchmarks_named(records: Sequence[Record]) -> set[str]:
    return {
        str(r.value).lower()
        for r in records
        if r.key == "submission_benchmark" and isinstance(r.value, str)
    }


# --- project setting --------------------------------------------------------------------


# The keys [tool.mllog-check] may hold (docs/rounds.md); others are reported, not obeyed.
SETTING_KEYS = ("ruleset", "select", "ignore", "preview")
SELECTION_KEYS = ("select", "ignore", "preview")
TABLE_NAME = "mllog-check"


def find_setting(start: str | Path | None = None) -> Setting | None:
    """``[tool.mllog-check] ruleset`` from the nearest pyproject.toml that has the table,
    from ``start`` (default: the working folder) upwards, as ruff and yamllint look for
    theirs. RoundError for a file that cannot be read as TOML. None when no file names
    a round."""
    setting = read_setting(start)[0]
    return setting.round_setting if setting is not None else None


def read_setting(
    start: str | Path | None = None, *, quick: bool = False
) -> tuple[Setting | None, list[str]]:
    """The project setting and notes about what was ignored in the files read on the
    way (unknown keys, a misspelled table name), each with a did-you-mean.

    The round comes from the nearest table with ``ruleset`` (``ruleset = "auto"`` is the
    default said aloud: no round, the search stops there); ``select``, ``ignore`` and
    ``preview`` from the nearest table with any of them, up to that one. None when no
    table says either. ``quick``: a file whose text cannot hold our table is not parsed
    (for a command whose round a flag gives: docs/rounds.md).
    """
    here = Path(start if start is not None else Path.cwd()).resolve()
    notes: list[str] = []
    chosen: tuple[tuple[str, ...], tuple[str, ...], bool, Path] | None = None
    ruleset: str | None = None
    where: Path | None = None
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if not candidate.is_file():
            continue
        table = _tool_table(candidate, notes, quick)
        if table is None:
            continue
        if chosen is None and any(key in table for key in SELECTION_KEYS):
            chosen = _selection_keys(candidate, table)
        value = table.get("ruleset")
        if value is None:
            continue
        if not isinstance(value, str):
            raise RoundError(f"{candidate}: [tool.mllog-check] ruleset must be a string")
        if not is_auto(value):
            ruleset, where = value, candidate
        break
    if chosen is None and ruleset is None:
        return None, notes
    select, ignore, preview, path = chosen or ((), (), False, where)
    assert path is not None
    return Setting(ruleset, where or path, select, ignore, preview), notes


def _selection_keys(
    path: Path, table: Document
) -> tuple[tuple[str, ...], tuple[str, ...], bool, Path]:
    """``select`` and ``ignore`` (lists of codes or prefixes, or one string) and
    ``preview`` (a boolean) of a table; RoundError for another type (a usage error)."""
    lists: list[tuple[str, ...]] = []
    for key in ("select", "ignore"):
        value = table.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise RoundError(f"{path}: [tool.mllog-check] {key} must be a list of codes")
        lists.append(tuple(value))
    preview = table.get("preview", False)
    if not isinstance(preview, bool):
        raise RoundError(f"{path}: [tool.mllog-check] preview must be true or false")
    return lists[0], lists[1], preview, path


# A pyproject.toml is read only when regular and at most this long (a 2 GB sparse one in
# a folder above took 4.2 GB; real ones are a few KB: docs/security.md).
SETTING_FILE_LIMIT = 1 << 20


# A file whose text has no [tool] table, and no tool table or dotted key starting with
# "ml" (ours or a misspelling of it), holds nothing of ours: read ``quick`` (the round
# given by a flag), it is not parsed, so that a check with --ruleset does not import
# tomllib (and typing: docs/design.md, "Start-up time of a single-file check").
_MAY_HOLD_OURS = r"(?im)^[ \t]*(\[[ \t]*tool[ \t]*\]|\[?[ \t]*tool[ \t]*\.[ \t]*[\"']?ml)"


def _tool_table(path: Path, notes: list[str] | None = None, quick: bool = False) -> Document | None:
    import re

    from .datafiles import read_text

    try:
        text = read_text(path, SETTING_FILE_LIMIT)
    except (OSError, UnicodeDecodeError) as err:
        raise RoundError(f"{path}: cannot read: {err}") from None
    if quick and not re.search(_MAY_HOLD_OURS, text):
        return None
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise RoundError(f"{path}: invalid TOML: {err}") from None
    except RecursionError:  # tomllib recurses per nested array or inline table
        raise RoundError(f"{path}: invalid TOML: nested too deeply") from None
    tools = data.get("tool")
    if not isinstance(tools, dict):  # `tool = "x"` or [[tool]]: not ours to judge
        return None
    table = tools.get(TABLE_NAME)
    if notes is not None:
        notes.extend(_setting_notes(path, tools, table))
    return table if isinstance(table, dict) else None


def _setting_notes(path: Path, tools: Document, table: Any) -> list[str]:
    """What a reader of the file would expect to apply and does not: a table name close
    to ours ([tool.mllog_check]) and keys of ours that mean nothing."""
    from .suggest import closest, did_you_mean

    notes = []
    if table is None:
        for name in sorted(k for k in tools if isinstance(k, str)):
            spelled = name.lower().replace("_", "-")
            if spelled == TABLE_NAME or closest(spelled, [TABLE_NAME], cutoff=0.8):
                notes.append(
                    f"{path}: [tool.{name}] is not read (did you mean [tool.{TABLE_NAME}]?)"
                )
    elif isinstance(table, dict):
        for key in sorted(k for k in table if k not in SETTING_KEYS):
            hint = did_you_mean(str(key), SETTING_KEYS)
            notes.append(f"{path}: [tool.{TABLE_NAME}] {key!r} is not a setting{hint}: ignored")
    else:
        notes.append(f"{path}: tool.{TABLE_NAME} is not a table: ignored")
    return notes
