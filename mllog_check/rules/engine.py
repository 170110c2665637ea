"""The compliance engine: one pass over a log's records against a compiled ruleset.

Semantics follow the official checker's reading of its rule files (docs/rules.md):
the chain common → division → benchmark → optimizer variant is chosen from the
first value of each section's selector key; when several sections of the chain
name a key, the deepest one's rule replaces the others (that is how closed BERT
overrides the common eval_accuracy rule); one_of groups are kept from every
section of the chain. Unlike the official checker, every problem is kept, and
positions are file lines.
"""

from __future__ import annotations

from collections import Counter

from ..catalog import RuleInfo
from ..errors import cut_message
from ..parsing.scanner import PROBLEM_LIMIT
from ..problems import Problem, Severity
from ..records import Record
from ..suggest import closest, did_you_mean
from ..syntax_codes import MISSING_VALUE_OR_METADATA, RULE_PROBLEMS_OMITTED
from . import codes, expr
from .loader import Aggregate, Check, Fragment, KeySpec, Ruleset, Section
from .occurrences import Occurrences
from .schema import show

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Sequence
    from typing import Any

    from ..records import Logged
    from .schema import Schema

    # The first value of each key, as logged (a selector key's choose the chain).
    FirstValues = dict[str, Logged]


def chain(ruleset: Ruleset, records: Iterable[Record]) -> list[Section]:
    """Sections that apply, root first, chosen by the first value of each selector key."""
    selectors = selector_keys(ruleset)
    first: FirstValues = {}
    for rec in records:
        if rec.key in selectors and rec.key not in first:
            first[rec.key] = rec.value
            if len(first) == len(selectors):
                break
    return chain_of(ruleset, first)


def selector_keys(ruleset: Ruleset) -> set[str]:
    """The keys whose first value chooses sections (division, benchmark, optimizer...)."""
    return {s.when[0] for s in ruleset.sections.values() if s.when}


def chain_of(ruleset: Ruleset, first: FirstValues) -> list[Section]:
    """The chain the first values of the selector keys choose (a key absent: no child)."""
    found: list[Section] = []
    level = ruleset.roots()
    while level:
        found.extend(level)
        # One child per selector key: HPC's closed DeepCAM applies its optimizer
        # (opt_name) and its scheduler (scheduler_type) variants side by side.
        chosen: dict[str, Section] = {}
        for parent in level:
            for child in ruleset.children(parent.name):
                if child.when is None or child.when[0] in chosen:
                    continue
                if _same(first.get(child.when[0], _MISSING), child.when[1]):
                    chosen[child.when[0]] = child
        level = list(chosen.values())
    return found


def first_values(records: Iterable[Record], selectors: Collection[str], first: FirstValues) -> None:
    """Add to ``first`` each selector key's first value among ``records`` (held before the
    rules were known) that it does not hold yet."""
    for rec in records:
        if rec.key in selectors and rec.key not in first:
            first[rec.key] = rec.value


def chain_settled(ruleset: Ruleset, first: FirstValues) -> bool:
    """Whether no later record can change the chain: every selector key its sections'
    children test has its first value (``check`` streamed and ``check --follow``)."""
    return all(
        child.when is None or child.when[0] in first
        for section in chain_of(ruleset, first)
        for child in ruleset.children(section.name)
    )


_MISSING = object()


def _same(value: Any, expected: Any) -> bool:
    if isinstance(expected, Fragment):  # `when: {matches: ...}`, e.g. a batch-size bound
        return value is not _MISSING and expected.ok(value)
    return value is not _MISSING and type(value) is type(expected) and value == expected


