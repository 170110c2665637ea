"""Per-round scoring data (schemas/scoring/): the facts of v0.6 and the run-count rules.

v0.7, v1.0, v1.1 and v2.0 scores are tested against the oracle in
tests/test_scores_corpus.py. v0.6 has no official scores; its data is checked here
against what the v0.6 corpus logs say: every run that reports success reaches its
target in the form the data states, no aborted run does, and folders hold the counts.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import mllog_check
from mllog_check.results import compute_scores
from mllog_check.results.scoring import (
    ScoringDataError,
    _merged,
    _target,
    scoring_for,
    target_reached,
)

# Mask R-CNN's two metrics in the order of its v0.6 target [box, mask]: "0.377 Box min
# AP and 0.339 Mask min AP", both to be reached (training_rules.adoc, section 3
# "Benchmarks"; the reference's --box_min_ap/--mask_min_ap). COCO names them BBOX, SEGM.
_MASK_ITEMS = ("BBOX", "SEGM")


def _reached(target: dict[str, Any], value: Any) -> bool:
    """The v0.6 target forms: ``min`` ≤ value < ``below`` (1.0 unless given), lists by
    item; a dict of the Mask R-CNN metrics (NVIDIA: under one key, "accuracy") by name."""
    low, high = target["min"], target.get("below", 1.0)
    while isinstance(value, dict) and len(value) == 1 and not set(_MASK_ITEMS) & set(value):
        value = next(iter(value.values()))  # {"accuracy": {"BBOX": .., "SEGM": ..}}
    if isinstance(value, dict) and set(value) == set(_MASK_ITEMS):
        value = [value[name] for name in _MASK_ITEMS]
    if isinstance(low, list):
        return (
            isinstance(value, list)
            and len(value) == len(low)
            and all(t <= v < high for t, v in zip(low, value, strict=True))
        )
    return isinstance(value, int | float) and low <= value < high


def _stop_and_status(records: list[Any]) -> tuple[int | None, str]:
    """(line of run_stop, its status); a log without run_stop ends at its eval_result,
    successful when its timestamp is above 0 (v0.6 MiniGo, the 0.6.0 score.yaml)."""
    stop = next((r for r in records if r.key == "run_stop"), None)
    if stop is not None:
        return stop.line, stop.metadata.get("status", "")
    result = next((r for r in records if r.key == "eval_result"), None)
    if result is None:
        return None, ""
    stamp = result.metadata.get("timestamp", 0)
    return None, "success" if isinstance(stamp, int | float) and stamp > 0 else "failed"


def test_v0_6_states_its_changes_from_v0_7() -> None:
    v06, v07 = _merged("v0.6"), _merged("v0.7")
    assert v06["ruleset"] == "0.6.0" and scoring_for("0.6.0").run_count == "exact"
    assert set(v07["benchmarks"]) - set(v06["benchmarks"]) == {"bert", "dlrm"}
    for name in ("resnet", "ssd", "minigo"):  # v0.7's targets (its rules'; v0.6 states them)
        v06_bench = scoring_for("0.6.0").benchmarks[name]
        # v0.6 MiniGo is timed by its eval_result (no run_stop; the 0.6.0 score.yaml)
        if name == "minigo":
            assert v06_bench.timed_by == "eval_result"
            v06_bench = dataclasses.replace(v06_bench, timed_by="run_stop")
        assert v06_bench == scoring_for("0.7.0").benchmarks[name]
        assert "target" not in v07["benchmarks"][name]
    # v0.5 inherits v0.6's data and times MiniGo run_start to run_stop again
    assert scoring_for("0.5.0").benchmarks["minigo"].timed_by == "run_stop"
    assert v06["benchmarks"]["gnmt"]["target"] == {"min": 24.0, "below": 100.0}


def test_v0_6_scoring_reads_its_target_forms() -> None:
    v06 = scoring_for("0.6.0")
    assert (v06.round, v06.ruleset, v06.run_count, v06.rcp) == ("v0.6", "0.6.0", "exact", None)
    assert set(v06.benchmarks) == {"gnmt", "mask", "maskrcnn", "minigo", "resnet", "ssd"} | {
        "transformer"
    }
    gnmt, mask = v06.benchmarks["gnmt"], v06.benchmarks["mask"]
    assert gnmt.target == {"min": 24.0, "above": 0.0, "below": 100.0}
    assert target_reached(gnmt.target, 24.19) and not target_reached(gnmt.target, 0.2419)
    assert not target_reached(scoring_for("0.7.0").benchmarks["gnmt"].target, 24.19)
    assert (mask.runs, mask.drop) == (5, 1)
    assert target_reached(mask.target, [0.3783, 0.3422])
    assert not target_reached(mask.target, [0.3783, 0.3387]) and not target_reached(
        mask.target, 0.4
    )
    assert v06.approximate_compliance and scoring_for("0.7.0").approximate_compliance is None


def test_scoring_data_refuses_unknown_target_kinds() -> None:
    with pytest.raises(ScoringDataError, match="unknown kind"):
        _target("v9", "x", {"below": 1.0}, {"target": {"at_least": 0.5}})
    with pytest.raises(ScoringDataError, match="unknown kind"):
        _target("v9", "x", {"below": 1.0}, {"target": {}})
    with pytest.raises(ScoringDataError, match="shape"):
        _target("v9", "x", {}, {"target": {"min": [0.1, 0.2], "below": [1.0]}})
    assert _target("v9", "x", {"below": 1.0}, {"target": {"min": 0.5}}) == {
        "min": 0.5,
        "below": 1.0,
    }


def test_run_counts_become_minimums_from_v1_1() -> None:
    assert scoring_for("0.7.0").run_count == "exact"
    assert scoring_for("1.0.0").run_count == "exact"
    assert scoring_for("1.1.0").run_count == "minimum"
    assert scoring_for("2.0.0").run_count == "minimum"
    assert scoring_for("2.0.0").benchmarks["ssd"].target == {"min": 0.34, "above": 0, "below": 1}
    assert scoring_for("1.1.0").benchmarks["unet3d"].drop == 4


@pytest.mark.corpus
def test_v0_6_targets_and_counts_match_the_corpus(corpus: Path) -> None:
    benchmarks = _merged("v0.6")["benchmarks"]
    outcomes: Counter[tuple[str, str, bool]] = Counter()
    folders: Counter[Path] = Counter()
    with_records = set()
    for path in sorted((corpus / "v0.6").rglob("result_*.txt")):
        records = mllog_check.parse_file(str(path)).records
        if not records:  # Alibaba's v0.6 files carry no :::MLL records
            continue
        with_records.add(path.parent.name)
        stop, status = _stop_and_status(records)
        assert status, path  # every log with records ends with run_stop or eval_result
        folders[path.parent] += 1
        bench = path.parent.name
        evals = [r.value for r in records if r.key == "eval_accuracy"]
        last = [r.value for r in records if r.key == "eval_accuracy" and r.line < (stop or 1e18)]
        assert last == evals[: len(last)] and last, path
        reached = _reached(benchmarks[bench]["target"], last[-1])
        outcomes[(bench, status, reached)] += 1
        assert reached == (status == "success"), (path, status, last[-1])
    assert {b for b, _, _ in outcomes} == with_records
    assert outcomes[("resnet", "abort", False)] >= 1  # the data tells an aborted run apart
    v06 = scoring_for("0.6.0").benchmarks  # run counts from the round registry
    for folder, count in folders.items():
        assert count == v06[folder.name].runs, folder
    for name in ("mask", "maskrcnn"):  # both spellings of the round's Mask R-CNN
        assert v06[name].items == _MASK_ITEMS


@pytest.mark.corpus
@pytest.mark.parametrize("metric", _MASK_ITEMS)
def test_v0_6_mask_rcnn_needs_both_metrics_at_target(
    corpus: Path, tmp_path: Path, metric: str
) -> None:
    """Real v0.6 Mask R-CNN logs of the `{"accuracy": {"BBOX", "SEGM"}}` shape: one metric
    just below its target in the last evaluation, the other kept, and no run converges."""
    thresholds = _merged("v0.6")["benchmarks"]["maskrcnn"]["target"]["min"]
    target = dict(zip(_MASK_ITEMS, thresholds, strict=True))
    pattern = re.compile(rf'("{metric}": )([0-9.]+)')
    folders = sorted({p.parent for p in (corpus / "v0.6").rglob("maskrcnn/result_*.txt")})
    assert folders
    for src in folders:
        org = tmp_path / src.parents[2].name
        shutil.copytree(src, org / "results" / src.parent.name / src.name)
        for log in (org / "results" / src.parent.name / src.name).glob("result_*.txt"):
            lines = log.read_text(encoding="utf-8").split("\n")
            last = max(i for i, line in enumerate(lines) if " eval_accuracy: " in line)
            for i, line in enumerate(lines):  # every evaluation below the target on it
                if " eval_accuracy: " in line:
                    lines[i] = pattern.sub(rf"\g<1>{target[metric] - 0.001}", line)
            assert pattern.search(lines[last]), log
            log.write_text("\n".join(lines), encoding="utf-8")
        report = compute_scores([str(org)], ruleset="0.6.0")
        assert report.runs and not any(run.converged for run in report.runs), src
        assert all(not run.unread_quality for run in report.runs)
        missed = [p for p in report.problems if p.rule == "MLR041"]
        assert len(missed) == len(report.runs)
        assert all("never reached" in p.message for p in missed)


def test_scoring_files_never_restate_the_registrys_facts() -> None:
    """Run counts, drops and RCP data live in schemas/rounds.yaml only."""
    import yaml

    from mllog_check.rounds import parse_round

    folder = Path(mllog_check.__file__).resolve().parents[1] / "schemas" / "scoring"
    for path in sorted(folder.glob("*.yaml")):  # Training v*.yaml and HPC hpc-v*.yaml
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert not {"rcp", "run_count"} & set(data), path
        for name, bench in (data.get("benchmarks") or {}).items():
            assert not {"runs", "drop"} & set(bench), (path, name)
        rnd = parse_round(path.stem)
        scoring = scoring_for(path.stem)
        for name, bench in scoring.benchmarks.items():
            known = rnd.benchmark(name)
            assert known is not None and (bench.runs, bench.drop) == (known.runs, known.drop)
        # and the registry says which benchmarks the round has
        assert {rnd.benchmark(n).name for n in scoring.benchmarks} == set(rnd.benchmarks or {})


def _shape(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_shape(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_shape(v) for v in value) + "]"
    if isinstance(value, str):
        return "text"
    return "number" if isinstance(value, int | float) and not isinstance(value, bool) else "other"


@pytest.mark.corpus
def test_every_quality_value_shape_of_the_corpus_reads(corpus: Path) -> None:
    """The quality value shapes of every round's published logs (measured here, listed in
    docs/scores.md "Quality values"), each read by scoring.read_quality."""
    from mllog_check.results.scoring import UnknownRound, read_quality
    from mllog_check.results.tree import discover

    shapes: Counter[tuple[str, str, str]] = Counter()
    for round_dir in sorted(p for p in corpus.iterdir() if p.is_dir()):
        try:
            scoring = scoring_for(round_dir.name)
        except UnknownRound:  # every round of the corpus has scoring data
            raise AssertionError(round_dir) from None
        sets, _ = discover([str(round_dir)])
        for result_set in sets:
            bench = scoring.benchmark(result_set.benchmark)
            if bench is None or bench.split_metrics:
                continue
            for path in result_set.files:
                for record in mllog_check.parse_file(str(path)).records:
                    if record.key != bench.key:
                        continue
                    shapes[(round_dir.name, bench.name, _shape(record.value))] += 1
                    reading = read_quality(bench.target, record.value, bench.items)
                    assert reading is not None, (path, record.line, record.value)
    found = {(r, b, s) for r, b, s in shapes}
    assert ("v0.6", "mask", "[number,number]") in found
    assert ("v1.0", "maskrcnn", "{BBOX:number,SEGM:number}") in found
    assert ("v0.5", "resnet", "{epoch:number,value:number}") in found
    assert ("v0.6", "maskrcnn", "{accuracy:{BBOX:number,SEGM:number}}") in found
    assert {s for _, _, s in found} == {
        "number", "[number,number]", "{BBOX:number,SEGM:number}", "{epoch:number,value:number}",
        "{accuracy:{BBOX:number,SEGM:number}}",
    }  # fmt: skip
