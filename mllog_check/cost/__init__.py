"""Cost normalizer: price catalogs, perf per dollar, break-even price, cost per run.

See docs/cost.md. Scores come from the logs through ``mllog_check.results``
(imported lazily); prices from sourced catalogs (``prices.load_catalogs``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .compare import NOTE, CostError, CostReport, CostRow, ScoreLike, compare
from .output import to_frame, to_json
from .prices import PriceCatalogError, PriceEntry, load_catalog, load_catalogs
from .runcost import Assumptions

__all__ = [
    "NOTE",
    "Assumptions",
    "CostError",
    "CostReport",
    "CostRow",
    "PriceCatalogError",
    "PriceEntry",
    "ScoreLike",
    "compare",
    "cost_report",
    "load_catalog",
    "load_catalogs",
    "scores_from_logs",
    "to_frame",
    "to_json",
]


def scores_from_logs(paths: list[str], ruleset: str = "auto", setting: Any = None) -> Any:
    """The ScoreReport of ``mllog_check.results.compute_scores`` for these paths."""
    from ..results import compute_scores

    return compute_scores(paths, ruleset=ruleset, setting=setting)


def cost_report(
    paths: list[str],
    price_files: Sequence[str],
    baseline: str | None = None,
    benchmarks: Sequence[str] = (),
    allow_mixed: bool = False,
    ruleset: str = "auto",
    divisions: Sequence[str] = (),
    assumptions: Assumptions | None = None,
    setting: Any = None,
    keep: Callable[[Any], bool] | None = None,
) -> CostReport:
    """Scores from the logs + prices from the catalogs → the comparison.

    ``setting``: the project's round setting (``mllog_check.rounds.find_setting``);
    ``keep``: which scores to compare (``results.filters.ResultFilter.keeps``)."""
    prices = load_catalogs(list(price_files))
    scored = scores_from_logs(paths, ruleset=ruleset, setting=setting)
    # What could not be scored (an unreadable input, a linked folder not followed, a round
    # nothing tells) would silently drop a row from the comparison.
    if scored.not_scored:
        raise CostError("; ".join(f"{n.path}: {n.reason}" for n in sorted(scored.not_scored)))
    picked = all(_inside_results(p) for p in paths)
    weak = _per_model(scored)
    if keep is None:
        return compare(
            [*scored.scores, *weak],
            prices,
            baseline,
            benchmarks,
            allow_mixed,
            divisions,
            assumptions,
            picked,
        )
    # The filter (benchmark aliases included) chooses; compare's own lists only explain
    # an empty choice.
    chosen = [s for s in [*scored.scores, *weak] if keep(s)]
    if not chosen:
        # compare's message names a misspelt --benchmark; else the other filters did it
        compare(scored.scores, prices, None, benchmarks, True, divisions, assumptions, picked)
        raise CostError("no scores to compare: no result matches the filters")
    return compare(chosen, prices, baseline, (), allow_mixed, (), assumptions, picked)


def _per_model(scored: Any) -> list[Any]:
    """MLPerf HPC weak-scaling results priced per model (docs/hpc.md): their own group,
    "<benchmark> (weak, per model)", the system's time to train all divided by M."""
    weak = getattr(scored, "weak", None)
    if not weak:
        return []
    from ..results.weak import per_model_scores

    return list(per_model_scores(weak))


def _inside_results(path: str) -> bool:
    """A system or benchmark folder (or a result file): results were picked one by one."""
    from pathlib import Path

    parts = Path(path).resolve().parts
    return "results" in parts[:-1]