class _State:
    """What the engine learns while walking one log's records.

    Bounded whatever the number of records (docs/design.md, memory): per key a count and
    the few records the rules name (``Occurrences``), per collected key a count per value,
    per aggregate one record per group; of the timestamp warnings the first record and a
    count. What grows is the number of distinct keys, values collected and groups.

    A plain class, not a dataclass: creating dataclasses costs a single-file check more
    than its own work (docs/design.md, start-up time).
    """

    __slots__ = (
        "backwards",
        "backwards_count",
        "collected",
        "first_ts",
        "groupings",
        "header_until",
        "headers",
        "latest_ts",
        "latest_eval_ts",
        "late_reached",
        "listed",
        "omitted",
        "once",
        "path",
        "problems",
        "reached",
        "ruleset",
        "seen",
        "sources",
        "specs",
        "text_used",
        "tolerance_ms",
        "warn_only",
        "zero_count",
        "zero_ts",
    )  # fmt: skip

    def __init__(
        self,
        path: str,
        specs: dict[str, KeySpec],
        tolerance_ms: float,
        header_until: str,
        warn_only: frozenset[str] = frozenset(),
        ruleset: str = "",
    ) -> None:
        self.path = path
        self.specs = specs
        self.tolerance_ms = tolerance_ms
        self.header_until = header_until
        # Keys whose failures the round's tool reported as warnings (warn_only_keys).
        self.warn_only = warn_only
        self.ruleset = ruleset
        self.problems: list[Problem] = []
        # Problems beyond PROBLEM_LIMIT are counted, not kept (docs/security.md): how many
        # were listed, and per severity how many were not.
        self.listed = 0
        self.text_used = 0  # characters of the messages listed (TEXT_BUDGET)
        self.omitted: Counter[Severity] = Counter()
        self.seen: dict[str, Occurrences] = {}
        self.first_ts: dict[str, float] = {}
        self.reached: set[str] = set()
        # Quality-target keys reached only by records after run_stop (MLC111): the first.
        self.late_reached: dict[str, Record] = {}
        # Per collected key, how many times each value (as text) was logged.
        self.collected: dict[str, Counter[str]] = {}
        # Keys the rules do not name, logged before header_until (MLC108).
        self.headers: dict[str, Occurrences] = {}
        self.latest_ts = float("-inf")
        self.latest_eval_ts = float("-inf")
        # The first record stepping back in time (with the latest time before it), and
        # how many did; the first record at time 0, and how many (MLC106, MLC107).
        self.backwards: tuple[Record, float] | None = None
        self.backwards_count = 0
        self.zero_ts: Record | None = None
        self.zero_count = 0
        # Per once-per-log relation (its Check): the problem reported and how many more
        # records broke it (docs/rules.md, "Relations").
        self.once: dict[int, list[Any]] = {}
        self.groupings: list[_Grouping] = []  # the chain's aggregates, built as records come
        self.sources: frozenset[str] = frozenset()  # the keys they read

    def report(self, rule: RuleInfo, rec: Record | None, message: str, key: str = "") -> None:
        line, column = (rec.line, rec.column) if rec is not None else (0, 0)
        key = key or (rec.key if rec is not None else "")
        # The round's tool only warned about this key (params.warn_only_keys).
        severity = Severity.WARNING if key in self.warn_only else None
        spec = self.specs.get(key)
        if spec is not None and spec.warn_as and (severity or rule.severity) is Severity.ERROR:
            # Later rules changed the key: the failure is the warning they name, as registered.
            message = f"{message} ({rule.code} {rule.name} under later rules)"
            rule, severity = codes.TABLE[spec.warn_as], None
        if self.listed >= PROBLEM_LIMIT:
            self.omitted[severity or rule.severity] += 1
            return
        self.listed += 1
        # The log's problem text is bounded too (docs/security.md): past TEXT_BUDGET
        # characters, each message keeps its start and end only.
        if self.text_used >= TEXT_BUDGET:
            message = cut_message(message, SHORT_MESSAGE)
        self.text_used += len(message)
        self.problems.append(rule.problem(self.path, message, line, column, severity=severity))


# Characters of rule messages one log lists in full; past them each message is cut to
# SHORT_MESSAGE (a message is at most errors.MESSAGE_LIMIT whatever: problems.Problem).
TEXT_BUDGET = 1 << 20
SHORT_MESSAGE = 240

NO_RECORDS_MESSAGE = "no :::MLLOG records in the file: not an MLPerf result log"


def no_records_message(parse_problems: list[Problem]) -> str:
    """The no-records message (MLC001); a log whose markers are wrapped in terminal colour codes is
    named as such, with how to strip them."""
    from ..parsing.grammar import ANSI_PREFIX, ANSI_STRIP

    coloured = [p for p in parse_problems if p.message.startswith(ANSI_PREFIX)]
    if not coloured:
        return NO_RECORDS_MESSAGE
    return (
        "no :::MLLOG records in the file: its marker lines carry ANSI colour codes "
        f"({len(coloured)} reported, the first at line {min(coloured).line}); strip them "
        f"({ANSI_STRIP}) and check the copy"
    )


