"""Check paths for compliance, the library call behind ``mllog-check check``.

``check_paths(paths)`` walks the paths (result logs only in directories, as the
official tools name them), chooses each log's round (``mllog_check.rounds``), checks
it and returns the verdicts with what the command says about them: the choice and its
source per log (for ``-v``), the notes it always prints (the newest of several rounds
taken, a round without rules), and the exit code. It prints nothing.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from pathlib import Path

from .rounds import Choice, Setting, earlier_window

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from .inputs import Source
    from .problems import Problem
    from .records import ParseResult, Record
    from .rules import LogVerdict

# Inside a directory, these files are result logs, as the official tools name them
# (explicitly named files are always checked; ``include`` adds other names). Not "*.log":
# the official checker writes compliance_checker.log into the folder it runs in.
RESULT_PATTERNS = ("result_*.txt", "result_*.txt.gz")
EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
# What a submitter must know before uploading a gzip log `check` accepted (docs/package.md).
GZIP_NOTE = (
    "a gzip log cannot be uploaded as is: the official package checker reads only plain "
    "result_*.txt (decompress it; `package` does not count it as a run)"
)


def is_result_log(path: Path, extra: tuple[str, ...] = ()) -> bool:
    return any(fnmatch.fnmatch(path.name, pattern) for pattern in RESULT_PATTERNS + extra)


class CheckRun:
    """The outcome of checking paths: verdicts, per-log choices and notes, an exit code."""

    __slots__ = ("input_error", "logs", "messages", "verdicts")

    def __init__(self) -> None:
        self.verdicts: list[LogVerdict] = []  # in input order
        # What the command tells on stderr, in order: (verbose only?, line). Verbose lines
        # say which round each log got and why; the others (notes) are always shown.
        self.messages: list[tuple[bool, str]] = []
        self.input_error = False
        self.logs = 0  # files read that hold MLPerf records

    def __repr__(self) -> str:
        return f"CheckRun(verdicts={self.verdicts!r}, messages={self.messages!r})"

    def lines(self, verbose: bool = False) -> list[str]:
        return [line for only_verbose, line in self.messages if verbose or not only_verbose]

    @property
    def exit_code(self) -> int:
        if self.input_error or not self.verdicts or not self.logs:
            return EXIT_USAGE  # nothing read, or nothing read was an MLPerf log
        return EXIT_OK if all(v.passed for v in self.verdicts) else EXIT_PROBLEMS


def check_paths(
    paths: Sequence[str],
    ruleset: str = "auto",
    *,
    strict: bool = False,
    include: tuple[str, ...] = (),
    setting: Setting | None = None,
) -> CheckRun:
    """Check every result log below ``paths`` with its round's rules.

    ``ruleset``: a round in any spelling, "auto" (``setting``, a round folder, the log's
    content) or a rule file path (``.yaml``). Raises RoundError (no evidence for a round,
    or its rules not in this build: never a pass) and UnknownRuleset (a rule file that
    does not load), both MllogCheckError; bad input is a Problem in the verdicts.
    """
    from .inputs import expand
    from .parsing import parse_source
    from .records import ParseResult
    from .rules import check_log, detect, load_ruleset

    custom = ruleset.endswith(".yaml")  # a rule file given by path: no round to choose
    if custom:
        load_ruleset(ruleset)
    run = CheckRun()
    sources, input_problems = expand(list(paths), accept=lambda path: is_result_log(path, include))
    for problem in input_problems:
        result = ParseResult(path=problem.path, input_error=problem.is_error)
        result.problems.append(problem)
        run.input_error |= problem.is_error
        run.verdicts.append(detect.parse_only(result, ruleset))  # nothing read: no round
    for source in sources:
        streamed = _streamed(source, ruleset, strict, setting) if source.path else None
        if streamed is not None:
            result, witnesses, verdict, found = streamed
        else:  # stdin, or a log the walk could not check as it came: every record held
            result = parse_source(source)
            witnesses = result.records
            verdict = found = None
        run.input_error |= result.input_error
        if not witnesses and not result.input_error:  # README.md: MLC001 alone
            run.verdicts.append(_not_a_log(result, ruleset, setting))
            continue
        run.logs += 1
        if result.path.endswith(".gz"):
            run.messages.append((False, f"{result.path}: note: {GZIP_NOTE}"))
        if custom:
            run.messages.append((True, f"{result.path}: ruleset {ruleset} (from flag: --ruleset)"))
            run.verdicts.append(verdict or check_log(result, ruleset, strict=strict))
            continue
        if verdict is None or found is None:
            verdict, found = detect.check_chosen(result, ruleset, strict=strict, setting=setting)
            verdict = with_cadence(result, verdict, found.round.folder, strict)
        run.messages.append((True, f"{result.path}: {found.describe()}"))
        run.messages.extend((False, note) for note in _notes(result.path, found, witnesses))
        verdict = verdict.replace(ruleset_source=found.source)
        run.verdicts.append(with_folder_check(result, verdict, strict, witnesses))
        for alternative in found.alternatives:
            other = _alternative(source, result, alternative, strict)
            if other is None:
                continue
            note, differs = uncertain(result.path, (found.ruleset, verdict), (alternative, other))
            run.messages.append((False, note))
            if differs:  # both verdicts reported, neither guessed
                other = other.replace(ruleset_source=ALTERNATIVE)
                run.verdicts.append(with_folder_check(result, other, strict, witnesses))
    return run


# The ruleset_source of the second verdict of a log whose round is uncertain.
ALTERNATIVE = "alternative"


def _alternative(
    source: Source, result: ParseResult, version: str, strict: bool
) -> LogVerdict | None:
    """The log's verdict under another round its content and date allow (read again for a
    file, as the first check did not hold its records); None when that round has no
    rules in this build."""
    from .parsing import parse_source
    from .rounds import parse_round
    from .rules import check_log

    if not parse_round(version).has_rules():
        return None
    if not source.path:  # stdin: its records are held
        return check_log(result, version, strict=strict)
    streamed = _streamed(source, version, strict, None, cadence=False)
    if streamed is not None and streamed[2] is not None:
        return streamed[2]
    return check_log(parse_source(source), version, strict=strict)


def uncertain(
    path: str, first: tuple[str, LogVerdict], second: tuple[str, LogVerdict]
) -> tuple[str, bool]:
    """The note for a log whose round is uncertain (docs/rounds.md, "Choosing the round"):
    the round its date gives and the next one, each with its verdict; and whether the
    verdicts differ (pass or fail, or the errors found)."""
    (chosen_round, chosen), (other_round, other) = first, second

    def errors(verdict: LogVerdict) -> list[tuple[str, int]]:
        return [(p.rule, p.line) for p in verdict.problems if p.is_error]

    def said(verdict: LogVerdict) -> str:
        return "passes" if verdict.passed else "fails"

    head = (
        f"{path}: note: round uncertain: the run's date gives {chosen_round}, and a run "
        f"re-used in the next round would be {other_round}'s"
    )
    if chosen.passed == other.passed and errors(chosen) == errors(other):
        return f"{head}; both give the same verdict ({said(chosen)}): it does not matter", False
    return (
        f"{head}; the verdicts differ ({chosen_round} {said(chosen)}, {other_round} "
        f"{said(other)}): both are reported; pass --ruleset to choose",
        True,
    )


def _streamed(
    source: Source, ruleset: str, strict: bool, setting: Setting | None, cadence: bool = True
) -> tuple[ParseResult, list[Record], LogVerdict | None, Choice | None] | None:
    """A file's check with its records streamed from the parser into the engine, never
    all held (docs/design.md, memory): the parse without records, the witness records
    (those the folder check and the round's choice read; none for a file without
    records), the verdict and the choice. None when the walk could not give ``check``'s
    verdict (the caller checks the file again, holding its records)."""
    from .parsing import RecordStream
    from .rules.stream import Walk

    stream = RecordStream(source)
    walk = Walk(source.display, ruleset, setting)
    kept = CadenceRecords(cadence)
    for records in stream.batches():
        walk.add_all(records)
        kept.add(records, walk.texts)
    result = stream.result
    if not walk.count:  # not a log, or unreadable: as check_paths does without the walk
        return result, [], None, None
    done = walk.verdict(result, strict)
    if done is None:
        return None
    verdict, found = done
    if found is not None and kept.records is not None:  # the round's cadence, one log
        from .records import ParseResult

        held = ParseResult(path=result.path, records=kept.records)
        verdict = with_cadence(held, verdict, found.round.folder, strict)
    return result, walk.witnesses, verdict, found


class CadenceRecords:
    """What the evaluation cadence (MLR060) reads of a closed log, kept as the log streams
    by: its quality, epoch and run records (``results.cadence.READS``), not the log."""

    __slots__ = ("keys", "records")

    def __init__(self, wanted: bool = True) -> None:
        self.records: list[Record] | None = [] if wanted else None  # None: not kept
        self.keys: frozenset[str] | None = None

    def add(self, records: list[Record], texts: dict[str, str | None]) -> None:
        if self.records is None:
            return
        division = texts.get(_DIVISION, "closed")
        if division != "closed":  # the first division logged decides (LogVerdict.division)
            self.records = None
            return
        if self.keys is None:
            from .results.cadence import reads

            self.keys = reads()
        keys = self.keys
        self.records += [r for r in records if r.key in keys]


_DIVISION = "submission_division"


def with_cadence(result: ParseResult, verdict: LogVerdict, folder: str, strict: bool) -> LogVerdict:
    """The verdict with MLR060 where the log alone decides it: a closed log whose round
    (``folder``, ``v1.0``) states an evaluation schedule for its benchmark (beyond the
    official checks: an error only with --strict); ``check`` and ``check --follow``.
    ``result``: the log's records (those ``results.cadence.READS`` names suffice)."""
    if verdict.division != "closed" or not verdict.benchmark:
        return verdict
    from .results.cadence import log_problems

    found = log_problems(result, folder, verdict.benchmark, verdict.division)
    if not found:
        return verdict
    if strict:
        from .problems import Severity

        found = [p.replace(severity=Severity.ERROR) for p in found]
    problems = sorted([*verdict.problems, *found])
    return verdict.replace(problems=problems, passed=verdict.passed and not strict)


