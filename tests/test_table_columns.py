"""Every table of `score` and `trends` says its round, the round's publication date, the
benchmark's model as its round means it and the accelerator's short model and
generation, from the round registry and the data tables (docs/scores.md, "Round and
model columns"; the audit's tables: tests/test_audit_tables.py)."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

import pytest
from click.testing import CliRunner

from mllog_check.cli import cli
from mllog_check.results.columns import models
from mllog_check.results.hardware import accelerator
from mllog_check.rounds import all_rounds, current_benchmark_name, registry

ACROSS = ("round", "published", "benchmark_model", "republished")
HARDWARE = ("accelerator_short", "accelerator_generation")


def _renamed_rounds() -> list[str]:
    """Rounds where a benchmark folder's name is not the benchmark's current name (v0.6
    `mask`, v2.0 `ssd`, v4.0 `gnn`: the first of each), and the rounds either side of a
    folder whose network changed (`ssd`: v1.1, v2.0), all read from the registry."""
    picked, seen = set(), set()
    by_folder: dict[str, list[tuple[str, str]]] = {}
    for rnd in all_rounds():
        for bench in (rnd.benchmarks or {}).values():
            for name in (bench.name, *bench.names):
                current = current_benchmark_name(rnd.version, name)
                by_folder.setdefault(name, []).append((rnd.folder, current))
                if current != name and name not in seen:
                    seen.add(name)
                    picked.add(rnd.folder)
    for ordered in by_folder.values():
        for (a, name_a), (b, name_b) in itertools.pairwise(ordered):
            if name_a != name_b:
                picked.update((a, b))
    return sorted(picked)


def test_every_benchmark_of_every_round_has_a_model() -> None:
    used = set()
    for rnd in all_rounds():
        for bench in (rnd.benchmarks or {}).values():
            for name in (bench.name, *bench.names):
                current = current_benchmark_name(rnd.version, name)
                assert current in models(), (rnd.version, name)
                used.add(current)
    assert used == set(models())  # no model for a benchmark no round has


@pytest.fixture(scope="module")
def rounds(corpus: Path) -> list[Path]:
    found = [corpus / name for name in _renamed_rounds() if (corpus / name).is_dir()]
    assert len(found) >= 3  # ssd's change (v1.1 -> v2.0) at least
    return found


def _read(args: list[str], fmt: str) -> object:
    import pandas as pd

    result = CliRunner().invoke(cli, [*args, "--format", fmt])
    assert result.exit_code in (0, 1), result.output
    if fmt == "parquet":
        return pd.read_parquet(io.BytesIO(result.stdout_bytes))
    return pd.read_csv(io.StringIO(result.stdout), dtype=str, keep_default_na=False)


def _text(value: object) -> str | None:
    """A text cell as read back: None for an empty (null or NaN) cell."""
    return value if isinstance(value, str) else None


def _round_of(ruleset: str) -> object:
    return registry().get(ruleset)


@pytest.mark.corpus
def test_score_tables_carry_round_model_and_hardware(rounds: list[Path], tmp_path: Path) -> None:
    args = ["score", *map(str, rounds)]
    scores = _read(args, "parquet")
    runs = _read([*args, "--runs"], "parquet")
    for frame, columns in ((scores, ACROSS + HARDWARE), (runs, ACROSS)):
        assert set(columns) <= set(frame.columns)  # type: ignore[attr-defined]
    for row in scores.itertuples():  # type: ignore[attr-defined]
        rnd = _round_of(row.ruleset)
        assert row.round == rnd.folder and row.published == rnd.published
        known = rnd.benchmark(row.benchmark) is not None
        model = models()[current_benchmark_name(rnd.version, row.benchmark)] if known else None
        assert row.benchmark_model == model, (row.round, row.benchmark)
        found = accelerator(_text(row.accelerator_model), _text(row.system_name), _text(row.host))
        assert _text(row.accelerator_short) == (found.model if found else None)
        assert _text(row.accelerator_generation) == (found.generation if found else None)
    # A folder whose network changed between rounds: one folder name, two models.
    by_folder = scores.groupby("benchmark")["benchmark_model"].nunique()  # type: ignore[attr-defined]
    assert by_folder.max() >= 2
    # Runs: the round of their score (the same folder).
    folders = {s.folder: s for s in scores.itertuples()}  # type: ignore[attr-defined]
    for run in runs.itertuples():  # type: ignore[attr-defined]
        score = folders[str(Path(run.path).parent)]
        assert (run.round, run.published, run.benchmark_model) == (
            score.round,
            score.published,
            score.benchmark_model,
        )
    # CSV: the same columns, and the same bytes twice (sorted, deterministic).
    first = CliRunner().invoke(cli, [*args, "--format", "csv"]).stdout
    assert first == CliRunner().invoke(cli, [*args, "--format", "csv"]).stdout
    header = first.splitlines()[0].split(",")
    assert set(ACROSS + HARDWARE) <= set(header)


@pytest.mark.corpus
def test_trend_rows_carry_the_model_of_their_round(rounds: list[Path]) -> None:
    trends = _read(["trends", *map(str, rounds)], "csv")
    assert set(ACROSS + HARDWARE) <= set(trends.columns)  # type: ignore[attr-defined]
    for row in trends.itertuples():  # type: ignore[attr-defined]
        rnd = registry().get(row.round)
        assert row.published == (rnd.published or "")
        # A line is one network: its name's model, whatever the folder was called.
        assert row.benchmark_model == models()[row.benchmark], row
        assert (
            row.benchmark_model == models()[current_benchmark_name(rnd.version, row.published_as)]
        )
    models_of_ssd = set(trends[trends.published_as == "ssd"].benchmark_model)  # type: ignore[attr-defined]
    assert len(models_of_ssd) == 2  # SSD-ResNet34 and RetinaNet: never one line


@pytest.mark.corpus
def test_a_score_is_republished_when_a_run_predates_the_previous_round(corpus: Path) -> None:
    from mllog_check.results import compute_scores

    checked = flagged = 0
    for rnd in all_rounds():
        folder = corpus / rnd.folder
        earlier = [r for r in all_rounds() if r.usage == rnd.usage and r.number < rnd.number]
        if rnd.usage != "training" or not folder.is_dir() or not earlier:
            continue
        before = max(earlier, key=lambda r: r.number).published_ms
        report = compute_scores([str(folder)])
        runs_of: dict[str, list[object]] = {}
        for run in report.runs:
            runs_of.setdefault(str(Path(run.path).parent), []).append(run)
            dated = run.start_ms is not None and run.start_ms > 1.5e12
            assert run.republished == (dated and run.start_ms < before), run.path
        for score in report.scores:
            mine = runs_of.get(score.folder, [])
            assert score.republished == any(r.republished for r in mine), score.folder
            checked += 1
            flagged += score.republished
    assert checked and flagged  # re-published results exist in the corpus (docs/scores.md)
