"""One result filter for ``score``, ``report``, ``audit``, ``cost`` and ``trends``
(docs/scores.md, "Filters"): benchmark, division, availability, accelerator model
(a glob) and accelerator count.

A filter reads a score either as a ``Score`` or as its row (a mapping with the same
names, as the audit and the report carry them), so the one definition serves all.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from .hardware import accelerator, availability_category

T = TypeVar("T")
# Rows of scores and runs as the audit and the report carry them (their TypedDicts).
S = TypeVar("S", bound=Mapping[str, Any])
R = TypeVar("R", bound=Mapping[str, Any])


@dataclass(frozen=True, slots=True)
class ResultFilter:
    benchmarks: tuple[str, ...] = ()  # a round's name or any alias of it (ssd = retinanet)
    divisions: tuple[str, ...] = ()  # closed, open
    availability: tuple[str, ...] = ()  # onprem, cloud, preview, rdi
    accelerators: tuple[str, ...] = ()  # globs on the model ("*B200*", "MI3*", "TPU*")
    min_accelerators: int | None = None
    max_accelerators: int | None = None

    @property
    def active(self) -> bool:
        return bool(
            self.benchmarks
            or self.divisions
            or self.availability
            or self.accelerators
            or self.min_accelerators is not None
            or self.max_accelerators is not None
        )

    def keeps(self, score: Any) -> bool:
        """Whether a score (a ``Score`` or its row) passes every condition given."""
        get = _getter(score)
        if self.benchmarks and not _benchmark_matches(
            str(get("benchmark") or ""), str(get("ruleset") or ""), self.benchmarks
        ):
            return False
        division = str(get("division") or "").casefold()
        if self.divisions and division not in {d.casefold() for d in self.divisions}:
            return False
        if self.availability:
            category = availability_category(get("availability"))
            if category not in {a.casefold() for a in self.availability}:
                return False
        if self.accelerators and not _model_matches(get, self.accelerators):
            return False
        return self._count_ok(get("accelerators"))

    def _count_ok(self, count: object) -> bool:
        if self.min_accelerators is None and self.max_accelerators is None:
            return True
        if not isinstance(count, int):  # unknown scale: never inside a range asked for
            return False
        low, high = self.min_accelerators, self.max_accelerators
        return (low is None or count >= low) and (high is None or count <= high)

    def apply(self, scores: Iterable[T]) -> list[T]:
        return [s for s in scores if self.keeps(s)]

    def describe(self) -> str:
        """The conditions in words, for a title or a footnote ("" when none)."""
        parts = []
        for label, values in (
            ("benchmark", self.benchmarks),
            ("division", self.divisions),
            ("availability", self.availability),
            ("accelerator", self.accelerators),
        ):
            if values:
                parts.append(f"{label} {' or '.join(values)}")
        if self.min_accelerators is not None:
            parts.append(f"at least {self.min_accelerators} accelerators")
        if self.max_accelerators is not None:
            parts.append(f"at most {self.max_accelerators} accelerators")
        return "; ".join(parts)


def _getter(score: Any) -> Any:
    if isinstance(score, Mapping):
        return score.get
    return lambda name: getattr(score, name, None)


def _benchmark_matches(benchmark: str, ruleset: str, wanted: tuple[str, ...]) -> bool:
    """The folder's name, or the name the registry gives the benchmark in later rounds
    (``ssd`` of v2.0-v4.1 is ``retinanet``; ``gnn`` is ``rgat``)."""
    from ..rounds import current_benchmark_name

    names = {benchmark.casefold(), current_benchmark_name(ruleset, benchmark).casefold()}
    asked = {w.casefold() for w in wanted}
    asked |= {current_benchmark_name("", w).casefold() for w in wanted}
    return bool(names & asked)


def _model_matches(get: Any, globs: tuple[str, ...]) -> bool:
    """The description's name, the table's model or its generation matches a glob
    (schemas/accelerators.yaml: ``Gaudi2`` finds "Intel(R) Gaudi(R) 2", ``Hopper`` H100s)."""
    model = get("accelerator_model")
    found = accelerator(_text(model), _text(get("system_name")), _text(get("host")))
    spellings = (model, *(found[1:] if found else ()))
    names = {n.casefold() for n in spellings if isinstance(n, str) and n}
    return any(fnmatch.fnmatchcase(n, g.casefold()) for n in names for g in globs)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def filter_report(report: Any, result_filter: ResultFilter) -> Any:
    """A ``ScoreReport`` with only the scores the filter keeps, their runs, and the
    problems that are not about a result it leaves out."""
    from dataclasses import replace

    if not result_filter.active:
        return report
    kept = result_filter.apply(report.scores)
    weak = result_filter.apply(report.weak)  # MLPerf HPC weak scaling (docs/hpc.md)
    keys = {(s.org, s.system, s.benchmark) for s in [*kept, *weak]}
    left_out = {s.folder for s in report.scores if s not in kept and s.folder}
    left_out |= {w.folder for w in report.weak if w not in weak and w.folder}
    runs = [r for r in report.runs if (r.org, r.system, r.benchmark) in keys]
    problems = [p for p in report.problems if not inside_any(p.path, left_out)]
    return replace(report, scores=kept, weak=weak, runs=runs, problems=problems)


def filter_rows(
    scores: list[S], runs: list[R], result_filter: ResultFilter
) -> tuple[list[S], list[R], set[str]]:
    """The same for rows (the audit's and the report's): kept scores, their runs, and the
    folders left out (their problems and anomalies go too)."""
    if not result_filter.active:
        return scores, runs, set()
    kept = [s for s in scores if result_filter.keeps(s)]
    keys = {(s["org"], s["system"], s["benchmark"]) for s in kept}
    left_out = {str(s.get("folder") or "") for s in scores if not result_filter.keeps(s)}
    kept_runs = [r for r in runs if (r["org"], r["system"], r["benchmark"]) in keys]
    return kept, kept_runs, left_out - {""}


def inside_any(path: str, folders: set[str]) -> bool:
    """Whether ``path`` is one of ``folders`` or below one of them."""
    return any(path == f or path.startswith(f.rstrip("/") + "/") for f in folders)


def filter_audit(result: Any, result_filter: ResultFilter) -> Any:
    """An ``AuditResult`` with the filter's scores and runs, and the anomalies and
    problems of the results kept (or of no single result); org verdicts stay whole."""
    from dataclasses import replace

    if not result_filter.active:
        return result
    scores, runs, left_out = filter_rows(result.scores, result.runs, result_filter)
    return replace(
        result,
        scores=scores,
        runs=runs,
        anomalies=[a for a in result.anomalies if not inside_any(a.path, left_out)],
        problems=[p for p in result.problems if not inside_any(p.path, left_out)],
    )


def filter_report_data(data: Any, result_filter: ResultFilter) -> Any:
    """The report's collected rows (``html_report.collect.ReportData``), filtered the same way;
    each org's verdict stays whole."""
    if not result_filter.active:
        return data
    data.scores, data.runs, left_out = filter_rows(data.scores, data.runs, result_filter)
    data.anomalies = [a for a in data.anomalies if not inside_any(a["path"], left_out)]
    data.problems = [p for p in data.problems if not inside_any(p["path"], left_out)]
    return data
