"""Power and energy rules (MLE): the power logs of a result's ``power/`` folder.

Errors (MLE001-MLE019) are what the official tools reject: the package checker's power
checks (a run without power logs, bad file names, node or switch counts that differ
between runs) and cases where the result summarizer cannot compute an energy (no node
log, no start, a zero-length window, a value that is not a number). Warnings
(MLE020-MLE099) go beyond them (docs/differences.md, docs/power.md).

Examples are fixture folders ``fixtures/power/<case>/resnet`` (a benchmark folder with its
result files and ``power/``); tests/catalog_examples.py checks them (tests/test_catalog.py).
A table of ``catalog.rule`` entries (docs/design.md, "Rule codes").
"""

from __future__ import annotations

from ..catalog import LOGGING, RuleInfo, rule
from ..problems import Problem, Severity

E, W = Severity.ERROR, Severity.WARNING
GOOD = "fixtures/power/good/resnet"


RESULT_MISSING = rule(
    "MLE001",
    "power-result-missing",
    E,
    "A result file has no power/result_N folder although the result has power logs "
    "(the official package checker fails it).",
    stage="power",
    good=GOOD,
    bad="fixtures/power/result_missing/resnet",
    why=(
        "Energy to train is an olympic mean over runs, so every run needs its power logs; "
        f"the official package checker's power check ({LOGGING}) fails a run without them "
        "(docs/power.md)."
    ),
)
BAD_NAME = rule(
    "MLE002",
    "power-file-name",
    E,
    "Node and switch logs are named node_0 … node_{n-1} and sw_0 … sw_{m-1} (.txt); an "
    "index outside that range or not a number fails the official package checker.",
    stage="power",
    good=GOOD,
    bad="fixtures/power/bad_name/resnet",
    why=(
        "The official tools find power logs by these names; a log named otherwise is not "
        "counted and fails the package checker (docs/power.md)."
    ),
)
NODE_COUNT = rule(
    "MLE003",
    "power-node-count",
    E,
    "Every run has the same number of node logs; a run differing from the most common "
    "count fails the official package checker.",
    stage="power",
    good=GOOD,
    bad="fixtures/power/node_missing/resnet",
    why=(
        "Runs of one result measure the same system; a run with fewer node logs "
        "under-reports its energy. The official package checker fails it (docs/power.md)."
    ),
)
SWITCH_COUNT = rule(
    "MLE004",
    "power-switch-count",
    E,
    "Every run has the same number of switch logs (official package checker).",
    stage="power",
    good=GOOD,
    bad="fixtures/power/switch_missing/resnet",
    why=(
        "Switch power is part of the system's energy; a run with fewer switch logs "
        "under-reports it. The official package checker fails it (docs/power.md)."
    ),
)
NO_NODE = rule(
    "MLE005",
    "power-no-node-log",
    E,
    "A power/result_N folder without any node log: the official summarizer stops on it.",
    stage="power",
    good=GOOD,
    bad="fixtures/power/no_node/resnet",
    why=(
        "Energy is computed from the node logs; without one the official summarizer stops "
        "and the run has no energy (docs/power.md)."
    ),
)
NO_START = rule(
    "MLE006",
    "power-start-missing",
    E,
    "A node log without power_measurement_start (an empty or cut file): the official "
    "summarizer stops on it; no energy is computed for the run.",
    stage="power",
    good=GOOD,
    bad="fixtures/power/empty_log/resnet",
    why=(
        "power_measurement_start opens the window the energy formula integrates over; "
        "without it the official summarizer stops (docs/power.md)."
    ),
)
EMPTY_WINDOW = rule(
    "MLE007",
    "power-window-empty",
    E,
    "power_measurement_stop at or before power_measurement_start: the official summarizer "
    "divides by zero (published v4.0 logs). The energy is still given, from the readings "
    "over the run, and marked as computed that way.",
    stage="power",
    good=GOOD,
    bad="fixtures/power/zero_window/resnet",
    why=(
        "The official energy formula divides by the window's length (docs/power.md, "
        "zero-length windows): a window of zero length gives no official energy."
    ),
)
NOT_A_NUMBER = rule(
    "MLE008",
    "power-value-not-number",
    E,
    "A power_reading, conversion_eff or interconnect_power_est value that is not a "
    "number: the official summarizer cannot add it up; no energy for the run.",
    stage="power",
    good=GOOD,
    bad="fixtures/power/not_number/resnet",
    why=(
        "Energy adds readings up; a value that is not a number cannot be added, and the "
        "official summarizer gives no energy for the run (docs/power.md)."
    ),
)
STRAY = rule(
    "MLE020",
    "power-stray-file",
    W,
    "A file in power/ or power/result_N that is neither node_K.txt nor sw_K.txt (the "
    "official checker only logs it).",
    stage="power",
    good=GOOD,
    bad="fixtures/power/stray/resnet",
    why=(
        "Only node_K.txt and sw_K.txt are read; any other file is published but never "
        "checked, usually a leftover (docs/power.md)."
    ),
)
DUPLICATE_INDEX = rule(
    "MLE021",
    "power-duplicate-index",
    W,
    "Two logs of one run carry the same index (node_1.txt and node_01.txt): one node "
    "counted twice and another missing.",
    stage="power",
    good=GOOD,
    bad="fixtures/power/duplicate_index/resnet",
    why=(
        "Two names for one index count one node twice and hide a missing one, so the "
        "energy is wrong both ways (docs/power.md)."
    ),
)
UNMATCHED = rule(
    "MLE022",
    "power-result-unmatched",
    W,
    "A power/result_N folder without result_N.txt: its logs measure no published run.",
    stage="power",
    good=GOOD,
    bad="fixtures/power/unmatched/resnet",
    why=(
        "Power logs add energy to the published run they belong to; logs without a result "
        "file measure nothing that is published (docs/power.md)."
    ),
)
NO_STOP = rule(
    "MLE023",
    "power-stop-missing",
    W,
    "A node log without power_measurement_stop (a cut file): the official summarizer "
    "takes the last reading's time as the stop.",
    stage="power",
    good=GOOD,
    bad="fixtures/power/no_stop/resnet",
    why=(
        "Without a stop record the window ends at the last reading, so a cut log "
        "under-reports the run's energy (docs/power.md)."
    ),
)
NO_READINGS = rule(
    "MLE024",
    "power-no-readings",
    W,
    "A node log without power_reading inside its window: its energy is zero.",
    stage="power",
    good=GOOD,
    bad="fixtures/power/no_readings/resnet",
    why=(
        "A node log without readings in its window adds zero energy and under-reports the "
        "run (docs/power.md)."
    ),
)
NOT_POSITIVE = rule(
    "MLE025",
    "power-reading-not-positive",
    W,
    "A power_reading (or interconnect_power_est) of zero or less watts.",
    stage="power",
    good=GOOD,
    bad="fixtures/power/negative/resnet",
    why=(
        "A powered node draws a positive number of watts; zero or less is a measurement "
        "or typing error (docs/power.md)."
    ),
)
EFF_RANGE = rule(
    "MLE026",
    "conversion-eff-range",
    W,
    "conversion_eff outside [0.5, 1]: a power supply converts at most all it draws, and "
    "one converting under half is no server's; the log gives no energy.",
    stage="power",
    good=GOOD,
    bad="fixtures/power/eff_range/resnet",
    why=(
        "Conversion efficiency is a power supply's output over its input: above 1 it is "
        "impossible, and 1e-300 made the official method's energy about 0 J; every published "
        "node log states 0.94 (docs/power.md)."
    ),
)
EFF_MISSING = rule(
    "MLE027",
    "conversion-eff-missing",
    W,
    "A power log without conversion_eff: the official summarizer assumes 1.",
    stage="power",
    good=GOOD,
    bad="fixtures/power/eff_missing/resnet",
    why=(
        "The official summarizer assumes an efficiency of 1 (no conversion loss) when the "
        "log gives none, an assumption the log should state (docs/power.md)."
    ),
)
WINDOW_SHORT = rule(
    "MLE028",
    "power-window-short",
    W,
    "The measurement window (power_measurement_start .. stop) does not cover the run "
    "(run_start .. run_stop of the matching result file).",
    stage="power",
    good=GOOD,
    bad="fixtures/power/window_short/resnet",
    why=(
        "Energy to train covers the whole run; a window that starts late or stops early "
        "leaves part of the run unmeasured (docs/power.md)."
    ),
)
GAP = rule(
    "MLE029",
    "power-sampling-gap",
    W,
    "No reading for longer than the tolerance inside the window: max(10 s, 5 × the "
    "log's median sampling interval), counting the edges of the window.",
    stage="power",
    good=GOOD,
    bad="fixtures/power/gap/resnet",
    why=(
        "Energy integrates readings over time; a long stretch without readings is bridged "
        "by the formula, so the energy there is a guess (docs/power.md)."
    ),
)
SWITCH_MISSING = rule(
    "MLE030",
    "switch-estimate-missing",
    W,
    "A switch log without interconnect_power_est: it adds no energy.",
    stage="power",
    good=GOOD,
    bad="fixtures/power/switch_empty/resnet",
    why=(
        "Interconnect power is part of the system's energy (docs/power.md); a switch log "
        "without an estimate adds nothing."
    ),
)
SPIKE = rule(
    "MLE031",
    "power-reading-spike",
    W,
    "A power_reading more than 10 times the log's median reading: implausible for one "
    "node (a unit or typing error).",
    stage="power",
    good=GOOD,
    bad="fixtures/power/spike/resnet",
    why=(
        "Ten times the median for one node is not plausible hardware behaviour: a unit "
        "(mW for W) or typing error (docs/power.md)."
    ),
)


