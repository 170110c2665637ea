"""Evaluation cadence (MLR060 eval-cadence; mllog_check/results/cadence.py, schedules in
schemas/cadence/eval_cadence.yaml, docs/scores.md "Evaluation cadence"): on every closed
corpus log of the rounds whose schedules are known, as published and with every other
evaluation removed, and planted in a copy of a real result set.
"""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import pytest

from mllog_check.parsing import parse_file
from mllog_check.results import compute_scores
from mllog_check.results.cadence import (
    Cadence,
    cadence_for,
    cadence_problems,
    covered,
    judge,
    own_round,
    placed,
    positions,
)
from mllog_check.rounds import parse_round

# The published result sets that break their round's schedule, read one by one
# (docs/differences.md, "Scores"): the logs named, or every closed log of the set (None).
# v0.7 Google tpu-v3-8192-TF SSD evaluates every ~5.2 epochs (integer epoch_num steps 5
# and 6) past epoch 50; v1.0 Google tpu-v4-128-TF BERT result_9 every ~178,000 samples
# where 175,000 (175,104 rounded up to a batch of 3,072) is required; v1.0 Google
# tpu-v4-4096-TF SSD result_0 logs no evaluation at epoch 60; v2.0 H3C U-Net3D at batch 48
# (192 samples an epoch) evaluates from epoch 1000 (192,000 samples) every 20 epochs
# (3,840) where CEILING(1000*168/192) = 875 epochs (168,000) and every 18 (3,456) are
# required, as v1.0 Google's logs at 192 samples an epoch do (875, 893, ...).
BREAKING: dict[str, dict[str, set[str] | None]] = {
    "v0.7": {"Google/results/tpu-v3-8192-TF/ssd": None},
    "v1.0": {
        "Google/results/tpu-v4-128-TF/bert": {"result_9.txt"},
        "Google/results/tpu-v4-4096-TF/ssd": {"result_0.txt"},
    },
    "v2.0": {"H3C/results/R5500G5-Intelx8A100-SXM-80GB/unet3d": None},
}


def _rounds() -> list[str]:
    """The rounds with schedules, the newest left out (its corpus is still growing)."""
    return sorted(covered(), key=lambda f: parse_round(f).number)[:-1]


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


def _dense(places: list[float], cadence: Cadence) -> bool:
    """Two evaluations at most half the allowed gap apart: the run evaluates at least
    twice as often as required there, so every other evaluation may go."""
    return any(
        b - a <= cadence.allowed(a) / 2 + cadence.slack for a, b in itertools.pairwise(places)
    )


@pytest.mark.corpus
@pytest.mark.parametrize("folder", _rounds())
def test_published_logs_warn_only_where_they_break_thinned_warn(corpus: Path, folder: str) -> None:
    """As published a judged closed log warns only in the result sets read as breaking
    the schedule (BREAKING); with the last evaluation kept and every other one before it
    removed, every judged log warns unless it evaluates at least twice as often as
    required somewhere (NVIDIA SSD every 5 epochs before the fixed point 40)."""
    present = [f for f in covered() if (corpus / f).is_dir()]
    newest = max(present, key=lambda f: parse_round(f).number)
    if not (corpus / folder).is_dir() or folder == newest:
        pytest.skip(f"{folder}: not in the corpus, or the corpus's newest round")
    fired: dict[str, set[str]] = {}
    judged = 0
    for bench, path in _closed_logs(corpus, folder):
        result = parse_file(str(path))
        batch = next((r.value for r in result.records if r.key == "global_batch_size"), None)
        found = cadence_for(own_round(result, folder, bench)[0], bench, batch)
        if not _closed(result) or found is None:
            continue
        judged += 1
        problems = cadence_problems([result], folder, bench, "eval_accuracy")
        assert len(problems) <= 1  # one per log
        if problems:
            result_set = path.parent.relative_to(corpus / folder).as_posix()
            fired.setdefault(result_set, set()).add(path.name)
        places = placed(result, "eval_accuracy", found[0])[0]
        if len(places) >= 2 and not judge(places[::-2][::-1], found[0]):
            assert _dense(places, found[0]), path
    assert judged
    expected = BREAKING.get(folder, {})
    assert set(fired) == set(expected)
    for result_set, names in expected.items():
        logs = (corpus / folder / result_set).glob("result_*.txt")
        every = {p.name for p in logs if _closed(parse_file(str(p)))}
        assert fired[result_set] == (every if names is None else names), result_set