def run(
    ruleset: Ruleset, path: str, records: Sequence[Record]
) -> tuple[list[Problem], list[Section]]:
    """All compliance problems of one log (unsorted) and the chain of sections applied."""
    sections = chain(ruleset, records)
    engine = Engine(ruleset, path, sections)
    feed = engine.feed
    for rec in records:
        feed(rec)
    return engine.finish(), sections


class Engine:
    """One log's check fed record by record (``check`` feeds a whole file, ``check
    --follow`` a growing one: one path, so both give the same problems).

    ``problems`` grows as each record is judged; ``finish()`` adds the judgements that
    need the whole log (occurrences, quality target, one_of groups, header conflicts,
    timestamps); ``judge_end()`` gives them without ending the check.
    """

    __slots__ = ("count", "sections", "state")

    def __init__(self, ruleset: Ruleset, path: str, sections: list[Section]) -> None:
        specs: dict[str, KeySpec] = {}
        for section in sections:
            specs.update(section.keys)
        self.sections = sections
        self.count = 0
        self.state = _State(
            path,
            specs,
            float(ruleset.params.get("backwards_tolerance_ms", 1000)),
            str(ruleset.params.get("header_until", "run_start")),
            frozenset(ruleset.params.get("warn_only_keys", ())),
            ruleset.name,
        )
        self.state.groupings = [_Grouping(s.aggregate) for s in sections if s.aggregate]
        self.state.sources = frozenset(g.agg.source for g in self.state.groupings)

    @property
    def problems(self) -> list[Problem]:
        return self.state.problems

    def feed(self, rec: Record) -> None:
        state = self.state
        self.count += 1
        _timestamps(state, rec)
        key = rec.key
        spec = state.specs.get(key)
        if spec is not None:
            _record(state, spec, rec)
        else:
            seen = state.seen
            if state.header_until not in seen:
                _add(state.headers, rec, True)
            found = seen.get(key)
            if found is None:
                seen[key] = Occurrences(rec)
            else:  # Occurrences.add inline (untracked): a call per record costs a check time
                found.count += 1
                found.previous, found.last = found.last, rec
                if found.second is None:
                    found.second = rec
        if key in state.sources:
            for grouping in state.groupings:
                if grouping.agg.source == key:
                    grouping.add(rec)
        if key not in state.first_ts or rec.timestamp_ms < state.first_ts[key]:
            state.first_ts[key] = rec.timestamp_ms

    def finish(self) -> list[Problem]:
        """Every problem of the log: those found so far and the end-only judgements."""
        _end(self.state, self.sections, self.count)
        return self.state.problems

    def judge_end(self) -> list[Problem]:
        """What ``finish()`` would add if the log ended now; the check goes on."""
        state = self.state
        copy = _State(state.path, state.specs, state.tolerance_ms, state.header_until)
        for name in _State.__slots__:
            setattr(copy, name, getattr(state, name))
        copy.problems = []
        copy.once = {key: list(reported) for key, reported in state.once.items()}
        # What _end changes (the aggregates' virtual records are added): copied, the rest
        # is only read. Bounded by the number of keys, not of records.
        copy.seen = {key: found.copy() for key, found in state.seen.items()}
        copy.reached = set(state.reached)
        copy.late_reached = dict(state.late_reached)
        copy.collected = {key: Counter(found) for key, found in state.collected.items()}
        copy.groupings = [grouping.copy() for grouping in state.groupings]
        copy.omitted = Counter(state.omitted)
        _end(copy, self.sections, self.count)
        return copy.problems


def _relation(state: _State, check: Check, rec: Record, where: str) -> None:
    """A relation the record breaks (MLC051, or the check's own code): the field at
    fault with its value, the relation, and what it computed (the band, the expected
    sample count, the keys read). A once-per-log check reports its first record only and
    counts the rest (``_end`` adds the count)."""
    reported = state.once.get(id(check)) if check.once else None
    if reported is not None:
        reported[1] += 1
        return
    named = [f for f in expr.fields(check.node) if f != "value"] if check.node else []
    field, value = (named[0], _field(rec, named[0])) if len(named) == 1 else ("", rec.value)
    computed = expr.explain(check.node, rec, state.seen) if check.node else ""
    message = (
        f"{where}{' ' + field if field else ''} is {show(value)}: must satisfy {check.says}"
        + (f" ({computed})" if computed else "")
    )
    rule = codes.TABLE[check.warn_as] if check.warn_as else codes.BAD_RELATION
    state.report(rule, rec, message)
    if check.once:
        state.once[id(check)] = [state.problems[-1], 0, rec.key]


