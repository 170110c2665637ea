"""Scores on small hand-specified results trees (fixtures/score/, see generate.py)."""

from __future__ import annotations

import json
import shutil
import statistics
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import FIXTURES

from mllog_check.cli import cli
from mllog_check.results import compute_scores, olympic_mean, runs_frame, scores_frame
from mllog_check.results.scoring import UnknownRound, scoring_for, target_reached

SCORE = FIXTURES / "score"


def _one(case: str, ruleset: str = "1.0.0"):  # type: ignore[no-untyped-def]
    report = compute_scores([str(SCORE / case)], ruleset=ruleset)
    (score,) = report.scores
    return score, report


def test_olympic_mean_drops_fastest_and_slowest() -> None:
    assert olympic_mean([10.0, 14.0, 11.0, 13.0, 12.0], 1) == 12.0
    assert olympic_mean([1.0, 2.0, 3.0, 4.0, 100.0, 0.5], 1) == 2.5
    # unet3d: 4 + 4 from 40 runs
    assert olympic_mean([float(i) for i in range(40)], 4) == pytest.approx(19.5)
    # one failed run already stands for the slowest: only the fastest is dropped
    assert olympic_mean([10.0, 11.0, 12.0, 13.0], 1, already_dropped=1) == 12.0
    assert olympic_mean([5.0], 1) is None


def test_valid_score_and_columns() -> None:
    score, report = _one("olympic")
    assert (score.org, score.system, score.benchmark, score.division) == (
        "Example",
        "sys8",
        "resnet",
        "closed",
    )
    assert score.minutes == pytest.approx(12.0) and score.valid and score.runs_counted == 5
    assert (score.system_name, score.availability, score.accelerators) == (
        "Example 8x",
        "onprem",
        8,
    )
    assert report.problems == []
    run = report.runs[0]
    assert (run.minutes, run.run_stop_status, run.converged, run.compliant) == (
        10.0,
        "success",
        True,
        True,
    )
    assert (run.epochs_or_samples, run.global_batch_size, run.seeds) == (40.0, 3264, (0,))


def _times(report: Any) -> list[float]:
    return [r.minutes for r in report.runs if r.counted]


def test_one_failed_run_counts_as_the_slowest() -> None:
    score, report = _one("one_failed")
    # 10, 11, 12, 13 + an aborted run: drop 10 (fastest); the abort is the dropped slowest
    assert score.valid and score.minutes == pytest.approx(12.0) and score.runs_counted == 4
    assert "1 failed run" in score.reason
    aborted = [r for r in report.runs if r.run_stop_status == "abort"]
    assert len(aborted) == 1 and not aborted[0].converged and aborted[0].epochs_or_samples is None


def test_invalid_results_say_why() -> None:
    score, report = _one("two_failed")
    assert not score.valid and score.minutes is None and "2 runs failed" in score.reason
    assert "MLR002" in {p.rule for p in report.problems}


def test_a_wrong_run_count_is_an_error_and_scored_as_the_summarizer_does() -> None:
    # The official summarizer never counts runs: 4 runs, fastest and slowest dropped.
    score, report = _one("too_few")
    assert score.valid and "4 runs; round v1.0 requires exactly 5 (scored as" in score.reason
    assert score.minutes == pytest.approx(statistics.fmean(sorted(_times(report))[1:-1]))
    assert "MLR001" in {p.rule for p in report.problems}


def test_untimed_run_is_dropped_and_reported() -> None:
    score, report = _one("no_run_stop")
    assert score.valid and score.runs_counted == 4
    (problem,) = [p for p in report.problems if p.rule == "MLR003"]
    assert problem.path.endswith("result_4.txt")


def test_run_count_is_a_minimum_from_v1_1() -> None:
    score, report = _one("too_few", ruleset="1.1.0")
    assert "at least 5" in score.reason and "MLR001" in {p.rule for p in report.problems}
    score, _ = _one("olympic", ruleset="1.1.0")
    assert score.valid


