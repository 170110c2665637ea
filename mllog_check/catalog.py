"""The one table of every rule code mllog-check reports, and its one registration helper.

Code families (the letter after ``ML`` names the stage that reports it): ``MLS``
syntax (``syntax_codes.py``), ``MLC`` compliance (``rules/codes.py``, example logs in
``rules/examples.py``), ``MLR`` results (``results/codes.py``), ``MLP`` package and
``MLA`` audit anomalies (``submission/codes.py``), ``MLE`` power logs and energy with
their ``MLA`` anomaly kinds (``power/codes.py``). Each of these modules is one table of
``rule(...)`` calls and nothing else registers: ``rule`` is the only way into the table.

Adding a code (docs/design.md, "Rule codes"): one ``rule(...)`` entry in its family's
module (code, name, severity, summary, ``stage``, ``why``, ``beyond`` and the passing and
failing examples; compliance codes give their examples in ``rules/examples.py:EXAMPLES``
instead, so that a single-file check never builds them), then regenerate docs/codes.md
(``python scripts/codes_doc.py > docs/codes.md``). ``tests/test_catalog.py`` runs both
examples through the stage that owns the rule.
"""

from __future__ import annotations

from collections.abc import Iterator

from .problems import NO_CONTEXT, Context, Problem, Severity
from .values import Value

# Public sources a rule's rationale cites (with the project's own docs/ pages).
TRAINING_RULES = "https://github.com/mlcommons/training_policies/blob/master/training_rules.adoc"
SUBMISSION_RULES = "https://github.com/mlcommons/policies/blob/master/submission_rules.adoc"
LOGGING = "https://github.com/mlcommons/logging"
# The generated page of every code (scripts/codes_doc.py); each code has its own section.
CODES_DOC = "https://github.com/mllog-check/mllog-check/blob/main/docs/codes.md"
# A rule's lifecycle (as ruff's): stable, or preview (shown only with --preview).
STABLE, PREVIEW = "stable", "preview"
LIFECYCLES = (STABLE, PREVIEW)


class RuleInfo(Value):
    """A rule's table entry (a Value, not a dataclass: start-up time, docs/design.md)."""

    __slots__ = (
        "code",
        "name",
        "severity",
        "summary",
        "good_example",
        "bad_example",
        "stage",
        "rationale",
        "beyond",
        "audits",
        "lifecycle",
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
        # Beyond the official verdict: a warning for a check the round's official tools do
        # not make (or only warn about, MLC101), which --strict makes an error; the package
        # counts these apart from its official verdict (docs/differences.md).
        beyond: bool = False,
        # An audit anomaly kind (MLA): the codes of other stages' problems the audit shows
        # as an anomaly of this kind (MLP004 stray file -> MLA011 stray-file).
        audits: tuple[str, ...] = (),
        # ruff's rule stages: a preview rule is reported only when asked (--preview,
        # ``preview = true`` in [tool.mllog-check]); a beyond-official check is stable once
        # its firings on the corpus are documented in docs/differences.md.
        lifecycle: str = "stable",
    ) -> None:
        self.code = code
        self.name = name
        self.severity = severity
        self.summary = summary
        self.good_example = good_example
        self.bad_example = bad_example
        self.stage = stage
        self.rationale = rationale
        self.beyond = beyond
        self.audits = audits
        self.lifecycle = lifecycle

    @property
    def preview(self) -> bool:
        """Reported only with --preview (docs/design.md, "Selection and preview")."""
        return self.lifecycle == PREVIEW

    @property
    def family(self) -> str:
        """MLS, MLC, MLR, MLP, MLA or MLE: the stage that reports it."""
        return self.code[:3]

    @property
    def heading(self) -> str:
        """The code's section heading in docs/codes.md."""
        return f"{self.code} `{self.name}`"

    @property
    def anchor(self) -> str:
        """The heading's anchor as GitHub makes it (lower case, spaces to hyphens, the
        backticks dropped; a name is lower-case words joined by hyphens)."""
        return f"{self.code.lower()}-{self.name}"

    @property
    def help_uri(self) -> str:
        """Where the code is explained: its own section of docs/codes.md (SARIF helpUri)."""
        return f"{CODES_DOC}#{self.anchor}"

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


class Retired(Value):
    """A code no longer reported, kept so that it is never given out again: codes are
    stable (docs/design.md, "Rule codes"); docs/codes.md lists these apart. Made only
    by ``retire``, in the table module of the code's family."""

    __slots__ = ("code", "name", "why", "version")

    def __init__(self, code: str, name: str, why: str, version: str) -> None:
        self.code = code
        self.name = name
        self.why = why  # why it is no longer reported
        self.version = version  # the mllog-check version that retired it


_RULES: dict[str, RuleInfo] = {}
_NAMES: dict[str, str] = {}  # name -> code
_RETIRED: dict[str, Retired] = {}  # code -> entry
_RETIRED_NAMES: dict[str, Retired] = {}  # name -> entry


