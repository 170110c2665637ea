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
        return parse_only(result, rnd.ruleset), choice
    if not rnd.has_rules():
        raise RulesUnavailable(
            f"{result.path}: {rnd.missing('rules')} (chosen from {choice.source}: "
            f"{choice.reason}); not checked"
        )
    return check_log(result, rnd.version, strict=strict), choice


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