def _field(rec: Record, path: str) -> Any:
    """``metadata.samples_count`` of a record, None when absent."""
    got: Any = rec.value if path.split(".")[0] == "value" else rec.metadata
    for part in path.split(".")[1:]:
        got = got.get(part) if isinstance(got, dict) else None
    return got


def _once_counts(state: _State) -> None:
    """Each once-per-log relation's problem, with how many more records broke it."""
    for problem, more, key in state.once.values():
        if not more:
            continue
        for i, found in enumerate(state.problems):
            if found is problem:
                note = f" (once per log: {more} more {key} records break it)"
                state.problems[i] = found.replace(message=found.message + note)


def _add(seen: dict[str, Occurrences], rec: Record, track: bool) -> Occurrences:
    found = seen.get(rec.key)
    if found is None:
        seen[rec.key] = found = Occurrences(rec, track)
    else:
        found.add(rec)
    return found


def _end(state: _State, sections: list[Section], count: int) -> None:
    if not count:  # not a log: its missing keys would only bury this one answer
        state.report(codes.NO_RECORDS, None, NO_RECORDS_MESSAGE)
        return
    for index, grouping in enumerate(state.groupings):
        if grouping.failure is not None:
            rec, message = grouping.failure
            state.report(codes.UNAGGREGATABLE, rec, message)
            continue
        spec = state.specs.get(grouping.agg.key)
        for virtual in grouping.groups.values():
            if spec is not None:
                _record(state, spec, virtual)
            else:
                _add(state.seen, virtual, False)
            for later in state.groupings[index + 1 :]:  # a later aggregate reading this one
                if later.agg.source == virtual.key:
                    later.add(virtual)
    _finish(state, sections)
    _once_counts(state)


class _Grouping:
    """The official stable-diffusion BEGIN block, built as the records come: one virtual
    record per evaluation point, appended after the log at its end.

    It reads metadata[group] of every source record naming a metric; without it the
    official checker raises before any check (the whole log fails): MLC053, no records.
    Memory: one record per group (evaluation point), not per source record.
    """

    __slots__ = ("agg", "failure", "groups")

    def __init__(self, agg: Aggregate) -> None:
        self.agg = agg
        self.groups: dict[Any, Record] = {}
        self.failure: tuple[Record, str] | None = None  # the first record it cannot group

    def copy(self) -> _Grouping:
        twin = _Grouping(self.agg)
        twin.groups, twin.failure = dict(self.groups), self.failure
        return twin

    def add(self, rec: Record) -> None:
        agg = self.agg
        if self.failure is not None:
            return
        metadata = rec.metadata if isinstance(rec.metadata, dict) else {}
        if agg.name not in metadata:
            return
        if agg.group not in metadata:
            self.failure = (
                rec,
                f"{rec.key} names a {agg.name} but no {agg.group}: the official checker cannot "
                f"build {agg.key} from it",
            )
            return
        value = metadata[agg.group]
        try:
            first = self.groups.get(value)
        except TypeError:  # an unhashable group value: the official BEGIN block raises too
            self.failure = (rec, f"{rec.key} {agg.group} is not a plain value")
            return
        if first is None:
            first = rec._replace(key=agg.key, value={agg.group: value}, metadata={})
        stamp = max(first.timestamp_ms, rec.timestamp_ms)
        merged = {**first.value, str(metadata[agg.name]): rec.value}
        self.groups[value] = first._replace(timestamp_ms=stamp, value=merged, line=rec.line)


# Evaluation may run offline, after training, and be written into the log ahead of
# run_stop, which then carries the time of the checkpoint that reached the target
# (v4.0+ stable_diffusion: evaluations up to an hour after that run_stop, training steps
# minutes after it; Google's v4.1 logs repeat the last evaluation at the checkpoint's
# time). Eval records neither move the run's clock nor step back on it, and a run_stop
# before an evaluation of its own run is back-dated by design (MLC106).
OFFLINE_KEYS = frozenset(("eval_start", "eval_stop", "eval_accuracy"))


