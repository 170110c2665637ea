"""Checking a log with the round chosen for it (``--ruleset auto``, a flag or a setting).

The choice itself (flag > project setting > round folder > content) and every round
fact live in the round registry, ``mllog_check.rounds``; this module applies the
choice to the compliance stage: a round without rules (v0.5) gets a parse-only verdict,
a round whose rules this build lacks raises (a usage error, never a pass).
"""

from __future__ import annotations

from ..records import ParseResult
from ..rounds import Choice, RoundError, Setting, choose

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..records import Record
    from ..rounds import Round
    from . import LogVerdict


class RulesUnavailable(RoundError):
    """The round chosen has compliance rules, but not in this build: the check cannot run."""


def check_chosen(
    result: ParseResult,
    flag: str | None = "auto",
    *,
    strict: bool = False,
    setting: Setting | None = None,
) -> tuple[LogVerdict, Choice]:
    """Check one parsed log with the round chosen for it.

    RoundError when nothing tells the round; RulesUnavailable when its rules are not in
    this build. A round that has no compliance rules at all (v0.5) gets a parse-only verdict.
    """
    from . import check_log

    choice = choose(result.path, result.records, flag, setting)
    rnd = choice.round
    if not rnd.has("rules"):
        # Parse checks only are what such a round's own logs get; a log of another
        # syntax named with it (--ruleset v0.5, a slip for v5.0) is never a pass.
        mismatch = syntax_mismatch(result.records, rnd)
        if mismatch is not None:
            raise RoundError(f"{result.path}: {mismatch} (from {choice.source}: {choice.reason})")
        return parse_only(result, rnd.ruleset), choice
    if not rnd.has_rules():
        raise RulesUnavailable(
            f"{result.path}: {rnd.missing('rules')} (chosen from {choice.source}: "
            f"{choice.reason}); not checked"
        )
    return check_log(result, rnd, strict=strict), choice  # the Round, chosen once


def not_a_log(result: ParseResult, ruleset: str = "") -> LogVerdict:
    """The verdict of a readable file without a single MLPerf record: MLC001 alone (no
    round is needed to say so, and no rule of one would add anything); ``ruleset`` the
    round's rules when one was chosen (``check_log`` gives the same verdict then)."""
    from . import LogVerdict
    from .codes import NO_RECORDS
    from .engine import no_records_message

    problem = NO_RECORDS.problem(result.path, no_records_message(list(result.problems)))
    return LogVerdict(
        path=result.path,
        passed=False,
        division=None,
        benchmark=None,
        ruleset=ruleset,
        problems=sorted([*result.problems, problem]),
    )


def parse_only(result: ParseResult, ruleset: str) -> LogVerdict:
    """The verdict of the parse alone (no compliance rules apply, or none could be chosen)."""
    from . import LogVerdict

    return LogVerdict(
        path=result.path,
        passed=result.ok,
        division=None,
        benchmark=None,
        ruleset=ruleset,
        problems=sorted(result.problems),
    )


def syntax_mismatch(records: Sequence[Record], rnd: Round) -> str | None:
    """Why a round cannot be the log's: its records are of another syntax generation
    (with a guess of the round meant); None when they fit or there are none."""
    from ..rounds import from_records, marker_of, rounds_of_generation

    generations = {str(r.generation) for r in records}
    if not generations or rnd.generation in generations:
        return None
    allowed = [v for g in sorted(generations) for v in rounds_of_generation(g)]
    try:
        fits = from_records(records)
    except RoundError:
        fits = None
    shown = ", ".join(marker_of(g) for g in sorted(generations))
    return (
        f"round {rnd.version} is written {marker_of(rnd.generation)}, this log {shown}: "
        f"it cannot be the log's round{_meant(rnd.version, allowed, fits)}; pass the "
        "round of the log"
    )


def _meant(version: str, allowed: list[str], fits: Choice | None) -> str:
    """' (did you mean 5.0.0?)': a round of the log's syntax spelled with the same digits
    (v0.5 for v5.0), else the one its content and date give."""
    digits = sorted(version.replace(".", ""))
    same = [v for v in allowed if sorted(v.replace(".", "")) == digits]
    guess = same[0] if same else (fits.ruleset if fits is not None else None)
    return f" (did you mean {guess}?)" if guess else ""
