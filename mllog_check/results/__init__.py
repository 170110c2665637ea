"""Results: time-to-train per run, benchmark scores, RCP convergence and seed checks."""

from __future__ import annotations

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
