"""Results: time-to-train per run, benchmark scores, RCP convergence and seed checks.

The names below are imported on first use (PEP 562), so that a light module of this
package (``codes``, ``cadence``: the evaluation cadence ``check`` judges on one log)
does not import the scorer and its DataFrames (docs/design.md, start-up time).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time (docs/design.md)
if TYPE_CHECKING:
    from .runs import Run
    from .scores import Score, ScoreReport, compute_scores, olympic_mean, runs_frame, scores_frame

__all__ = [
    "Run",
    "Score",
    "ScoreReport",
    "compute_scores",
    "olympic_mean",
    "runs_frame",
    "scores_frame",
]


def __getattr__(name: str) -> object:
    if name == "Run":
        from .runs import Run

        return Run
    if name in __all__:
        from . import scores

        return getattr(scores, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