def _timestamps(state: _State, rec: Record) -> None:
    ts = rec.timestamp_ms
    if ts == 0:
        if state.zero_ts is None:
            state.zero_ts = rec
        state.zero_count += 1
        return
    if "run_stop" in state.seen:
        # After run_stop: launcher trailers (v5.0+ dlrm_dcnv2 appends its cache_clear
        # record there), which the audit reports where they matter (docs/audit.md).
        return
    if rec.key in OFFLINE_KEYS:
        state.latest_eval_ts = max(state.latest_eval_ts, ts)
        return
    back_dated = rec.key == "run_stop" and state.latest_eval_ts > ts
    if ts < state.latest_ts - state.tolerance_ms and not back_dated:
        if state.backwards is None:
            state.backwards = (rec, state.latest_ts)
        state.backwards_count += 1
    state.latest_ts = max(state.latest_ts, ts)


def _record(state: _State, spec: KeySpec, rec: Record) -> None:
    occurrences = state.seen.get(rec.key)
    if occurrences is None:
        state.seen[rec.key] = occurrences = Occurrences(rec, spec.occurs == "exactly_one")
    else:
        occurrences.add(rec)
        if spec.first_only:
            return
    where = f"{spec.label}: {rec.key}"
    if spec.value is not None and not spec.value.ok(rec.value):
        if rec.key == "submission_benchmark":
            _unknown_benchmark(state, spec, rec)
        else:
            hint = _hint(rec.value, spec.value.schema)
            state.report(
                codes.BAD_VALUE, rec, f"{where} is {show(rec.value)}{hint}, {spec.value.says}"
            )
    for check in spec.checks:
        if check.first_only and occurrences.count > 1:
            continue
        if not check.test(rec, state.seen):
            _relation(state, check, rec, where)
    metadata = rec.metadata if isinstance(rec.metadata, dict) else {}
    if spec.metadata is not None and not spec.metadata.ok(metadata):
        state.report(
            codes.BAD_METADATA, rec, f"{where} metadata is {show(metadata)}: {spec.metadata.says}"
        )
    _order(state, spec, rec, where)
    if spec.target is not None and spec.target.ok(rec.value):
        _reached(state, rec)
    if spec.collect is not None:
        collected = state.collected.setdefault(rec.key, Counter())
        collected[str(metadata.get(spec.collect[0]))] += 1
    for advisory in spec.advisories:
        subject = rec.value if advisory.subject == "value" else metadata
        named = advisory.fragment.schema.get("properties")
        if advisory.subject == "metadata" and named:  # show what the rule is about
            subject = {k: metadata.get(k) for k in sorted(named)}
        if not advisory.fragment.ok(subject):
            state.report(
                codes.TABLE[advisory.code],
                rec,
                f"{where} {advisory.subject} is {show(subject)}: {advisory.fragment.says}",
            )


def _hint(value: Any, schema: Schema) -> str:
    """A misspelled name among a rule's allowed strings (a benchmark, a division)."""
    if not isinstance(value, str):
        return ""
    allowed = schema.get("enum", [schema["const"]] if "const" in schema else [])
    return did_you_mean(value, [a for a in allowed if isinstance(a, str)])


def _unknown_benchmark(state: _State, spec: KeySpec, rec: Record) -> None:
    """One error naming the rounds that have the benchmark; its rules are not applied."""
    from .benchmarks import rounds_with

    division = spec.section if spec.section in ("closed", "open") else ""
    rounds = rounds_with(rec.value)
    where = f"{division} division" if division else "any division"
    if rounds:
        elsewhere = f"; rounds that have it: {', '.join(rounds)}"
    else:
        hint = _hint(rec.value, spec.value.schema if spec.value else {})
        elsewhere = f"; no round has it{hint}"
    state.report(
        codes.UNKNOWN_BENCHMARK,
        rec,
        f"submission_benchmark is {show(rec.value)}: not a benchmark of "
        f"{state.ruleset} ({where}){elsewhere}",
    )


