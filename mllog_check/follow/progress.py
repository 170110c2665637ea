"""What a running log shows about its progress: the status line of ``check --follow``.

``Progress`` is fed the log's records and keeps little: the epoch or sample count, the
last evaluation and whether it meets the round's quality target (schemas/scoring/),
the run's start and latest time, and the few records the RCP rules count convergence
from (evaluations, train_samples). ``rcp()`` compares the run with the reference runs
at its batch size (the round's RCP data, docs/scores.md) and, once it converged, gives
the RCP verdict a set of runs that all behaved like this one would get.
"""

from __future__ import annotations

import math

from ..records import Record

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from typing import Any

    from ..results.scoring import BenchmarkScoring, RoundScoring

QUALITY_LIMIT = 100_000  # evaluation records kept at most (a run logs dozens to thousands)
_QUALITY = frozenset({"eval_accuracy", "aggregated_eval_accuracy", "train_samples"})
_EVALUATION = frozenset({"eval_start", "eval_stop", "eval_accuracy", "aggregated_eval_accuracy"})
_SIGN = {"min": "≥", "max": "≤", "above": ">", "below": "<"}


class Progress:
    """A run's progress from its records, for a status line."""

    def __init__(self, round_version: str | None = None) -> None:
        self.round = round_version
        self.records = 0
        self.benchmark: str | None = None
        self.division: str | None = None
        self.batch_size: float | None = None
        self.start_ms: float | None = None
        self.latest_ms: float | None = None
        self.epoch: Any = None
        self.samples: Any = None
        self.last_eval: Record | None = None
        self.stop: Record | None = None
        self.quality: list[Record] = []
        self._scoring: tuple[RoundScoring, BenchmarkScoring] | bool | None = False

    def feed(self, rec: Record) -> None:
        self.records += 1
        key, metadata = rec.key, rec.metadata if isinstance(rec.metadata, dict) else {}
        when = _number(rec.timestamp_ms)
        if when is not None and when > 0:
            self.latest_ms = max(self.latest_ms or 0.0, when)
        if key == "submission_benchmark" and self.benchmark is None:
            self.benchmark = str(rec.value).lower()
        elif key == "submission_division" and self.division is None:
            self.division = str(rec.value).lower()
        elif key == "global_batch_size" and self.batch_size is None:
            self.batch_size = _number(rec.value)
        elif key == "run_start" and self.start_ms is None:
            self.start_ms = _number(rec.timestamp_ms)
        elif key == "run_stop" and self.stop is None:
            self.stop = rec
        for field in ("epoch_num", "first_epoch_num"):
            if _number(metadata.get(field)) is not None:
                self.epoch = metadata[field]
                break
        # Samples from evaluations only: other records (tracked_stats, block_*) count
        # other things in their samples_count.
        if key in _EVALUATION and _number(metadata.get("samples_count")) is not None:
            self.samples = _number(metadata["samples_count"])
        if key in _QUALITY and self.stop is None:
            if key != "train_samples":
                self.last_eval = rec
            if len(self.quality) < QUALITY_LIMIT:
                self.quality.append(rec)

    # --- the round's scoring data ------------------------------------------------------

    def scoring(self) -> tuple[RoundScoring, BenchmarkScoring] | None:
        """The round's and the benchmark's scoring data, once both are known."""
        if self._scoring is False:
            if self.round is None or self.benchmark is None:
                return None
            from ..results.scoring import UnknownRound, scoring_for

            try:
                found = scoring_for(self.round)
            except UnknownRound:
                self._scoring = None
                return None
            bench = found.benchmark(self.benchmark)
            self._scoring = (found, bench) if bench is not None else None
        return self._scoring if isinstance(self._scoring, tuple) else None

    def _reached(self, value: Any) -> bool | None:
        scoring = self.scoring()
        if scoring is None or scoring[1].split_metrics:
            return None
        return scoring[1].reached(value)

    def target(self) -> str:
        """The quality target in words ("≥ 0.72"), empty when unknown."""
        scoring = self.scoring()
        if scoring is None:
            return ""
        bench = scoring[1]
        # The bound quality moves toward (a minimum accuracy, a maximum loss), not the
        # round's defaults on the other side (accuracies below 1), unless shaped.
        toward = ("min", "above") if bench.direction == "up" else ("max", "below")
        shown = {k: t for k, t in bench.target.items() if k in toward}
        if not shown or any(isinstance(t, dict | list) for t in bench.target.values()):
            shown = bench.target
        return " and ".join(f"{_SIGN[kind]} {_show(t)}" for kind, t in shown.items())

    # --- the line ----------------------------------------------------------------------

    def elapsed_s(self) -> float | None:
        if self.start_ms is None or self.latest_ms is None:
            return None
        end = _number(self.stop.timestamp_ms) if self.stop is not None else self.latest_ms
        if end is None:
            return None
        elapsed = max(0.0, (end - self.start_ms) / 1000)
        # Finite times whose difference is not (-1.7e308 to 1.7e308): no elapsed time.
        return elapsed if math.isfinite(elapsed) else None

    def converged(self) -> float | None:
        """What the RCP rules count for this run (epochs or samples), once it converged:
        stopped with success and an evaluation reached the target (``Run.converged``)."""
        scoring = self.scoring()
        if scoring is None or self.stop is None or _status(self.stop) != "success":
            return None
        from ..results.runs import epochs_to_converge, evaluations
        from ..results.scoring import target_reached

        bench = scoring[1]
        if not any(target_reached(bench.target, v) for _, v in evaluations(self.quality, bench)):
            return None
        return epochs_to_converge(self.quality, bench)

    def rcp(self) -> str:
        """The run against the reference runs at its batch size; empty without RCP data."""
        scoring = self.scoring()
        if scoring is None or self.division != "closed" or self.batch_size is None:
            return ""
        found, bench = scoring
        if not found.rcp:
            return ""
        from ..results.rcp import check_rcp, load_rcp, reference_at

        try:
            unit = load_rcp(found.rcp)["benchmarks"][bench.name]["unit"]
            ref = reference_at(
                found.rcp, bench.name, bench.drop, self.batch_size, bench.runs, found.rcp_method
            )
        except (KeyError, OSError, ValueError):
            return ""
        if ref is None:
            return f"no RCP reference at batch size {self.batch_size:g}"
        reference = f"reference mean {_short(ref.mean)} ± {_short(ref.stdev)} {unit}"
        count = self.converged()
        if count is None:
            ended = "not converged: no RCP comparison; " if self.stop is not None else ""
            return f"{ended}{reference} at batch size {self.batch_size:g}"
        runs = [self._as_run(count)] * bench.runs
        verdict = check_rcp(
            found.rcp, bench.name, runs, bench.drop, bench.runs, found.rcp_method,
            bench.rcp_allowance,
        )  # fmt: skip
        said = f"; RCP {verdict.verdict} if every run did so" if verdict is not None else ""
        return f"converged at {_short(count)} {unit}; {reference}{said}"

    def _as_run(self, count: float) -> Any:
        from ..results.runs import Run

        assert self.batch_size is not None and self.benchmark is not None
        return Run(
            path="", org="", system="", benchmark=self.benchmark, division=self.division,
            minutes=None, run_stop_status="success", converged=True, compliant=True,
            epochs_or_samples=count, global_batch_size=int(self.batch_size), seeds=(),
        )  # fmt: skip

    def line(self) -> str:
        """One status line: progress, last evaluation against the target, elapsed, RCP."""
        parts: list[str] = []
        if self.benchmark:
            parts.append(self.benchmark)
        if self.epoch is not None:
            parts.append(f"epoch {_show(self.epoch)}")
        if self.samples is not None:
            parts.append(f"samples {_short(self.samples)}")
        if self.last_eval is not None:
            # Judged when shown: the benchmark (and so the target) may be named late.
            reached, target = self._reached(self.last_eval.value), self.target()
            mark = " (target reached)" if reached else ""
            versus = f" (target {target})" if target and not reached else ""
            parts.append(f"eval {_show(self.last_eval.value)}{versus}{mark}")
        elapsed = self.elapsed_s()
        if elapsed is not None:
            parts.append(f"{_clock(elapsed)} since run_start")
        if self.stop is not None:
            parts.append(f"run_stop {_status(self.stop) or '?'}")
        rcp = self.rcp()
        if rcp:
            parts.append(rcp)
        if not parts:
            return f"{self.records} records"
        return safe(" | ".join(parts))


def safe(text: str) -> str:
    """Text from a log as a terminal or CI log may show it: no control characters (an
    escape sequence in a logged value would be run by the terminal)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def _number(value: Any) -> float | None:
    """A logged number as a finite float, else None: an integer beyond floats or an
    infinite time (legal in a log ``check`` passes) is not shown as progress."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _status(stop: Record) -> str | None:
    metadata = stop.metadata if isinstance(stop.metadata, dict) else {}
    status = metadata.get("status")
    return None if status is None else str(status)


def _show(value: Any) -> str:
    """A logged value, short: numbers to 4 significant digits, other values as JSON."""
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_show(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    text = str(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _short(value: float) -> str:
    """2.66M, 179k, 4500, 37.41: counts from 10,000 in thousands, from a million in
    millions; smaller values as they are."""
    for least, size, suffix in ((1e9, 1e9, "G"), (1e6, 1e6, "M"), (1e4, 1e3, "k")):
        if abs(value) >= least:
            return f"{value / size:.3g}{suffix}"
    return f"{value:.4g}"


def _clock(seconds: float) -> str:
    if not math.isfinite(seconds):  # never reaches int(): OverflowError (docs/security.md)
        return "?"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"