def test_six_runs_are_an_error_in_v1_0_but_fine_in_v1_1(tmp_path: Path) -> None:
    tree = tmp_path / "t"
    shutil.copytree(SCORE / "olympic", tree)
    folder = tree / "Example" / "results" / "sys8" / "resnet"
    text = (folder / "result_4.txt").read_text().replace('"seed", "value": 4', '"seed", "value": 5')
    (folder / "result_5.txt").write_text(text)
    v10 = compute_scores([str(tree)], "1.0.0").scores[0]
    v11 = compute_scores([str(tree)], "1.1.0").scores[0]
    assert "exactly 5" in v10.reason and "exactly 5" not in v11.reason
    assert v11.valid and v11.runs_counted == 6 and v10.minutes == v11.minutes


def test_scaling_json_is_read_not_written(tmp_path: Path) -> None:
    tree = tmp_path / "t"
    shutil.copytree(SCORE / "olympic", tree)
    scaling = tree / "Example" / "results" / "sys8" / "resnet" / "scaling.json"
    scaling.write_text('{"scaling_factor": 1.5}')
    score = compute_scores([str(tree)], "1.0.0").scores[0]
    assert score.raw_minutes == pytest.approx(12.0) and score.minutes == pytest.approx(18.0)
    assert score.scaling_factor == 1.5 and "scaled by 1.5" in score.reason
    assert scaling.read_text() == '{"scaling_factor": 1.5}'


def test_unknown_ruleset_and_benchmark_are_invalid_with_reason(tmp_path: Path) -> None:
    score, report = _one("olympic", ruleset="9.9.9")
    assert not score.valid and "not scored: unknown ruleset '9.9.9'" in score.reason
    assert [p.rule for p in report.problems] == ["MLS010"] and report.runs == []
    tree = tmp_path / "t"
    shutil.copytree(SCORE / "olympic", tree)
    (tree / "Example" / "results" / "sys8" / "resnet").rename(
        tree / "Example" / "results" / "sys8" / "gnmt"
    )
    score = compute_scores([str(tree)], "1.0.0").scores[0]
    assert not score.valid and "gnmt is not a benchmark of round v1.0" in score.reason


def test_auto_ruleset_from_folder_name(tmp_path: Path) -> None:
    tree = tmp_path / "v1.0" / "archive" / "training_results_v1.1"
    shutil.copytree(SCORE / "too_few", tree)
    score = compute_scores([str(tree)], "auto").scores[0]
    assert score.ruleset == "1.1.0"  # the innermost round folder (rules.detect)
    assert compute_scores([str(tree)]).scores[0].ruleset == "1.1.0"  # auto is the default
    # An explicit ruleset wins over the folder, in any spelling check accepts.
    assert compute_scores([str(tree)], "1.0.0").scores[0].ruleset == "1.0.0"
    assert compute_scores([str(tree)], "v1.0").scores[0].ruleset == "1.0.0"


def test_auto_ruleset_from_content(tmp_path: Path) -> None:
    # MLLOG syntax and a benchmark that exists only in v0.7 (rules.detect's evidence).
    tree = tmp_path / "t"
    shutil.copytree(SCORE / "olympic", tree)
    old = tree / "Example" / "results" / "sys8" / "resnet"
    folder = old.rename(old.parent / "transformer")
    for log in folder.glob("result_*.txt"):
        log.write_text(log.read_text().replace('"value": "resnet"', '"value": "transformer"'))
    report = compute_scores([str(tree)], "auto")
    (score,) = report.scores
    assert score.ruleset == "0.7.0" and "MLS010" not in {p.rule for p in report.problems}
    assert not score.valid and "5 runs; round v0.7 requires exactly 10" in score.reason


