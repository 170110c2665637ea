"""Evaluation cadence (MLR060 eval-cadence; mllog_check/results/cadence.py, schedules in
schemas/cadence/eval_cadence.yaml, docs/scores.md "Evaluation cadence"): on every closed
corpus log of the rounds whose schedules are known, as published and with every other
evaluation removed, and planted in a copy of a real result set.
"""

from __future__ import annotations

import json
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


# Closed logs judged per corpus round from v1.1 on (docs/differences.md, "Scores"): none
# of them breaks its round's schedule.
JUDGED = {
    "v1.1": 60,
    "v2.0": 55,
    "v2.1": 35,
    "v3.0": 95,
    "v3.1": 49,
    "v4.0": 100,
    "v4.1": 116,
    "v5.0": 131,
    "v5.1": 155,
}


def _closed_logs(corpus: Path, folder: str) -> list[tuple[str, Path]]:
    rnd = parse_round(folder)
    benchmarks = set(covered()[folder])
    out = []
    for path in sorted((corpus / folder).glob("*/results/*/*/result_*.txt")):
        bench = rnd.benchmark(path.parent.name)
        if bench is not None and bench.name in benchmarks:
            out.append((bench.name, path))
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
@pytest.mark.parametrize("folder", sorted(JUDGED))
def test_later_rounds_published_quiet_thinned_warn(corpus: Path, folder: str) -> None:
    """As published no judged closed log warns; with the last evaluation kept and every
    other one before it removed, every judged log with two or more evaluations does."""
    judged, thinned = Counter(), 0
    for bench, path in _closed_logs(corpus, folder):
        result = parse_file(str(path))
        batch = next((r.value for r in result.records if r.key == "global_batch_size"), None)
        found = cadence_for(folder, bench, batch)
        if not _closed(result) or found is None:
            continue
        judged[bench] += 1
        assert not cadence_problems([result], folder, bench, "eval_accuracy"), path
        places = positions(result, "eval_accuracy", found[0].position)
        if len(places) >= 2:
            thinned += 1
            assert judge(places[::-2][::-1], found[0]), path
    assert sum(judged.values()) == JUDGED[folder]
    assert thinned == JUDGED[folder]  # every judged log evaluates at least twice


# One real closed result set per round from v1.1 on, a benchmark kind each (organization,
# system folder, benchmark folder, ruleset).
PLANTED = {
    "v1.1": ("Graphcore", "ipu-pod16-POPART-closed", "bert"),
    "v2.0": ("Google", "cloud-tpu-v4-4096-TF", "ssd"),
    "v2.1": ("Intel", "16-nodes-SPR-pytorch", "resnet"),
    "v3.0": ("GIGABYTE", "G593-SD0_hugectr", "dlrm_dcnv2"),
    "v3.1": ("Google", "cloud-tpu-v5e-4096-PAX", "gpt3"),
    "v4.0": ("GigaComputing", "G593-SD1_pytorch", "llama2_70b_lora"),
    "v4.1": ("GigaComputing", "G593-ZD1_pytorch", "stable_diffusion"),
    "v5.0": ("GigaComputing", "G893-SD1_dgl", "rgat"),
    "v5.1": ("Oracle", "9xBM.GPU.B200.8", "flux1"),
}


def _thin(log: Path, count: str) -> None:
    """Remove every other evaluation before the last (all records at a removed point)."""
    lines = log.read_text().splitlines(keepends=True)
    where = {}
    for i, line in enumerate(lines):
        if ":::MLLOG" in line and '"eval_accuracy"' in line:
            record = json.loads(line.split(":::MLLOG", 1)[1])
            where[i] = record["metadata"][count]
    kept = set(sorted(set(where.values()))[::-2])
    log.write_text("".join(x for i, x in enumerate(lines) if i not in where or where[i] in kept))


@pytest.mark.corpus
@pytest.mark.parametrize("folder", sorted(PLANTED))
def test_planted_in_a_real_result_set_of_each_later_round(
    corpus: Path, tmp_path: Path, folder: str
) -> None:
    """As published no MLR060; with every other evaluation of result_1 removed, one."""
    org_name, system, bench_folder = PLANTED[folder]
    source = corpus / folder / org_name
    org = tmp_path / org_name
    bench = Path("results") / system / bench_folder
    shutil.copytree(source / bench, org / bench)
    shutil.copytree(source / "systems", org / "systems")
    ruleset = parse_round(folder).version
    clean = compute_scores([str(org / bench)], ruleset=ruleset)
    assert not [p for p in clean.problems if p.rule == "MLR060"]
    log = org / bench / "result_1.txt"
    name = parse_round(folder).benchmark(bench_folder)
    assert name is not None
    result = parse_file(str(log))
    batch = next(r.value for r in result.records if r.key == "global_batch_size")
    found = cadence_for(folder, name.name, batch)
    assert found is not None
    _thin(log, found[0].position)
    report = compute_scores([str(org / bench)], ruleset=ruleset)
    (problem,) = [p for p in report.problems if p.rule == "MLR060"]
    assert problem.path == str(log) and problem.severity == "warning"
    assert "evaluation cadence:" in problem.message


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
    assert cadence_for("v2.1", "dlrm", 32768) is None  # no schedule stated (DLRM)
    # Packed BERT from v1.1: a point may be rounded up by up to 3 global batches.
    later = cadence_for("v2.0", "bert", 768)
    assert later is not None and (later[0].every, later[0].slack) == (150_000, 2304)


