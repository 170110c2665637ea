"""Evaluation cadence (MLR060 eval-cadence; mllog_check/results/cadence.py, schedules in
schemas/cadence/eval_cadence.yaml, docs/scores.md "Evaluation cadence"): on every closed
corpus log of the rounds whose schedules are known, as published and with every other
evaluation removed, and planted in a copy of a real result set.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from mllog_check.parsing import parse_file
from mllog_check.results import compute_scores
from mllog_check.results.cadence import cadence_for, cadence_problems, covered, judge, positions
from mllog_check.rounds import parse_round

# The published logs that break their round's schedule (docs/differences.md): v0.7 Google
# tpu-v3-8192-TF SSD evaluates every ~5.2 epochs (integer epoch_num steps 5 and 6) past
# epoch 50; v1.0 Google tpu-v4-128-TF BERT result_9 every ~178,000 samples where
# 175,000 (175,104 rounded up to a batch of 3,072) is required; v1.0 Google
# tpu-v4-4096-TF SSD result_0 logs no evaluation at epoch 60.
BREAKING = {
    "v0.7": {f"Google/results/tpu-v3-8192-TF/ssd/result_{i}.txt" for i in range(5)},
    "v1.0": {
        "Google/results/tpu-v4-128-TF/bert/result_9.txt",
        "Google/results/tpu-v4-4096-TF/ssd/result_0.txt",
    },
}


def _closed_logs(corpus: Path, folder: str) -> list[tuple[str, Path]]:
    benchmarks = set(covered()[folder])
    out = []
    for path in sorted((corpus / folder).glob("*/results/*/*/result_*.txt")):
        if path.parent.name in benchmarks:
            out.append((path.parent.name, path))
    return out


def _closed(result: object) -> bool:
    records = result.records  # type: ignore[attr-defined]
    return next((r.value for r in records if r.key == "submission_division"), None) == "closed"


@pytest.mark.corpus
@pytest.mark.parametrize("folder", sorted(BREAKING))
def test_published_logs_warn_only_where_they_break_the_schedule(corpus: Path, folder: str) -> None:
    fired, judged = set(), Counter()
    for bench, path in _closed_logs(corpus, folder):
        result = parse_file(str(path))
        if not _closed(result):
            continue
        judged[bench] += 1
        problems = cadence_problems([result], folder, bench, "eval_accuracy")
        assert len(problems) <= 1  # one per log
        if problems:
            fired.add(path.relative_to(corpus / folder).as_posix())
    assert fired == BREAKING[folder]
    assert sum(judged.values()) == {"v0.7": 180, "v1.0": 275}[folder]


@pytest.mark.corpus
@pytest.mark.parametrize("folder", sorted(BREAKING))
def test_every_other_evaluation_removed_warns(corpus: Path, folder: str) -> None:
    """Both halves of every judged log with three or more evaluations warn, except SSD
    runs that end by epoch 55: their halves still meet the fixed points 40, 50, 55
    (an evaluation by 40, one in 40-50, one in 50-55), so the rule holds for them."""
    quiet, thinned = [], 0
    for bench, path in _closed_logs(corpus, folder):
        result = parse_file(str(path))
        batch = next((r.value for r in result.records if r.key == "global_batch_size"), None)
        found = cadence_for(folder, bench, batch)
        places = positions(result, "eval_accuracy")
        if not _closed(result) or found is None or len(places) < 3:
            continue
        thinned += 1
        halves = [h for h in (places[::2], places[1::2]) if not judge(h, found[0])]
        quiet += [(bench, halves[0][-1])] if halves else []
    assert thinned == {"v0.7": 180, "v1.0": 265}[folder]
    assert quiet and all(bench == "ssd" and last <= 55 for bench, last in quiet)
    assert len(quiet) == 10


@pytest.mark.corpus
def test_planted_in_a_real_result_set(corpus: Path, tmp_path: Path) -> None:
    """A copy of the v1.0 NVIDIA MXNet ResNet set: as published no MLR060; with every
    other evaluation of result_2 removed (every 8 epochs instead of 4), one, on it."""
    source = corpus / "v1.0" / "NVIDIA"
    org = tmp_path / "NVIDIA"
    bench = Path("results/dgxa100_ngc21.05_mxnet/resnet")
    shutil.copytree(source / bench, org / bench)
    shutil.copytree(source / "systems", org / "systems")
    clean = compute_scores([str(org / bench)], ruleset="1.0.0")
    assert not [p for p in clean.problems if p.rule == "MLR060"]
    log = org / bench / "result_2.txt"
    lines = log.read_text().splitlines(keepends=True)
    evals = [i for i, line in enumerate(lines) if '"eval_accuracy"' in line]
    drop = set(evals[::2][:-1]) if len(evals) % 2 else set(evals[::2])
    log.write_text("".join(line for i, line in enumerate(lines) if i not in drop))
    report = compute_scores([str(org / bench)], ruleset="1.0.0")
    (problem,) = [p for p in report.problems if p.rule == "MLR060"]
    assert problem.path == str(log) and problem.severity == "warning"
    assert "widest 8 epochs" in problem.message and "at most 4 epochs" in problem.message


def test_batch_dependent_schedules_match_the_rules_formulas() -> None:
    # BERT v1.0: FLOOR(0.05 * (230.23 * GBS + 3,000,000), 25,000).
    bert = {gbs: cadence_for("v1.0", "bert", gbs) for gbs in (448, 3072, 6144)}
    assert {g: c[0].every for g, c in bert.items() if c} == {
        448: 150_000,
        3072: 175_000,
        6144: 200_000,
    }
    assert bert[3072] is not None and bert[3072][0].slack == 3072  # rounded up to a batch
    # U-Net3D v1.0: CEILING(1000*168/spe), then CEILING(20*168/spe) epochs.
    for gbs, first, every in ((32, 875, 18), (56, 1000, 20), (7, 1000, 20)):
        found = cadence_for("v1.0", "unet3d", gbs)
        assert found is not None and (found[0].first, found[0].every) == (first, every)
    assert cadence_for("v1.0", "bert", None) is None  # no batch size: not judged
    assert cadence_for("v1.1", "bert", 3072) is None  # a round whose rules were not read


def test_one_problem_per_log_naming_found_and_required() -> None:
    found = cadence_for("v1.0", "resnet", 3264)
    assert found is not None
    why = judge([9, 17, 25, 33], found[0])
    assert why.startswith("first evaluation at epoch 9, required by 4")
    assert "3 gap(s)" in why and "widest 8 epochs (epoch 9 to 17)" in why
    assert judge([3, 7, 11, 15], found[0]) == "" and judge([4.0, 8.0], found[0]) == ""
    ssd = cadence_for("v1.0", "ssd", 2048)
    assert ssd is not None and "widest 10 epochs (epoch 55 to 65)" in judge(
        [40, 50, 55, 65], ssd[0]
    )


def test_schedules_name_rounds_and_benchmarks_of_the_registry() -> None:
    for folder, benchmarks in covered().items():
        rnd = parse_round(folder)
        assert rnd.folder == folder
        assert all(rnd.benchmark(b) is not None for b in benchmarks), folder


def _log(tmp_path: Path, batch: object, places: list[str]) -> Path:
    head = [
        '{"key": "submission_division", "value": "closed", "time_ms": 1, "metadata": {}}',
        f'{{"key": "global_batch_size", "value": {batch}, "time_ms": 2, "metadata": {{}}}}',
        '{"key": "run_start", "value": null, "time_ms": 3, "metadata": {}}',
    ]
    evals = [
        f'{{"key": "eval_accuracy", "value": 0.5, "time_ms": 4, "metadata": {{"epoch_num": {p}}}}}'
        for p in places
    ]
    path = tmp_path / "result_0.txt"
    lines = [*head, *evals, '{"key": "run_stop", "value": null, "time_ms": 9, "metadata": {}}']
    path.write_text("".join(f":::MLLOG {line}\n" for line in lines))
    return path


@pytest.mark.parametrize("batch", ["3072", "1e400", "-1", "0", "true", "null", '"x"', "2e300"])
def test_hostile_values_are_judged_or_skipped_never_raised(tmp_path: Path, batch: str) -> None:
    odd = ["NaN", "Infinity", "1e400", '"4"', "true", "null", "[4]", "-5", "1e308", "4"]
    result = parse_file(str(_log(tmp_path, batch, odd)))
    for bench in ("bert", "unet3d", "resnet", "ssd"):
        problems = cadence_problems([result], "v1.0", bench, "eval_accuracy")
        assert len(problems) <= 1
    # Only finite numbers are placed: -5, 4 and 1e308 (the rest are not positions).
    assert positions(result, "eval_accuracy") == [-5.0, 4.0, 1e308]