def _reached(state: _State, rec: Record) -> None:
    """A record meets its key's quality target; before run_stop (file order: an
    aggregate's virtual record is at its last component's line) or after it."""
    stop = state.seen.get("run_stop")
    if stop is not None and rec.line > stop.first.line:
        if rec.key not in state.reached:
            state.late_reached.setdefault(rec.key, rec)
        return
    state.reached.add(rec.key)
    state.late_reached.pop(rec.key, None)


def _order(state: _State, spec: KeySpec, rec: Record, where: str) -> None:
    for before in spec.after:
        if before not in state.seen:
            state.report(codes.OUT_OF_ORDER, rec, f"{where} comes before any {before}")
    for later in spec.not_after:
        if later in state.seen:
            first = state.seen[later].first
            state.report(
                codes.OUT_OF_ORDER, rec, f"{where} comes after {later} (line {first.line})"
            )
    if spec.within is not None:
        since, limit = spec.within
        start = state.first_ts.get(since)
        if start is not None and rec.timestamp_ms - start >= limit:
            minutes = (rec.timestamp_ms - start) / 60000
            state.report(
                codes.INIT_TOO_LONG,
                rec,
                f"{where} is {minutes:.1f} min after the first {since}, "
                f"must be < {limit / 60000:g} min",
            )


def _finish(state: _State, sections: list[Section]) -> None:
    for key, spec in sorted(state.specs.items()):
        found = state.seen.get(key)
        _occurrence(state, spec, found)
        late = state.late_reached.get(key)
        if spec.target is not None and late is not None and key not in state.reached:
            stop = state.seen["run_stop"].first
            state.report(
                codes.TARGET_AFTER_STOP,
                late,
                f"{spec.label}: {key} reaches the quality target ({spec.target.says}) only "
                f"after run_stop (line {stop.line}): the official tools count the run as "
                "converged, but its timed part never reached the target",
            )
        elif spec.target is not None and found is not None and key not in state.reached:
            last = found.last
            state.report(
                codes.TARGET_NOT_REACHED,
                last,
                f"{spec.label}: no {key} reaches the quality target "
                f"({spec.target.says}); last is {show(last.value)}",
            )
        if spec.collect is not None and found is not None:
            _collected(state, spec)
    _groups(state, sections)
    _headers(state)
    _time_warnings(state)
    if state.omitted:
        state.problems.append(omitted_problem(state.path, "compliance", state.omitted))


def omitted_problem(path: str, family: str, omitted: Counter[Severity]) -> Problem:
    """MLS019: how many problems of a family were not listed past PROBLEM_LIMIT; an error
    when errors are among them (the verdict stays what the listed and omitted say)."""
    errors = omitted[Severity.ERROR]
    message = (
        f"{sum(omitted.values()):,} more {family} problem(s) not listed ({errors:,} "
        f"error(s) among them): at most {PROBLEM_LIMIT:,} per log"
    )
    severity = Severity.ERROR if errors else None
    return RULE_PROBLEMS_OMITTED.problem(path, message, severity=severity)


def _occurrence(state: _State, spec: KeySpec, found: Occurrences | None) -> None:
    where = f"{spec.label}: {spec.key}"
    why = f" ({spec.why})" if spec.why else ""
    count = 0 if found is None else found.count
    if spec.at_least and count < spec.at_least:
        state.report(
            codes.TOO_FEW_RECORDS,
            None,
            f"{where} appears {count} times: required at least {spec.at_least}{why}",
            spec.key,
        )
    if spec.occurs in ("exactly_one", "at_least_one") and found is None:
        times = "exactly once" if spec.occurs == "exactly_one" else "at least once"
        state.report(
            codes.MISSING_KEY,
            None,
            f"{where} is missing: required {times}{why}{_misspelled(state, spec.key)}",
            spec.key,
        )
    if spec.occurs != "exactly_one" or found is None or found.count < 2:
        return
    first = found.first.value
    other = found.differs
    if other is None:
        state.report(
            codes.REPEATED_SAME,
            found.second,
            f"{where} appears {count} times with the same value (required exactly once)",
        )
    else:
        state.report(
            codes.REPEATED_DIFFERENT,
            other,
            f"{where} appears {count} times with different values: {show(other.value)} "
            f"here, {show(first)} at line {found.first.line} (required exactly once)",
        )


