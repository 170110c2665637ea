"""Power and energy rules (MLE): the power logs of a result's ``power/`` folder.

Errors (MLE001-MLE019) are what the official tools reject: the package checker's power
checks (a run without power logs, bad file names, node or switch counts that differ
between runs) and cases where the result summarizer cannot compute an energy (no node
log, no start, a zero-length window, a value that is not a number). Warnings
(MLE020-MLE099) go beyond them (docs/differences.md, docs/power.md).

Examples are fixture folders ``fixtures/power/<case>/resnet`` (a benchmark folder with its
result files and ``power/``); tests/catalog_examples.py checks them (tests/test_catalog.py).
"""

from __future__ import annotations

from ..catalog import RuleInfo, register
from ..problems import Problem, Severity

E, W = Severity.ERROR, Severity.WARNING
GOOD = "fixtures/power/good/resnet"


def _rule(code: str, name: str, severity: Severity, summary: str, bad: str) -> RuleInfo:
    return register(
        RuleInfo(code, name, severity, summary, GOOD, f"fixtures/power/{bad}/resnet", "power")
    )


RESULT_MISSING = _rule(
    "MLE001",
    "power-result-missing",
    E,
    "A result file has no power/result_N folder although the result has power logs "
    "(the official package checker fails it).",
    "result_missing",
)
BAD_NAME = _rule(
    "MLE002",
    "power-file-name",
    E,
    "Node and switch logs are named node_0 … node_{n-1} and sw_0 … sw_{m-1} (.txt); an "
    "index outside that range or not a number fails the official package checker.",
    "bad_name",
)
NODE_COUNT = _rule(
    "MLE003",
    "power-node-count",
    E,
    "Every run has the same number of node logs; a run differing from the most common "
    "count fails the official package checker.",
    "node_missing",
)
SWITCH_COUNT = _rule(
    "MLE004",
    "power-switch-count",
    E,
    "Every run has the same number of switch logs (official package checker).",
    "switch_missing",
)
NO_NODE = _rule(
    "MLE005",
    "power-no-node-log",
    E,
    "A power/result_N folder without any node log: the official summarizer stops on it.",
    "no_node",
)
NO_START = _rule(
    "MLE006",
    "power-start-missing",
    E,
    "A node log without power_measurement_start (an empty or cut file): the official "
    "summarizer stops on it; no energy is computed for the run.",
    "empty_log",
)
EMPTY_WINDOW = _rule(
    "MLE007",
    "power-window-empty",
    E,
    "power_measurement_stop at or before power_measurement_start: the official summarizer "
    "divides by zero (published v4.0 logs). The energy is still given, from the readings "
    "over the run, and marked as computed that way.",
    "zero_window",
)
NOT_A_NUMBER = _rule(
    "MLE008",
    "power-value-not-number",
    E,
    "A power_reading, conversion_eff or interconnect_power_est value that is not a "
    "number: the official summarizer cannot add it up; no energy for the run.",
    "not_number",
)
STRAY = _rule(
    "MLE020",
    "power-stray-file",
    W,
    "A file in power/ or power/result_N that is neither node_K.txt nor sw_K.txt (the "
    "official checker only logs it).",
    "stray",
)
DUPLICATE_INDEX = _rule(
    "MLE021",
    "power-duplicate-index",
    W,
    "Two logs of one run carry the same index (node_1.txt and node_01.txt): one node "
    "counted twice and another missing.",
    "duplicate_index",
)
UNMATCHED = _rule(
    "MLE022",
    "power-result-unmatched",
    W,
    "A power/result_N folder without result_N.txt: its logs measure no published run.",
    "unmatched",
)
NO_STOP = _rule(
    "MLE023",
    "power-stop-missing",
    W,
    "A node log without power_measurement_stop (a cut file): the official summarizer "
    "takes the last reading's time as the stop.",
    "no_stop",
)
NO_READINGS = _rule(
    "MLE024",
    "power-no-readings",
    W,
    "A node log without power_reading inside its window: its energy is zero.",
    "no_readings",
)
NOT_POSITIVE = _rule(
    "MLE025",
    "power-reading-not-positive",
    W,
    "A power_reading (or interconnect_power_est) of zero or less watts.",
    "negative",
)
EFF_RANGE = _rule(
    "MLE026",
    "conversion-eff-range",
    W,
    "conversion_eff outside (0, 1]: a power supply converts at most all it draws.",
    "eff_range",
)
EFF_MISSING = _rule(
    "MLE027",
    "conversion-eff-missing",
    W,
    "A power log without conversion_eff: the official summarizer assumes 1.",
    "eff_missing",
)
WINDOW_SHORT = _rule(
    "MLE028",
    "power-window-short",
    W,
    "The measurement window (power_measurement_start .. stop) does not cover the run "
    "(run_start .. run_stop of the matching result file).",
    "window_short",
)
GAP = _rule(
    "MLE029",
    "power-sampling-gap",
    W,
    "No reading for longer than the tolerance inside the window: max(10 s, 5 × the "
    "log's median sampling interval), counting the edges of the window.",
    "gap",
)
SWITCH_MISSING = _rule(
    "MLE030",
    "switch-estimate-missing",
    W,
    "A switch log without interconnect_power_est: it adds no energy.",
    "switch_empty",
)
SPIKE = _rule(
    "MLE031",
    "power-reading-spike",
    W,
    "A power_reading more than 10 times the log's median reading: implausible for one "
    "node (a unit or typing error).",
    "spike",
)


