"""Which round's rules apply to a log: ``--ruleset auto``.

Evidence, strongest first: an explicit ruleset (the flag), a round folder in the
path (``v1.1``, ``training_results_v1.1``, ``v0.5.0``), then the log itself (its
syntax generation, benchmarks that exist only in some rounds). Each answer says
where it came from and why; without evidence detection fails (a usage error for
the CLI), it never guesses.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..records import Generation, ParseResult, Record

if TYPE_CHECKING:
    from . import LogVerdict

# Rounds mllog-check knows, oldest first. v0.5 has no compliance rules (parse-level only).
ROUNDS: tuple[str, ...] = ("0.5.0", "0.6.0", "0.7.0", "1.0.0", "1.1.0", "2.0.0")
NO_RULES_ROUNDS = frozenset({"0.5.0"})

# The rounds each benchmark existed in (official rule files per round); others are in all.
_BENCHMARK_ROUNDS: dict[str, tuple[str, ...]] = {
    "transformer": ("0.6.0", "0.7.0"),
    "gnmt": ("0.6.0", "0.7.0"),
    "rnnt": ("1.0.0", "1.1.0", "2.0.0"),
    "unet3d": ("1.0.0", "1.1.0", "2.0.0"),
    "bert": ("0.7.0", "1.0.0", "1.1.0", "2.0.0"),
    "dlrm": ("0.7.0", "1.0.0", "1.1.0", "2.0.0"),
}
_GENERATION_ROUNDS: dict[str, tuple[str, ...]] = {
    Generation.MLP: ("0.5.0",),
    Generation.MLL: ("0.6.0",),
    Generation.MLLOG: ("0.7.0", "1.0.0", "1.1.0", "2.0.0"),
}

# A folder naming a round: "v1.1", "v0.5.0", "1.1.0", "training_results_v1.1", "training_2.0.0".
_FOLDER = re.compile(
    r"^(?:(?:mlperf[_-])?training(?:[_-]results)?[_-])?v?(?P<major>\d+)\.(?P<minor>\d+)(?:\.0)?$",
    re.IGNORECASE,
)
_FLAG = re.compile(r"^(?:training[_-])?v?(?P<major>\d+)\.(?P<minor>\d+)(?:\.0)?$", re.IGNORECASE)


class DetectionError(ValueError):
    """No evidence, or contradicting evidence, for a round."""


@dataclass(frozen=True, slots=True)
class Detection:
    ruleset: str  # a member of ROUNDS, e.g. "1.1.0"
    source: str  # "flag", "path" or "content"
    reason: str  # one sentence for verbose output

    @property
    def has_rules(self) -> bool:
        return self.ruleset not in NO_RULES_ROUNDS

    def describe(self) -> str:
        return f"ruleset {self.ruleset} (from {self.source}: {self.reason})"


def normalize_ruleset(text: str) -> str:
    """'1.1', 'v1.1', '1.1.0', 'training-1.1.0' -> '1.1.0'; unknown rounds raise."""
    match = _FLAG.match(text.strip())
    version = f"{match['major']}.{match['minor']}.0" if match else ""
    if version not in ROUNDS:
        raise DetectionError(f"unknown ruleset {text!r}; known: {', '.join(ROUNDS)} or 'auto'")
    return version


def from_path(path: str, *, is_folder: bool = False) -> Detection | None:
    """The innermost folder of the (absolute) path that names a known round.

    For a file the file name itself is not a folder; ``is_folder`` counts the last
    component too (``audit v1.0/``, ``package training_results_v1.1/Org``).
    """
    folders = os.path.abspath(path).replace("\\", "/").split("/")
    if not is_folder:
        folders = folders[:-1]
    for folder in reversed(folders):
        match = _FOLDER.match(folder)
        if match is None:
            continue
        version = f"{match['major']}.{match['minor']}.0"
        if version in ROUNDS:
            return Detection(version, "path", f"folder {folder!r} names round {version}")
    return None


def rounds_of_generation(generation: str) -> tuple[str, ...]:
    """The rounds whose logs use this syntax generation (mllog, mll, mlp)."""
    return _GENERATION_ROUNDS.get(generation, ())


def from_records(records: Sequence[Record]) -> Detection | None:
    """The round the log's own content allows, when exactly one remains."""
    candidates = list(ROUNDS)
    reasons: list[str] = []
    generations = sorted({str(r.generation) for r in records})
    for generation in generations:
        candidates = _narrow(candidates, _GENERATION_ROUNDS.get(generation, ()))
        reasons.append(f"{marker_of(generation)} syntax")
    for benchmark in sorted(_benchmarks(records)):
        allowed = _BENCHMARK_ROUNDS.get(benchmark)
        if allowed is not None:
            candidates = _narrow(candidates, allowed)
            reasons.append(f"benchmark {benchmark!r}")
    if not reasons:
        return None
    if len(candidates) == 1:
        return Detection(candidates[0], "content", " and ".join(reasons) + " exist only there")
    if not candidates:
        raise DetectionError(f"the log's content contradicts itself ({', '.join(reasons)})")
    raise DetectionError(
        f"the log's content ({', '.join(reasons)}) fits rounds {', '.join(candidates)}; "
        "pass --ruleset or put the log under a round folder such as v1.1/"
    )


def detect(path: str, records: Sequence[Record] = (), flag: str | None = "auto") -> Detection:
    """Pick the round for one log; raise DetectionError when nothing says which."""
    if flag and flag.strip().lower() != "auto":
        version = normalize_ruleset(flag)
        return Detection(version, "flag", f"--ruleset {flag}")
    found = from_path(path)
    if found is not None:
        return found
    found = from_records(records)
    if found is not None:
        return found
    raise DetectionError(
        f"{path}: cannot tell the round: no round folder in the path (e.g. v1.1/) and no "
        "round-specific content; pass --ruleset"
    )


def _narrow(candidates: list[str], allowed: Iterable[str]) -> list[str]:
    allowed = set(allowed)
    return [c for c in candidates if c in allowed]


def _benchmarks(records: Sequence[Record]) -> set[str]:
    return {
        str(r.value).lower()
        for r in records
        if r.key == "submission_benchmark" and isinstance(r.value, str)
    }


def marker_of(generation: str) -> str:
    """How a generation's records start, for messages (``:::MLL``)."""
    return {"mlp": ":::MLPv0.5.0", "mll": ":::MLL", "mllog": ":::MLLOG"}.get(generation, generation)


def spelled_out(flag: str) -> str:
    """'v1.1' or '1.1' -> '1.1.0' for the loader; anything else (auto, a path) unchanged."""
    try:
        return normalize_ruleset(flag)
    except DetectionError:
        return flag


def needs_detection(flag: str) -> bool:
    """Whether a --ruleset value goes through detection: 'auto', or a round without rules."""
    if flag.strip().lower() == "auto":
        return True
    try:
        return normalize_ruleset(flag) in NO_RULES_ROUNDS
    except DetectionError:
        return False  # a ruleset file path or a name the loader judges


def check_detected(
    result: ParseResult, flag: str = "auto", *, strict: bool = False
) -> tuple[LogVerdict, Detection]:
    """Check one parsed log with the round detection picks (DetectionError when none).

    A round without compliance rules (v0.5) gets a parse-only verdict.
    """
    from . import check_log
    from .loader import PREFIX

    detection = detect(result.path, result.records, flag)
    if detection.has_rules:
        return check_log(result, detection.ruleset, strict=strict), detection
    return parse_only(result, PREFIX + detection.ruleset), detection


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
