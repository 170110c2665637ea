"""Compliance checking: a round's rules (data under schemas/rules/) applied to parsed logs.

API others build on::

    check_log(result, "1.0.0", strict=False) -> LogVerdict
    check_file(path, "1.0.0", strict=False) -> LogVerdict
    available_rulesets() -> ["training-1.0.0", ...]

``passed`` is the official verdict's equivalent: no error-severity problem
(parser errors included). Warnings (MLC1xx) do not fail a log unless ``strict``.
"""

from __future__ import annotations

from ..problems import Problem, Severity
from ..records import ParseResult
from ..rounds import Round
from ..values import Value
from .loader import RulesetError, UnknownRuleset, available_rulesets, canonical, load_ruleset

__all__ = [
    "LogVerdict",
    "RulesetError",
    "UnknownRuleset",
    "assemble",
    "available_rulesets",
    "check_file",
    "check_log",
    "load_ruleset",
]


class LogVerdict(Value):
    __slots__ = ("path", "passed", "division", "benchmark", "ruleset", "problems", "ruleset_source")

    def __init__(
        self,
        path: str,
        passed: bool,
        division: str | None,
        benchmark: str | None,
        ruleset: str,
        problems: list[Problem],
        # Where the round came from (flag, config, folder, content, date, newest; alternative:
        # the second verdict of a log whose round is uncertain, checking.uncertain).
        ruleset_source: str = "",
    ) -> None:
        self.path = path
        self.passed = passed
        self.division = division
        self.benchmark = benchmark
        self.ruleset = ruleset
        self.problems = problems
        self.ruleset_source = ruleset_source

    @property
    def chain(self) -> str:
        return f"{self.division or '?'} {self.benchmark or '?'}"


def check_log(
    result: ParseResult, ruleset: str | Round = "auto", *, strict: bool = False
) -> LogVerdict:
    """Check one parsed log against a round's rules; problems sorted, parser's included.

    ``ruleset`` is a Round (the package checker's: chosen once), a round in any spelling
    ("1.0.0", "v1.0", "training-1.0.0"), a rule file path, or "auto" (the round its path
    or content tells: ``mllog_check.rounds``). UnknownRuleset for a round whose rules
    this build lacks; RoundError for "auto" without evidence.
    """
    from . import engine

    if isinstance(ruleset, str) and ruleset.strip().lower() == "auto":
        from .detect import check_chosen

        return check_chosen(result, "auto", strict=strict)[0]
    rules = load_ruleset(ruleset)
    # An unreadable input has only its input error: rules on no records would just add noise.
    found = [] if result.input_error else engine.run(rules, result.path, result.records)[0]
    first = {k: _first_text(result, k) for k in ("submission_division", "submission_benchmark")}
    rnd = ruleset if isinstance(ruleset, Round) else None
    return assemble(result, found, result.generation(), rules.name, first, strict=strict, rnd=rnd)


def assemble(
    result: ParseResult,
    found: list[Problem],
    generation: str | None,
    ruleset: str,
    first: dict[str, str | None],
    *,
    strict: bool = False,
    rnd: Round | None = None,
) -> LogVerdict:
    """The verdict of a parse (``result``: its problems and input error) and the rules'
    problems (``found``), from what the records told: the generation most use and the
    first division and benchmark (text). ``check`` and ``check --follow`` both end here.
    ``rnd``: the round of ``ruleset`` when the caller has it (else looked up)."""
    from . import engine

    found = [_named_no_records(p, result) for p in found]
    found += engine.unreadable_records(result.problems)
    found += _round_mismatch(result.path, generation, ruleset, rnd)
    problems = list(result.problems) + found
    if strict:
        problems = engine.promote(problems)
    problems.sort()
    return LogVerdict(
        path=result.path,
        passed=not result.input_error and not any(p.severity is Severity.ERROR for p in problems),
        division=first.get("submission_division"),
        benchmark=first.get("submission_benchmark"),
        ruleset=ruleset,
        problems=problems,
    )


def _named_no_records(problem: Problem, result: ParseResult) -> Problem:
    """MLC001 says why a file has no record where the parser knows (colour codes)."""
    from . import engine
    from .codes import NO_RECORDS

    if problem.rule != NO_RECORDS.code:
        return problem
    return problem.replace(message=engine.no_records_message(list(result.problems)))


def check_file(path: str, ruleset: str = "auto", *, strict: bool = False) -> LogVerdict:
    """Parse and check one file (plain or gzip)."""
    from ..parsing import parse_file

    if ruleset.strip().lower() != "auto":
        load_ruleset(canonical(ruleset))  # an unknown ruleset fails before reading the file
    return check_log(parse_file(path), ruleset, strict=strict)


def _round_mismatch(
    path: str, generation: str | None, ruleset: str, rnd: Round | None = None
) -> list[Problem]:
    """One warning when the log's syntax exists only in other rounds (a v0.6 log checked
    with the 1.0.0 rules): the many errors that follow have one cause."""
    from ..rounds import marker_of, registry, rounds_of_generation
    from . import codes

    if generation is None:
        return []
    allowed = rounds_of_generation(generation)
    rnd = rnd or registry().find(ruleset)
    version = rnd.version if rnd is not None else ""
    if not allowed or rnd is None or version in allowed:  # custom rulesets: no say
        return []
    message = (
        f"the log's {marker_of(generation)} syntax belongs to round {' / '.join(allowed)}, not "
        f"{version}: check it with --ruleset {allowed[0]} (or auto)"
    )
    return [codes.ROUND_MISMATCH.problem(path, message)]


def _first_text(result: ParseResult, key: str) -> str | None:
    for rec in result.records:
        if rec.key == key:
            return rec.value if isinstance(rec.value, str) else None
    return None