def with_folder_check(
    result: ParseResult,
    verdict: LogVerdict,
    strict: bool,
    records: Sequence[Record] | None = None,
) -> LogVerdict:
    """The verdict with MLP024 when the log's folder names another benchmark (beyond the
    official checks: an error only with --strict); ``check`` and ``check --follow``.
    ``records``: the log's records when ``result`` does not hold them (its first
    ``submission_benchmark`` among them)."""
    mismatch = folder_mismatch(result, records)
    if mismatch is None:
        return verdict
    if strict:
        from .problems import Severity

        mismatch = mismatch.replace(severity=Severity.ERROR)
    problems = sorted([*verdict.problems, mismatch])
    return verdict.replace(problems=problems, passed=verdict.passed and not strict)


def folder_mismatch(result: ParseResult, records: Sequence[Record] | None = None) -> Problem | None:
    """MLP024 (a warning) for a log in a benchmark folder (``.../rgat/result_0.txt``) that
    declares another benchmark: the package checks and scores it as the folder's, so the
    hook says so before upload (docs/package.md)."""
    from .rounds import all_rounds

    folder = Path(result.path).parent.name.lower()
    names = {n for rnd in all_rounds() if (b := rnd.benchmark(folder)) for n in b.all_names}
    if not names:  # not a benchmark folder: nothing to compare with
        return None
    found = result.records if records is None else records
    declared = next((r for r in found if r.key == "submission_benchmark"), None)
    if declared is None or not isinstance(declared.value, str):
        return None
    if declared.value.strip().lower() in names:
        return None
    from .submission.codes import BENCHMARK_MISMATCH  # only when there is one to report

    message = (
        f"submission_benchmark is {declared.value!r}; its benchmark folder says {folder!r} "
        "(the package checks and scores it as that folder's benchmark)"
    )
    return BENCHMARK_MISMATCH.problem(result.path, message, declared.line, 1)


def _not_a_log(result: ParseResult, ruleset: str, setting: Setting | None) -> LogVerdict:
    """MLC001 alone, under the round a flag, setting or folder names when one does (the
    verdict ``check_log`` gives with that round); no round needed otherwise."""
    from .rounds import RoundError, choose
    from .rules import detect

    if ruleset.endswith(".yaml"):
        return detect.not_a_log(result)
    try:
        found = choose(result.path, (), ruleset, setting)
    except RoundError:
        return detect.not_a_log(result)
    rules = found.round.ruleset if found.round.has("rules") else ""
    return detect.not_a_log(result, rules).replace(ruleset_source=found.source)


def _notes(path: str, found: Choice, records: Sequence[Record]) -> list[str]:
    notes = [f"{path}: note: {found.note}"] if found.note else []
    window = earlier_window(found, records)
    if window is not None:
        notes.append(f"{path}: note: {window}")
    if not found.round.has("rules"):
        notes.append(
            f"{path}: no compliance rules exist for round {found.ruleset}; parse checks only"
        )
    return notes