@pytest.mark.corpus
def test_unet3d_compared_in_samples_whatever_the_log_counts(corpus: Path) -> None:
    """U-Net3D logs count epochs in epoch_num up to v3.0 and samples from v3.1: both are
    placed in samples (first at 168,000 = 1000 epochs of 168 samples, then every 3,360),
    so a v3.1 log is not read as evaluating first at "epoch 168000"."""
    seen = set()
    for folder in ("v3.0", "v3.1"):
        for log in sorted((corpus / folder).glob("*/results/*/unet3d/result_*.txt"))[:3]:
            result = parse_file(str(log))
            batch = next(r.value for r in result.records if r.key == "global_batch_size")
            found = cadence_for(folder, "unet3d", batch)
            assert found is not None and found[0].unit == "samples"
            places, read = placed(result, "eval_accuracy", found[0])
            assert places[:2] == [168_000, 171_360], log
            counts_epochs = positions(result, "eval_accuracy")[0] == 1000
            assert counts_epochs == read.startswith("epoch_num counts epochs of 168"), log
            seen.add(counts_epochs)
            assert not cadence_problems([result], folder, "unet3d", "eval_accuracy"), log
    assert seen == {True, False}  # one round's logs count epochs, the other's samples


def _relabel(log: Path, keep: set[int]) -> None:
    """Keep the evaluations at the epochs ``keep`` and number each by the epoch it is
    logged in (NVIDIA logs the evaluation after epoch N inside epoch N + 1 as N)."""
    lines = []
    for line in log.read_text().splitlines(keepends=True):
        if ":::MLLOG" in line and '"eval_accuracy"' in line:
            record = json.loads(line.split(":::MLLOG", 1)[1])
            number = record["metadata"]["epoch_num"]
            if number not in keep:
                continue
            line = line.replace(f'"epoch_num": {number}}}', f'"epoch_num": {number + 1}}}')
        lines.append(line)
    log.write_text("".join(lines))


@pytest.mark.corpus
def test_epochs_numbered_from_one_with_the_evaluation_inside_the_next(
    corpus: Path, tmp_path: Path
) -> None:
    """v0.7 Fujitsu and Inspur SSD number epochs from 1 and log the evaluation after 40
    epochs (iteration 4,886 at batch 960) inside epoch 41 as epoch 41. Planted in a v1.0
    NVIDIA SSD log (evaluations kept at 40 and 50, numbered 41 and 51): placed at 40 and
    50, no warning; without the one at 40, the first at 50 still warns."""
    source = corpus / "v1.0/NVIDIA/results/dgxa100_ngc21.05_mxnet/ssd/result_0.txt"
    log = tmp_path / "result_0.txt"
    for keep, warns in (({40, 50}, False), ({50}, True)):
        shutil.copy(source, log)
        _relabel(log, keep)
        result = parse_file(str(log))
        assert positions(result, "eval_accuracy") == sorted(n + 1.0 for n in keep)
        found = cadence_for("v1.0", "ssd", 912)
        assert found is not None
        places, read = placed(result, "eval_accuracy", found[0])
        assert places == sorted(float(n) for n in keep) and read
        problems = cadence_problems([result], "v1.0", "ssd", "eval_accuracy")
        assert bool(problems) == warns
        if warns:
            assert "first evaluation at epoch 50, required by 40" in problems[0].message
    # As published (the evaluation after epoch N logged in epoch N + 1 as N): as logged.
    result = parse_file(str(source))
    assert placed(result, "eval_accuracy", found[0]) == (positions(result, "eval_accuracy"), "")


@pytest.mark.corpus
def test_a_run_is_judged_by_its_own_round(corpus: Path, tmp_path: Path) -> None:
    """v5.0 Nebius Llama 3.1 405B logs (runs of April 30 - May 1, 2025, every 46,080
    samples as v5.0 requires) re-published in a later round are v5.0 runs: judged by v5.0's
    schedule, not by v5.1's every 18,432. Dated after v5.0's publication, they warn."""
    logs = sorted(corpus.glob("v5.0/Nebius/results/*/llama31_405b/result_*.txt"))
    assert logs
    published = parse_round("v5.0").published_ms
    assert published is not None
    for source in logs:
        result = parse_file(str(source))
        judged_by, why = own_round(result, "v5.1", "llama31_405b")
        assert judged_by == "v5.0" and why.startswith("a run of 2025-0"), source
        assert not cadence_problems([result], "v5.1", "llama31_405b", "eval_accuracy")
    log = tmp_path / "result_1.txt"
    text = logs[0].read_text()
    line = next(x for x in text.splitlines() if '"run_start"' in x)
    start = json.loads(line.split(":::MLLOG", 1)[1])
    later = int(published + 86_400_000)
    log.write_text(text.replace(f'"time_ms": {start["time_ms"]},', f'"time_ms": {later},', 1))
    result = parse_file(str(log))
    assert own_round(result, "v5.1", "llama31_405b") == ("v5.1", "")
    (problem,) = cadence_problems([result], "v5.1", "llama31_405b", "eval_accuracy")
    assert "at most 18432 samples" in problem.message
    assert "training_rules.adoc v5.1" in problem.message