def rule(
    code: str,
    name: str,
    severity: Severity,
    summary: str,
    *,
    stage: str,
    why: str,
    good: str = "",
    bad: str = "",
    beyond: bool = False,
    audits: tuple[RuleInfo, ...] = (),
    lifecycle: str = STABLE,
) -> RuleInfo:
    """Register one rule code: the only way into the table (codes and names are unique
    for the whole project). ``good``/``bad``: the passing and failing example, empty for
    a compliance code (``rules/examples.py:EXAMPLES`` gives them) or a rule no input
    triggers (tests/test_catalog.py's EMPTY_EXAMPLE_REASONS). A retired code or name
    (``retire``) is refused."""
    codes = tuple(other.code for other in audits)
    if lifecycle not in LIFECYCLES:
        raise ValueError(f"rule {code}: lifecycle {lifecycle!r} is not one of {LIFECYCLES}")
    if lifecycle == PREVIEW and not beyond:
        # Only a check beyond the official tools may wait in preview: an official error
        # is always reported (docs/design.md, "Selection and preview").
        raise ValueError(f"rule {code}: only a beyond-official rule can be in preview")
    info = RuleInfo(code, name, severity, summary, good, bad, stage, why, beyond, codes, lifecycle)
    retired = _RETIRED.get(code) or _RETIRED_NAMES.get(name)
    if retired is not None:
        raise ValueError(
            f"rule {code} {name}: {retired.code} {retired.name} was retired in "
            f"{retired.version}; codes and names are never reused"
        )
    if code in _RULES:
        raise ValueError(f"rule code {code} registered twice")
    if _NAMES.setdefault(name, code) != code:
        raise ValueError(f"rule name {name} registered twice")
    _RULES[code] = info
    return info


def retire(code: str, name: str, *, why: str, version: str) -> Retired:
    """Keep a code no longer reported out of the table for good: ``rule`` refuses its code
    and its name from now on (a family module retires its codes before its entries).
    ``why``: why it is no longer reported; ``version``: the mllog-check version that
    retired it."""
    if code in _RULES or _NAMES.get(name, code) != code:
        raise ValueError(f"rule {code} {name} is registered: remove its entry to retire it")
    if code in _RETIRED or name in _RETIRED_NAMES:
        raise ValueError(f"rule {code} {name} retired twice")
    entry = _RETIRED[code] = _RETIRED_NAMES[name] = Retired(code, name, why, version)
    return entry


def retired() -> list[Retired]:
    """Every retired code, sorted by code (loads every table)."""
    load_all()
    return [_RETIRED[c] for c in sorted(_RETIRED)]


def get(code: str) -> RuleInfo:
    """A code's entry, with its examples (loads every table)."""
    load_all()
    return _RULES[code]


def audited_as(code: str) -> RuleInfo | None:
    """The audit anomaly kind (an MLA entry's ``audits``) that shows a problem of this
    code, None when the audit does not show it as its own kind (loads every table)."""
    return _audited().get(code)


def _audited() -> dict[str, RuleInfo]:
    global _AUDITED
    if _AUDITED is None:
        load_all()
        _AUDITED = {code: info for info in _RULES.values() for code in info.audits}
    return _AUDITED


_AUDITED: dict[str, RuleInfo] | None = None


def registered(code: str) -> RuleInfo | None:
    """A code's entry when its table module is imported (a problem's code always is:
    its stage made it from the entry), else None; loads nothing (the check path)."""
    return _RULES.get(code)


def load_tables() -> None:
    """Import every table module, without the compliance codes' example logs (what a
    selection of codes needs to know which exist: ``selection.py``)."""
    import importlib

    for module in _TABLES:
        importlib.import_module(module)


def codes() -> list[str]:
    """Every registered code, sorted (loads every table, no examples)."""
    load_tables()
    return sorted(_RULES)


def retired_entry(code: str) -> Retired | None:
    """The retired entry of a code (loads every table), None when it is not retired."""
    load_tables()
    return _RETIRED.get(code)


def family(prefix: str) -> dict[str, RuleInfo]:
    """The entries registered so far whose code starts with ``prefix`` (a stage's own
    table once its module is imported; no examples loaded)."""
    return {code: info for code, info in _RULES.items() if code.startswith(prefix)}


def all_rules() -> Iterator[RuleInfo]:
    """Every entry, sorted by code, with its examples (loads every table)."""
    load_all()
    yield from (_RULES[c] for c in sorted(_RULES))


_loaded = False


def load_all() -> None:
    """Import every table module, then the example logs of the compliance codes (for
    docs, reporters and tests; never on the check path). Idempotent."""
    global _loaded
    if _loaded:
        return
    import importlib

    for module in _TABLES:
        importlib.import_module(module)
    for module in _EXAMPLES:
        examples: dict[str, tuple[str, str]] = importlib.import_module(module).EXAMPLES
        for code, (good, bad) in examples.items():
            _RULES[code] = _RULES[code].replace(good_example=good, bad_example=bad)
    _loaded = True


# The table modules, one per family (each a list of rule(...) calls).
_TABLES = [
    "mllog_check.syntax_codes",
    "mllog_check.rules.codes",
    "mllog_check.results.codes",
    "mllog_check.submission.codes",
    "mllog_check.power.codes",
]
# Examples kept out of a table so that importing it stays cheap: code -> (good, bad).
_EXAMPLES = ["mllog_check.rules.examples"]