def problem(info: RuleInfo, path: str, message: str, line: int = 0, text: str = "") -> Problem:
    """The rule's Problem; power logs are judged by whole lines: a located one is at column 1."""
    return info.problem(path, message, line, 1 if line else 0, text=text)


# Audit anomaly kinds for power logs (docs/audit.md): each gathers the MLE problems the
# score stage found in a published result's power logs.
_AUDIT_GOOD, _AUDIT_BAD = "fixtures/audit/clean", "fixtures/audit/power"


def _kind(code: str, kind: str, summary: str) -> RuleInfo:
    return register(RuleInfo(code, kind, W, summary, _AUDIT_GOOD, _AUDIT_BAD, "audit"))


AUDIT_WINDOW = _kind(
    "MLA040",
    "power-window-not-covering-run",
    "A power log's measurement window does not cover its run (MLE028).",
)
AUDIT_GAP = _kind(
    "MLA041",
    "power-gap",
    "A power log has a stretch without readings beyond the tolerance (MLE029).",
)
AUDIT_IMPLAUSIBLE = _kind(
    "MLA042",
    "power-implausible-reading",
    "A power value that is not a number, zero or negative, ten times the median, or a "
    "conversion_eff outside (0, 1] (MLE008, MLE025, MLE026, MLE031).",
)
AUDIT_ZERO_WINDOW = _kind(
    "MLA043",
    "power-zero-window",
    "power_measurement_stop at the start's time: the official summarizer cannot score "
    "the result; the energy is computed from the readings (MLE007).",
)
AUDIT_INCOMPLETE = _kind(
    "MLA044",
    "power-logs-incomplete",
    "A run without power logs, a node or switch log missing, misnamed or empty, or a "
    "log cut before its stop (MLE001-MLE006, MLE023).",
)

AUDIT_KINDS: dict[str, RuleInfo] = {
    info.name: info
    for info in (AUDIT_WINDOW, AUDIT_GAP, AUDIT_IMPLAUSIBLE, AUDIT_ZERO_WINDOW, AUDIT_INCOMPLETE)
}
AUDIT_OF_PROBLEM: dict[str, str] = {
    WINDOW_SHORT.code: AUDIT_WINDOW.name,
    GAP.code: AUDIT_GAP.name,
    NOT_A_NUMBER.code: AUDIT_IMPLAUSIBLE.name,
    NOT_POSITIVE.code: AUDIT_IMPLAUSIBLE.name,
    EFF_RANGE.code: AUDIT_IMPLAUSIBLE.name,
    SPIKE.code: AUDIT_IMPLAUSIBLE.name,
    EMPTY_WINDOW.code: AUDIT_ZERO_WINDOW.name,
    **{
        info.code: AUDIT_INCOMPLETE.name
        for info in (RESULT_MISSING, BAD_NAME, NODE_COUNT, SWITCH_COUNT, NO_NODE, NO_START, NO_STOP)
    },
}