# The power rules of MLPerf Training (sections cited by each rule's rationale).
POWER_RULES = "https://github.com/mlcommons/training_policies/blob/master/power_measurement.adoc"
SAMPLING_RATE = rule(
    "MLE035",
    "power-sampling-rate",
    W,
    "A node log reads power less often than once per second over the timed run, or "
    "unevenly: a median interval above 1.1 s or any interval above 2 s (one skipped tick).",
    stage="power",
    good="fixtures/power/per_second/resnet",
    bad="fixtures/power/uneven/resnet",
    beyond=True,
    why=(
        f'The power rules ({POWER_RULES}, 3.4 "Report 1 Measurement per Second"): '
        '"Power measurement must be at least once every second distributed evenly '
        'throughout the timed portion of a run." The official tools do not check it; the '
        "slack allows the whole-second timestamps of meters polled at 1 Hz (docs/power.md)."
    ),
)
TOO_FEW_SAMPLES = rule(
    "MLE036",
    "power-too-few-samples",
    W,
    "A node log holds fewer than 60 readings in its measurement window (a run shorter "
    "than a minute must be measured until it has them). Once per second is MLE035's.",
    stage="power",
    good="fixtures/power/per_second/resnet",
    bad="fixtures/power/too_few/resnet",
    beyond=True,
    why=(
        f'The power rules ({POWER_RULES}, 3.5 "Measure max(a run, 60 power samples)"): '
        "the measurement holds at least 60 readings; a shorter run is measured until it has "
        "them (the window covering the run is MLE028's; once per second, 3.4, "
        "MLE035's). The official tools do not check it (docs/power.md)."
    ),
)


