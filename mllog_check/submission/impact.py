"""The severity of an audit anomaly for a reader: ``score``, ``rules`` or ``info``.

``score``: the anomaly changes a published score or verdict (a run counted twice, a run
counted although it missed the target, a published result the round's tools reject).
``rules``: a rule of the round is bent but the published number stands. ``info``: a
known framework habit, a placeholder, clock skew: worth knowing, not worth reading first.

Each kind has a default (``DEFAULTS``); known habits lower an anomaly to ``info`` by
the pattern of its message (``HABITS``: data, never code), never by org name. The
detectors write the facts a habit is recognized by into their messages (docs/audit.md,
"Severity", lists every habit with the corpus evidence).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..problems import Problem

SCORE, RULES, INFO = "score", "rules", "info"
IMPACTS = (SCORE, RULES, INFO)  # worst first
RANK = {name: i for i, name in enumerate(IMPACTS)}

DEFAULTS: dict[str, str] = {
    # changes a published score or verdict
    "duplicate-log": SCORE,
    "duplicate-run-counted": SCORE,
    "shared-run-window": SCORE,
    "shared-eval-curve": SCORE,
    "published-but-failing": SCORE,
    "target-not-reached": SCORE,
    "time-constant": SCORE,
    "batch-size-differs": SCORE,
    "power-implausible-reading": SCORE,
    # a rule of the round bent, the number stands
    "lines-after-run-stop": RULES,
    "time-zero": RULES,
    "time-ms-zero": RULES,
    "time-backwards": RULES,
    "repeated-seed": RULES,
    "aborted-run": RULES,
    "not-converged": RULES,
    "org-mismatch": RULES,
    "org-lookalike": RULES,
    "stray-file": RULES,
    "declared-mismatch": RULES,
    "system-description-format": RULES,
    "unchecked-result": RULES,
    "runs-far-apart": RULES,
    "power-window-not-covering-run": RULES,
    "power-gap": RULES,
    "power-zero-window": RULES,
    "power-logs-incomplete": RULES,
    "power-sampling": RULES,
    "eval-cadence-break": RULES,
    "hparams-differ": RULES,
    # nothing in the folder was checked: shown, never counted as clean
    "not-audited": RULES,
    # worth knowing, changes nothing: runs trained alike, each its own run
    "same-eval-curve": INFO,
    # the Preview results are marked invalid unless the system came back as Available
    "preview-not-available": RULES,
}


@dataclass(frozen=True)
class Habit:
    """A known framework habit: anomalies of ``kind`` whose message matches ``pattern``
    (``re.search``) are ``info``."""

    name: str
    kind: str
    pattern: str
    why: str


HABITS = (
    Habit(
        "evaluation-or-clock-outside-training",
        "time-backwards",
        r"; the training timeline runs forward \(",
        "Only evaluation records (offline evaluation logged before run_stop, evaluation "
        "stamped at its start), records before run_start (rank clocks skewed at start-up) "
        "or after run_stop go back in time; run_start..run_stop and the training records "
        "between them run forward, so the time to train stands.",
    ),
    Habit(
        "trailer-at-run-stop",
        "lines-after-run-stop",
        r"\(all at the run_stop millisecond\)$",
        "Hyperparameters (a final train_samples count) logged after run_stop at the very "
        "millisecond of run_stop: the same moment, written in the other order.",
    ),
    Habit(
        "header-at-time-zero",
        "time-ms-zero",
        r"\(all submission header\)$",
        "Only submission header records (submission_*: who and what, no time) carry "
        "time_ms 0: headers written by hand or before the clock starts; no time is read "
        "from them.",
    ),
    Habit(
        "placeholder-org",
        "org-mismatch",
        r"declare submission_org '(SUBMISSION_ORG_PLACEHOLDER|reference_implementation)'",
        "The reference implementation's default submission_org, left unchanged: the org "
        "folder names the submitter.",
    ),
    Habit(
        "org-spelled-otherwise",
        "org-mismatch",
        r"(?i)declare submission_org '([^'\s]{3,})'; .*says '[^']*\1[^']*'$",
        "The logs name the submitter by a part of its folder's name (v3.1 'Habana' in "
        "Intel-HabanaLabs): the same org spelled as its framework writes it, not another "
        "org's runs.",
    ),
    Habit(
        "vendor-code-org",
        "org-mismatch",
        r"declare submission_org '(NVIDIA|AMD|Intel|Habana|HabanaLabs|Google)'; ",
        "A partner's logs name the accelerator vendor whose published implementation they "
        "ran (its configuration sets submission_org): the vendor's code, not its runs; "
        "copied runs are the duplicate kinds' finding (docs/audit.md).",
    ),
    Habit(
        "listed-software-stack",
        "system-description-format",
        r"^'other_software_stack' is \[",
        "other_software_stack written as a list of objects: readable, but not the rules' "
        "string or object.",
    ),
    Habit(
        "power-window-seconds-off",
        "power-window-not-covering-run",
        r"it (starts [0-2](\.\d+)?(e-\d+)? s after run_start)?(?: and )?"
        r"(stops [0-2](\.\d+)?(e-\d+)? s before run_stop)?$",
        "The power measurement starts or stops at most 2 s inside the run: the meter's "
        "start-up, against runs of minutes.",
    ),
)
_COMPILED = [(h, re.compile(h.pattern)) for h in HABITS]


def habit_of(problem: Problem) -> Habit | None:
    """The known habit an anomaly shows, if any."""
    for habit, pattern in _COMPILED:
        if habit.kind == problem.name and pattern.search(problem.message):
            return habit
    return None


def impact_of(problem: Problem) -> str:
    """The severity of an anomaly: a habit's ``info``, else its kind's default."""
    if habit_of(problem) is not None:
        return INFO
    return DEFAULTS.get(problem.name, RULES)


def classify(anomalies: list[Problem]) -> list[Problem]:
    """Each anomaly with its severity (``impact``) set; one set before is kept."""
    return [a if a.impact else a.replace(impact=impact_of(a)) for a in anomalies]


def worst(impacts: list[str]) -> str:
    """The worst of some severities ('' for none)."""
    return min(impacts, key=RANK.__getitem__, default="")