def test_auto_takes_the_round_of_the_runs_date_else_the_newest_and_says_so(
    tmp_path: Path,
) -> None:
    # MLLOG resnet logs outside any round folder fit v0.7 to v4.0; run in May 2021, they
    # belong to v1.0 (results published 2021-06-30; docs/rounds.md).
    score, _ = _one("olympic", ruleset="auto")
    assert score.ruleset == "1.0.0" and "newest" not in score.reason
    # The same logs dated 2026, after every round that has resnet: the newest is taken,
    # never silently (its scoring data may not be in this build: then not scored, exit 2).
    later = tmp_path / "later"
    shutil.copytree(SCORE / "olympic", later)
    for log in later.rglob("result_*.txt"):
        log.write_text(log.read_text().replace('"time_ms": 16211', '"time_ms": 17911'))
    (score,) = compute_scores([str(later)], "auto").scores
    assert score.ruleset == "4.0.0" and "newest" in score.reason
    empty = tmp_path / "Org" / "results" / "sys" / "resnet"
    empty.mkdir(parents=True)
    (empty / "result_0.txt").write_text("no marker\n")
    result = CliRunner().invoke(cli, ["score", str(tmp_path)])
    assert result.exit_code == 2 and "pass --ruleset" in result.stderr
    assert "no result_*.txt" not in result.stderr


def test_scoring_data_inherits_round_by_round() -> None:
    v07, v10, v20 = scoring_for("0.7.0"), scoring_for("v1.0"), scoring_for("2.0.0")
    assert {"gnmt", "transformer"} <= set(v07.benchmarks) and "rnnt" not in v07.benchmarks
    assert "gnmt" not in v10.benchmarks and v10.benchmarks["unet3d"].runs == 40
    assert v10.benchmarks["unet3d"].drop == 4 and v10.benchmarks["bert"].runs == 10
    fraction = {"above": 0.0, "below": 1.0}  # v0.7's target_defaults, inherited
    assert v07.benchmarks["bert"].target == {"min": 0.712, **fraction}
    assert v10.benchmarks["bert"].target == {"min": 0.72, **fraction}
    assert v20.benchmarks["ssd"].target == {"min": 0.34, **fraction} and v20.run_count == "minimum"
    assert v10.run_count == "exact" and str(v20.rcp).endswith("rcp/training_2.0.0.json")
    assert scoring_for("0.6.0").benchmarks["mask"].runs == 5
    v05 = scoring_for("0.5.0")  # v0.5 states its changes from v0.6
    assert v05.benchmarks["ssd"].target["min"] == 0.212 and v05.approximate_compliance
    assert v05.benchmarks["maskrcnn"].items == ("BBOX", "SEGM") and "mask" not in v05.benchmarks
    with pytest.raises(UnknownRound):
        scoring_for("9.9.9")


def test_quality_targets() -> None:
    resnet = scoring_for("1.0.0").benchmarks["resnet"].target
    assert target_reached(resnet, 0.7601) and not target_reached(resnet, 0.75)
    assert not target_reached(resnet, 1.0)  # accuracies stay below 1 (target_defaults)
    assert not target_reached(resnet, True) and not target_reached(resnet, [0.8])
    rnnt = scoring_for("1.0.0").benchmarks["rnnt"].target
    assert target_reached(rnnt, 0.05) and not target_reached(rnnt, 0.0)  # above 0
    assert not target_reached(rnnt, 0.06)
    mask = scoring_for("1.0.0").benchmarks["maskrcnn"].target
    assert target_reached(mask, {"BBOX": 0.38, "SEGM": 0.34})
    assert not target_reached(mask, {"BBOX": 0.38, "SEGM": 0.3}) and not target_reached(mask, 0.5)
    assert not target_reached(mask, {"BBOX": 0.38, "SEGM": 1.2})  # the bound applies per key
    assert not target_reached(mask, {"BBOX": 0.38}) and not target_reached(mask, [0.38, 0.34])