def problem(info: RuleInfo, path: str, message: str, line: int = 0, text: str = "") -> Problem:
    """The rule's Problem; power logs are judged by whole lines: a located one is at column 1."""
    return info.problem(path, message, line, 1 if line else 0, text=text)


# Audit anomaly kinds for power logs (docs/audit.md): each gathers the MLE problems the
# score stage found in a published result's power logs.
# Examples: the clean audit round with the power logs of a power fixture (good/resnet
# passes; each defect folder fails with one kind), as edits (scripts/example_folders.py).


def _with_power(case: str) -> str:
    power = "Acme/results/acme-8x/resnet/power"
    return f"fixtures/audit/clean\ncopy fixtures/power/{case}/resnet/power -> {power}"


AUDIT_WINDOW = rule(
    "MLA040",
    "power-window-not-covering-run",
    W,
    "A power log's measurement window does not cover its run (MLE028).",
    stage="audit",
    good=_with_power("good"),
    bad=_with_power("window_short"),
    why=(
        "Energy to train covers the whole run; the audit lists published power logs whose "
        "window misses part of it (MLE028; docs/power.md)."
    ),
    audits=(WINDOW_SHORT,),
)
AUDIT_GAP = rule(
    "MLA041",
    "power-gap",
    W,
    "A power log has a stretch without readings beyond the tolerance (MLE029).",
    stage="audit",
    good=_with_power("good"),
    bad=_with_power("gap"),
    why=(
        "Stretches without readings make a published energy partly a guess (MLE029; docs/power.md)."
    ),
    audits=(GAP,),
)
AUDIT_IMPLAUSIBLE = rule(
    "MLA042",
    "power-implausible-reading",
    W,
    "A power value that is not a number, zero or negative, ten times the median, or a "
    "conversion_eff outside [0.5, 1] (MLE008, MLE025, MLE026, MLE031).",
    stage="audit",
    good=_with_power("good"),
    bad=_with_power("spike"),
    why=(
        "Implausible readings make a published energy wrong (MLE008, MLE025, MLE026, "
        "MLE031; docs/power.md)."
    ),
    audits=(NOT_A_NUMBER, NOT_POSITIVE, EFF_RANGE, SPIKE),
)
AUDIT_ZERO_WINDOW = rule(
    "MLA043",
    "power-zero-window",
    W,
    "power_measurement_stop at the start's time: the official summarizer cannot score "
    "the result; the energy is computed from the readings (MLE007).",
    stage="audit",
    good=_with_power("good"),
    bad=_with_power("zero_window"),
    why=(
        "The official summarizer cannot score such a result; the audit lists where the "
        "energy came from the readings instead (MLE007; docs/power.md)."
    ),
    audits=(EMPTY_WINDOW,),
)
AUDIT_INCOMPLETE = rule(
    "MLA044",
    "power-logs-incomplete",
    W,
    "A run without power logs, a node or switch log missing, misnamed or empty, or a "
    "log cut before its stop (MLE001-MLE006, MLE023).",
    stage="audit",
    good=_with_power("good"),
    bad=_with_power("node_missing"),
    why=(
        "Missing or cut power logs under-report a published energy (MLE001-MLE006, "
        "MLE023; docs/power.md)."
    ),
    audits=(RESULT_MISSING, BAD_NAME, NODE_COUNT, SWITCH_COUNT, NO_NODE, NO_START, NO_STOP),
)
AUDIT_SAMPLING = rule(
    "MLA046",
    "power-sampling",
    W,
    "A result's node logs read power less often than once per second, unevenly, or fewer "
    "than 60 times (MLE035, MLE036: one per result set).",
    stage="audit",
    good=_with_power("per_second"),
    bad=_with_power("uneven"),
    why=(
        "The power rules' sampling (power_measurement.adoc 3.4, 3.5) decides how much of "
        "a published energy was measured; no official tool checks it (docs/power.md)."
    ),
    audits=(SAMPLING_RATE, TOO_FEW_SAMPLES),
)
