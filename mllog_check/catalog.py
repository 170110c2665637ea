"""The explicit registry of every rule mllog-check reports, with stable codes.

Code families (the letter after ``ML`` names the stage that reports it):
``MLS`` syntax (parser), ``MLC`` compliance rules, ``MLR`` results (scores, RCP,
seeds), ``MLP`` package layout and system descriptions, ``MLA`` audit anomalies,
``MLE`` energy: power logs and energy to train (``mllog_check/power/codes.py``).

Every rule carries a passing and a failing example so that its doc is checked:
``tests/test_catalog.py`` runs both through the stage that owns the rule.
"""

from __future__ import annotations

from collections.abc import Iterator

from .problems import NO_CONTEXT, Context, Problem, Severity
from .values import Value

# Public sources a rule's rationale cites (with the project's own docs/ pages).
TRAINING_RULES = "https://github.com/mlcommons/training_policies/blob/master/training_rules.adoc"
SUBMISSION_RULES = "https://github.com/mlcommons/policies/blob/master/submission_rules.adoc"
LOGGING = "https://github.com/mlcommons/logging"


class RuleInfo(Value):
    """A rule's registry entry (a Value, not a dataclass: start-up time, docs/design.md)."""

    __slots__ = (
        "code",
        "name",
        "severity",
        "summary",
        "good_example",
        "bad_example",
        "stage",
        "rationale",
    )

    def __init__(
        self,
        code: str,
        name: str,
        severity: Severity,
        summary: str,
        # A log (or other input) the rule accepts, and one it reports. Text, not code.
        good_example: str,
        bad_example: str,
        # Which stage runs the examples: "parse", "check", "score", "package".
        stage: str = "parse",
        # Why the rule exists, citing the rules or official tools (docs/codes.md shows it).
        rationale: str = "",
    ) -> None:
        self.code = code
        self.name = name
        self.severity = severity
        self.summary = summary
        self.good_example = good_example
        self.bad_example = bad_example
        self.stage = stage
        self.rationale = rationale

    def problem(
        self,
        path: str,
        message: str,
        line: int = 0,
        column: int = 0,
        *,
        severity: Severity | None = None,
        text: str = "",
        context: Context = NO_CONTEXT,
    ) -> Problem:
        """The Problem this rule reports: its code and name stamped on it (as yamllint's
        linter stamps each rule's id). ``severity`` overrides the registered one (a
        warning that ``--strict`` or the round's tool makes an error) where it happens;
        ``context`` places an audit anomaly (org, system, benchmark)."""
        return Problem(
            path,
            line,
            column,
            self.code,
            severity or self.severity,
            message,
            self.name,
            text,
            context,
        )


_RULES: dict[str, RuleInfo] = {}


def register(info: RuleInfo) -> RuleInfo:
    """Add a rule; codes and names are unique for the whole project."""
    existing = _RULES.get(info.code)
    if existing is not None and existing != info:
        raise ValueError(f"rule code {info.code} registered twice")
    if any(r.name == info.name and r.code != info.code for r in _RULES.values()):
        raise ValueError(f"rule name {info.name} registered twice")
    _RULES[info.code] = info
    return info


def get(code: str) -> RuleInfo:
    return _RULES[code]


def all_rules() -> Iterator[RuleInfo]:
    yield from (_RULES[c] for c in sorted(_RULES))


def load_all() -> None:
    """Import every module that registers rules (for docs and tests)."""
    import importlib

    for module in _RULE_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:  # a stage not built yet in this checkout
            if exc.name != module:
                raise


# Modules that register rules; each stage adds itself here.
_RULE_MODULES = [
    "mllog_check.parsing.syntax_rules",
    "mllog_check.rules.catalog_entries",
    "mllog_check.submission.codes",
    "mllog_check.results.codes",
    "mllog_check.power.codes",
]