def _misspelled(state: _State, key: str) -> str:
    """A key the rules do not know, logged where a required key is missing: a typo?"""
    unknown = [k for k in state.seen if k not in state.specs]
    found = closest(key, unknown, cutoff=0.8)
    if not found:
        return ""
    rec = state.seen[found[0]].first
    return f"; the log has {found[0]} at line {rec.line}: did you mean {key}?"


def _collected(state: _State, spec: KeySpec) -> None:
    assert spec.collect is not None
    name, expected = spec.collect
    got = state.collected.get(spec.key, Counter())
    want = Counter(expected)
    if got != want:
        # What is wrong first, and how many were expected: the expected list is long
        # (about 160 tensors for ResNet) and is in the rule file.
        missing = sorted((want - got).elements())
        extra = sorted((got - want).elements())
        count = f"missing {len(missing)} of the {len(expected)} expected {name} values"
        state.report(
            codes.INCOMPLETE_SET,
            None,
            f"{spec.label}: {spec.key} {count}: {', '.join(missing) or '-'}; unexpected or "
            f"repeated: {', '.join(extra) or '-'}",
            spec.key,
        )


def _groups(state: _State, sections: list[Section]) -> None:
    groups: dict[frozenset[str], str] = {}
    for section in sections:
        for key, spec in section.keys.items():
            if spec.one_of:
                groups.setdefault(frozenset((key, *spec.one_of)), section.label)
    for group, label in sorted(groups.items(), key=lambda g: sorted(g[0])):
        if not any(k in state.seen for k in group):
            names = " or ".join(sorted(group))
            state.report(codes.MISSING_ALTERNATIVE, None, f"{label}: none of {names} is logged")


# Keys logged several times before run_start by design, with a different value each
# time: per-rank seeds (NVIDIA SSD: seed + rank; seeds are the results stage's MLR02x)
# and tracked_stats (mllog's statistics event, a new sub-key each time). Not MLC108.
REPEATED_BY_DESIGN = frozenset(("seed", "tracked_stats"))


def _headers(state: _State) -> None:
    for key, found in sorted(state.headers.items()):
        if key in REPEATED_BY_DESIGN:
            continue
        other = found.differs
        if other is not None:
            first = found.first
            state.report(
                codes.HEADER_CONFLICT,
                other,
                f"{key} is {show(other.value)} here but {show(first.value)} at line {first.line}",
            )


def _time_warnings(state: _State) -> None:
    if state.backwards is not None:
        rec, latest = state.backwards
        more = state.backwards_count - 1
        state.report(
            codes.TIME_BACKWARDS,
            rec,
            f"time_ms {rec.timestamp_ms:.0f} is {(latest - rec.timestamp_ms) / 1000:.1f} s before "
            f"an earlier record's" + (f" ({more} more such records)" if more else ""),
        )
    if state.zero_ts is not None:
        more = state.zero_count - 1
        state.report(
            codes.TIME_ZERO,
            state.zero_ts,
            f"{state.zero_ts.key} has time_ms 0" + (f" ({more} more records)" if more else ""),
        )


def unreadable_records(parse_problems: list[Problem]) -> list[Problem]:
    """MLC002: a record without value or metadata (parser warning MLS006) fails the log.

    The official parser indexes both fields and crashes on such a record, so the official
    verdict on the whole log is a failure; the parser reads it on, the verdict follows.
    """
    message = "the record lacks value or metadata: the official checker cannot read this log"
    return [
        codes.UNREADABLE_RECORD.problem(p.path, message, p.line, p.column)
        for p in parse_problems
        if p.rule == MISSING_VALUE_OR_METADATA.code
    ]


def promote(problems: list[Problem]) -> list[Problem]:
    """--strict: every compliance warning becomes an error: the checks beyond the official
    ones (``beyond`` in the rule table) and the failures a round's rule data relaxes to
    warnings (a round's own tool passed them, today's fails them: docs/differences.md);
    and the count of compliance problems not listed (MLS019), which may hold them."""
    promoted = {**codes.TABLE, RULE_PROBLEMS_OMITTED.code: RULE_PROBLEMS_OMITTED}
    return [
        promoted[p.rule].problem(
            p.path, p.message, p.line, p.column, severity=Severity.ERROR, text=p.text
        )
        if p.severity is Severity.WARNING and p.rule in promoted
        else p
        for p in problems
    ]