def _schedule(folder: str, bench: str, gbs: int) -> tuple[float | None, float | None]:
    found = cadence_for(folder, bench, gbs)
    assert found is not None
    return found[0].first, found[0].every


def test_later_rounds_schedules_match_the_rules_text() -> None:
    # Llama 2 70B LoRA: every CEIL(384 / GBS) * GBS, skipping FLOOR(0.125 * GBS + 2).
    assert _schedule("v4.0", "llama2_70b_lora", 8) == (1536, 384)
    assert _schedule("v4.0", "llama2_70b_lora", 100) == ((14 + 1) * 400, 400)
    # Flux.1: "CEIL(262144 / global_batch_size) * global_batch_size".
    assert _schedule("v5.1", "flux1", 2304) == (262_656, 262_656)
    # GPT3: every 24,576 sequences of 2,048 tokens, counted in tokens.
    assert _schedule("v3.1", "gpt3", 2048) == (50_331_648, 50_331_648)
    # Llama 3.1 405B: 46,080 in v5.0; 18,432 skipping FLOOR(0.0026 * GBS + 12) after.
    assert _schedule("v5.0", "llama31_405b", 1152) == (46_080, 46_080)
    assert _schedule("v5.1", "llama31_405b", 1152) == (15 * 18_432, 18_432)
    # U-Net3D counted in samples in v4.0: from 1000 epochs of 168, then every 20.
    assert _schedule("v4.0", "unet3d", 56) == (168_000, 3_360)
    assert _schedule("v3.0", "unet3d", 56) == (1000, 20)
    # dlrm_v4_hstu: 2,293,760 samples at GBS 8192, 16384 and 32768, first at the grid
    # blocks 25, 31 and 41 (the rules text and the official closed_dlrmv4.yaml).
    newest = max(covered(), key=lambda f: parse_round(f).number)
    for gbs, block in ((8192, 25), (16384, 31), (32768, 41)):
        assert _schedule(newest, "dlrmv4", gbs) == (block * 2_293_760, 2_293_760)
    # Stable Diffusion: only the last two evaluations, one checkpoint apart.
    sd = cadence_for("v4.1", "stable_diffusion", 1024)
    assert sd is not None and sd[0].last_only and sd[0].every == 512_000
    assert judge([512_000, 2_048_000, 2_560_000], sd[0]) == ""
    assert "widest 1.024e+06 samples" in judge([1_536_000, 2_560_000], sd[0])
    assert judge([2_560_000], sd[0]).startswith("one evaluation only")


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
        f'{{"key": "eval_accuracy", "value": 0.5, "time_ms": 4, '
        f'"metadata": {{"epoch_num": {p}, "samples_count": {p}, "step_num": {p}}}}}'
        for p in places
    ]
    path = tmp_path / "result_0.txt"
    lines = [*head, *evals, '{"key": "run_stop", "value": null, "time_ms": 9, "metadata": {}}']
    path.write_text("".join(f":::MLLOG {line}\n" for line in lines))
    return path


@pytest.mark.parametrize(
    "batch", ["3072", "1e400", "-1", "0", "true", "null", '"x"', "2e300", "1099511627776", "7"]
)
def test_hostile_values_are_judged_or_skipped_never_raised(tmp_path: Path, batch: str) -> None:
    odd = ["NaN", "Infinity", "1e400", '"4"', "true", "null", "[4]", "-5", "1e308", "4"]
    result = parse_file(str(_log(tmp_path, batch, odd)))
    for bench in ("bert", "unet3d", "resnet", "ssd"):
        problems = cadence_problems([result], "v1.0", bench, "eval_accuracy")
        assert len(problems) <= 1
    # The later rounds' kinds (samples_count, step_num, batch-rounded, skipped, fixed
    # first point, last two only) at every batch size, the largest one included.
    later = {name: benches for name, benches in covered().items() if name not in BREAKING}
    for folder, benches in later.items():
        for bench in benches:
            assert len(cadence_problems([result], folder, bench, "eval_accuracy")) <= 1
    # Only finite numbers are placed: -5, 4 and 1e308 (the rest are not positions).
    assert positions(result, "eval_accuracy") == [-5.0, 4.0, 1e308]
    assert positions(result, "eval_accuracy", "samples_count") == [-5.0, 4.0, 1e308]