def test_target_kinds_are_data() -> None:
    # Each kind is one comparison; every bound stated must hold; no implicit 1.0.
    assert target_reached({"min": 24.0}, 24.19) and target_reached({"min": 24.0}, 240.0)
    assert not target_reached({"min": 24.0, "below": 100.0}, 100.0)
    assert target_reached({"max": 5.0, "above": 1.0}, 5.0)
    assert not target_reached({"max": 5.0, "above": 1.0}, 1.0)
    pair = {"min": [0.5, 0.25], "below": 1.0}
    assert target_reached(pair, [0.5, 0.25]) and not target_reached(pair, [0.25, 0.5])
    assert not target_reached(pair, [0.5, 0.25, 0.9]) and not target_reached(pair, [0.5, 1.0])
    assert not target_reached(pair, {"0": 0.5, "1": 0.25}) and not target_reached(pair, [0.5, "x"])


def test_frames() -> None:
    report = compute_scores([str(SCORE / "olympic"), str(SCORE / "two_failed")], "1.0.0")
    scores, runs = scores_frame(report), runs_frame(report)
    assert len(scores) == 2 and len(runs) == 10
    assert {"minutes", "valid", "reason", "rcp_verdict", "accelerators"} <= set(scores.columns)
    assert list(runs["seeds"].iloc[0]) == [0]