def _evaluate_every(log: Path, interval: int, count: int) -> None:
    """Replace the log's evaluations by ``count`` at ``interval`` samples apart (each one
    batch of 32 short, as the log counts them), the last one just before run_stop."""
    lines = log.read_text().splitlines(keepends=True)
    evals = [i for i, line in enumerate(lines) if '"eval_accuracy"' in line]
    template = json.loads(lines[evals[0]].split(":::MLLOG", 1)[1])
    added = []
    for k in range(1, count + 1):
        template["metadata"].update(samples_count=k * interval - 32, epoch_num=k * interval - 32)
        added.append(f":::MLLOG {json.dumps(template)}\n")
    kept = [line for i, line in enumerate(lines) if i not in set(evals)]
    stop = next(i for i, line in enumerate(kept) if '"run_stop"' in line)
    log.write_text("".join(kept[:stop] + added + kept[stop:]))


@pytest.mark.corpus
def test_evaluating_more_often_and_stopping_off_the_required_schedule(
    corpus: Path, tmp_path: Path
) -> None:
    """A converged run that evaluates more often than required and stops at a point the
    required schedule lacks may stop earlier than the rules let a run (v5.1
    HPE XD670 Llama 3.1 8B at batch 32, every 8,192 samples where 12,288 is required).
    Planted in a v5.1 AMD Llama 3.1 8B log (batch 32): every 8,192 to 163,840 (between
    the required 159,744 and 172,032) warns; to 172,032 (a required point) it does not."""
    source = corpus / "v5.1/AMD/results/MI350X_EPYC_9575F_pytorch/llama31_8b/result_0.txt"
    log = tmp_path / "result_0.txt"
    assert not cadence_problems([parse_file(str(source))], "v5.1", "llama31_8b", "eval_accuracy")
    for count, warns in ((20, True), (21, False)):
        shutil.copy(source, log)
        _evaluate_every(log, 8192, count)
        result = parse_file(str(log))
        assert positions(result, "eval_accuracy", "samples_count")[-1] == count * 8192 - 32
        problems = cadence_problems([result], "v5.1", "llama31_8b", "eval_accuracy")
        assert bool(problems) == warns
        if warns:
            assert "stops at sample 163808" in problems[0].message
            assert "8192 samples apart where every 12288 is required" in problems[0].message
            assert problems[0].severity == "warning"
    # The same log not converged (run_stop aborted): it stopped for another reason.
    log.write_text(log.read_text().replace('"status": "success"', '"status": "aborted"'))
    _evaluate_every(log, 8192, 20)
    assert not cadence_problems([parse_file(str(log))], "v5.1", "llama31_8b", "eval_accuracy")


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
    # U-Net3D v1.0: CEILING(1000*168/spe), then CEILING(20*168/spe) epochs of spe
    # samples, compared in samples; a log counting at most CEILING(10000*168/spe) epochs.
    for gbs, first, every, bound in ((32, 875, 18, 8750), (56, 1000, 20, 10000)):
        found = cadence_for("v1.0", "unet3d", gbs)
        assert found is not None
        spe = found[0].epoch_size
        assert (found[0].first, found[0].every) == (first * spe, every * spe)
        assert found[0].epoch_bound == bound
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
    # U-Net3D compared in samples: from 1000 epochs of 168, then every 20.
    assert _schedule("v4.0", "unet3d", 56) == (168_000, 3_360)
    assert _schedule("v3.0", "unet3d", 56) == (168_000, 3_360)
    assert _schedule("v2.0", "unet3d", 48) == (168_000, 3_456)  # 875 and 18 epochs of 192
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
    for folder, benches in covered().items():
        for bench in benches:
            assert len(cadence_problems([result], folder, bench, "eval_accuracy")) <= 1
    # Only finite numbers are placed: -5, 4 and 1e308 (the rest are not positions).
    assert positions(result, "eval_accuracy") == [-5.0, 4.0, 1e308]
    assert positions(result, "eval_accuracy", "samples_count") == [-5.0, 4.0, 1e308]