def test_cli_json_shape_and_exit_codes() -> None:
    runner = CliRunner()
    v10 = ["--ruleset", "1.0.0"]  # fixtures sit outside any round folder
    result = runner.invoke(cli, ["score", str(SCORE / "olympic"), *v10, "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert set(doc) == {"scores", "runs"}
    assert set(doc["scores"][0]) == {
        "org",
        "system",
        "system_name",
        "benchmark",
        "division",
        "ruleset",
        "minutes",
        "valid",
        "reason",
        "runs_counted",
        "raw_minutes",
        "scaling_factor",
        "score_if_normalized",
        "rcp",
        # what the result ran on (docs/scores.md, "Hardware columns")
        "availability",
        "accelerator_model",
        "accelerators",
        "nodes",
        "host",
        "interconnect",
        "accelerator_minutes",
        # for reading rounds together (docs/scores.md, "Round and model columns")
        "round",
        "published",
        "benchmark_model",
        "accelerator_short",
        "accelerator_generation",
        "republished",
    }
    assert set(doc["scores"][0]["rcp"]) == {
        "verdict",
        "message",
        "scaling_factor",
        "pass_probability",  # near the bound only (docs/scores.md)
    }
    assert set(doc["runs"][0]) == {
        "path",
        "org",
        "system",
        "benchmark",
        "minutes",
        "run_stop_status",
        "converged",
        "epochs_or_samples",
        "global_batch_size",
        "seeds",
        "round",
        "published",
        "benchmark_model",
        "republished",
    }
    bad = runner.invoke(cli, ["score", str(SCORE / "two_failed"), *v10])
    assert bad.exit_code == 1 and "MLR002" in bad.stderr
    missing = runner.invoke(cli, ["score", str(SCORE / "does-not-exist"), *v10])
    assert missing.exit_code == 2


def test_cli_table_csv_and_parquet(tmp_path: Path) -> None:
    runner = CliRunner()
    olympic = ["score", str(SCORE / "olympic"), "--ruleset", "1.0.0"]
    table = runner.invoke(cli, olympic)
    assert table.exit_code == 0 and "Example 8x" in table.stdout and "12.00" in table.stdout
    csv_runs = runner.invoke(cli, [*olympic, "--runs", "--format", "csv"])
    assert csv_runs.stdout.splitlines()[0].startswith("path,org,system,benchmark")
    assert len(csv_runs.stdout.splitlines()) == 6
    out = tmp_path / "s.parquet"
    runner.invoke(cli, [*olympic, "--format", "parquet", "-o", str(out)])
    import pandas as pd

    assert pd.read_parquet(out)["minutes"].tolist() == [12.0]


def test_cli_refuses_parquet_to_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from mllog_check.cli import score as score_cli

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(score_cli.sys, "stdout", Terminal())
    callback = score_cli.score.callback
    assert callback is not None
    with pytest.raises(SystemExit) as stop:
        callback(
            paths=(str(SCORE / "olympic"),),
            ruleset="1.0.0",
            fmt="parquet",
            show_runs=False,
            output=None,
        )
    assert stop.value.code == 2


def test_scoring_data_of_the_new_rounds() -> None:
    v30, v31, v51 = scoring_for("3.0.0"), scoring_for("v3.1"), scoring_for("5.1.0")
    assert set(v30.benchmarks) - set(scoring_for("2.1.0").benchmarks) == {"dlrm_dcnv2", "gpt3"}
    gpt3 = v30.benchmarks["gpt3"]
    assert (gpt3.runs, gpt3.drop, gpt3.direction) == (3, 1, "down")
    # log perplexity: no inherited upper bound 1.0 (null removes it)
    assert gpt3.target == {"max": 2.69, "above": 2.6}
    assert target_reached(gpt3.target, 2.68) and not target_reached(gpt3.target, 2.7)
    sd = v31.benchmarks["stable_diffusion"]
    assert sd.split_metrics and sd.first_reaching and sd.converged_at == "step_num"
    assert target_reached(sd.target, {"FID": 78.6, "CLIP": 0.169})
    assert not target_reached(sd.target, {"FID": 91.0, "CLIP": 0.2})
    assert scoring_for("4.0.0").benchmarks["stable_diffusion"].converged_at == "samples_count"
    assert {"bert", "stable_diffusion"}.isdisjoint(v51.benchmarks)
    assert v51.benchmarks["llama31_405b"].rcp_allowance == 46080
    assert v51.rcp_method == "normalized" and scoring_for("2.0.0").rcp_method == "trimmed"
    assert set(scoring_for("6.1.0").benchmarks) == {
        "deepseekv3_671b",
        "dlrmv4",
        "flux1",
        "gpt_oss_20b",
        "llama2_70b_lora",
        "llama31_8b",
        "qwen35_397b_grpo",
    }


def test_stable_diffusion_convergence_joins_fid_and_clip_of_one_step() -> None:
    from mllog_check.records import Generation, Record
    from mllog_check.results.runs import epochs_to_converge, evaluations

    sd = scoring_for("3.1.0").benchmarks["stable_diffusion"]

    def ev(value: float, metric: str, step: int) -> Record:
        return Record(
            "f", 1, 1, Generation.MLLOG, "", 0, "POINT_IN_TIME", "eval_accuracy", value,
            {"metric": metric, "step_num": step},
        )  # fmt: skip

    records = [ev(95.0, "FID", 1000), ev(0.2, "CLIP", 1000), ev(80.0, "FID", 2000)]
    records += [ev(0.16, "CLIP", 2000), ev(70.0, "FID", 3000), ev(0.18, "CLIP", 3000)]
    assert evaluations(records, sd)[1] == (2000, {"FID": 80.0, "CLIP": 0.16})
    assert epochs_to_converge(records, sd) == 2000.0  # the first step meeting both


def test_table_keeps_two_folders_sharing_a_system_name(tmp_path: Path) -> None:
    """Rows are keyed by system folder: two folders described as one system_name both
    show (the table dropped one; CSV kept both)."""
    org = tmp_path / "Example"
    shutil.copytree(SCORE / "olympic/Example", org)
    results = org / "results"
    shutil.copytree(results / "sys8", results / "sys8b")
    shutil.copy(org / "systems/sys8.json", org / "systems/sys8b.json")
    result = CliRunner().invoke(cli, ["score", str(org), "--ruleset", "1.0.0"])
    lines = result.stdout.splitlines()
    assert lines[1].split()[:3] == ["org", "system", "system_name"]
    rows = [line.split() for line in lines[2:4]]
    assert [r[1] for r in rows] == ["sys8", "sys8b"] and all(
        r[2:4] == ["Example", "8x"] for r in rows
    )
    assert "round" not in lines[1].split()


def test_table_names_the_round_when_rounds_are_mixed() -> None:
    args = ["score", str(SCORE / "olympic"), "--ruleset", "1.0.0"]
    single = CliRunner().invoke(cli, args).stdout.splitlines()[1].split()
    assert "round" not in single
    mixed = CliRunner().invoke(cli, ["score", str(SCORE / "olympic"), str(SCORE / "v3.0")])
    header = mixed.stdout.splitlines()[1].split()
    assert "round" in header


def test_runs_table_names_its_unit_column_and_failing_rcp_names_no_factor() -> None:
    runs = CliRunner().invoke(
        cli, ["score", "--runs", str(SCORE / "rcp_fail"), "--ruleset", "4.0.0"]
    )
    assert "epochs_or_samples" in runs.stdout.splitlines()[0].split()
    (score,) = compute_scores([str(SCORE / "rcp_fail")], "4.0.0").scores
    assert score.rcp_verdict == "Fail" and "normalization factor" not in score.rcp_message
    assert score.scaling_factor == 1.0 and score.score_if_normalized is None
    problems = compute_scores([str(SCORE / "rcp_fail")], "4.0.0").problems
    assert all("normalization factor" not in p.message for p in problems)
    # RCP Missing (below every reference and faster than the smallest): MLR011 named
    # "normalization factor 35.00 / 20.00" where nothing is normalized.
    missing = compute_scores([str(SCORE / "rcp_below_fail")], "4.0.0")
    assert missing.scores[0].rcp_verdict == "Missing"
    (mlr011,) = [p for p in missing.problems if p.rule == "MLR011"]
    assert "normalization factor" not in mlr011.message


def test_pending_normalization_is_a_warning_and_a_column() -> None:
    report = compute_scores([str(SCORE / "v3.0")], "auto")
    (score,) = report.scores
    assert score.ruleset == "3.0.0" and score.minutes == pytest.approx(12.0)
    assert score.rcp_scaling_factor == pytest.approx(35.15 / 35, abs=1e-3)
    assert score.score_if_normalized == pytest.approx(12.0 * score.rcp_scaling_factor)
    assert [p.rule for p in report.problems] == ["MLR013"]
    table = CliRunner().invoke(cli, ["score", str(SCORE / "v3.0")])
    assert table.exit_code == 0
    assert "would be 12.05" in table.stdout


def test_what_could_not_be_scored_is_a_typed_outcome(tmp_path: Path) -> None:
    """``ScoreReport.not_scored`` (not a problem's code) is what ``score`` exits 2 on and
    ``cost`` refuses; each is also shown as the input error MLS010."""
    from mllog_check.cost import CostError, cost_report
    from mllog_check.results.scores import NotScored

    missing = str(tmp_path / "nowhere")
    report = compute_scores([missing], "1.0.0")
    assert report.not_scored == [NotScored(missing, "no such results folder")]
    _, report = _one("olympic", ruleset="9.9.9")
    (unscored,) = report.not_scored
    assert unscored.reason.startswith("unknown ruleset '9.9.9'") and not unscored.warning
    assert [(p.path, p.message) for p in report.problems] == [(unscored.path, unscored.reason)]
    assert compute_scores([str(SCORE / "olympic")], "1.0.0").not_scored == []
    # A linked folder is not followed: a warning for score (no exit 2), a refusal for cost.
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "linked").symlink_to(SCORE / "olympic", target_is_directory=True)
    report = compute_scores([str(tree)], "1.0.0")
    assert [n.warning for n in report.not_scored] == [True] and report.scores == []
    with pytest.raises(CostError, match="symbolic link to a directory: not followed"):
        cost_report([str(tree)], [str(FIXTURES / "prices" / "sample.csv")])
