"""Scores and RCP verdicts over the real corpus, against the official tools' oracle."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import corpus_dir, oracle_dir, read_oracle

from mllog_check.results import Run, Score, compute_scores

pytestmark = pytest.mark.corpus

# Which oracle column holds the official score of each round (oracle/README.md):
# v1.1 logs fail today's checker on a check that was a warning in the round's own release.
SCORE_COLUMN = {
    "v0.7": "official_score_min",
    "v1.0": "official_score_min",
    "v1.1": "era_score_min",
    "v2.0": "official_score_min",
    # v2.1: the closed BERT rules renamed a key after the round (oracle/README.md).
    "v2.1": "era_score_min",
    "v3.0": "official_score_min",
    "v3.1": "official_score_min",
    "v4.0": "official_score_min",
    "v4.1": "official_score_min",
    "v5.0": "official_score_min",
    "v5.1": "official_score_min",
}
# Relative agreement asked of every score against the oracle's unrounded floats.
SCORE_REL = 1e-12
# Rounds whose RCP check normalizes the scores of results faster than the reference.
NORMALIZED = ("v2.1", "v3.0", "v3.1", "v4.0", "v4.1", "v5.0", "v5.1")

# RCP verdicts where the oracle (mlperf-logging 4.1.68) differs from the round's method,
# with the verdict we give and why (docs/differences.md). Asserted both ways, so a change
# on either side shows.
RCP_DIFFERENCES = {
    ("v1.0", "NVIDIA", "dgxa100_ngc21.05_pytorch", "bert"): (
        "Interp. Fail",
        "Pass",
        "the 4.x summarizer reads BERT samples from eval epoch_num, which NVIDIA logs as 1; "
        "train_samples (2,775,192 olympic mean) passes",
    ),
    ("v2.0", "Google", "cloud-tpu-v4-4096-TF", "ssd"): (
        "Pass",
        "Interp. Fail",
        "4.x takes the reference stdev over all runs; the v2.0 checker trimmed it, which puts "
        "the minimum at 9.01 epochs above the submission's 9.00 (hence the committee's "
        "scaling.json)",
    ),
}
_DLRM_CRASH = (
    "",
    "Pass",
    "the 4.1.68 summarizer crashes on closed DLRM (KeyError 'dlrm'); the round's reference "
    "data passes it with the factor 1.7563 / 1.75 = 1.0036 of its published scaling.json",
)
for _system in ("1-node-SPR-pytorch", "2-nodes-SPR-pytorch", "4-nodes-SPR-pytorch"):
    RCP_DIFFERENCES[("v2.1", "Intel", _system, "dlrm")] = _DLRM_CRASH

# Rows where the oracle gives no RCP status (the 4.1.68 summarizer skips or crashes), with
# the verdict and message we give and why. Rows of a round before RCPs, of the open
# division or of a benchmark without RCP data get none (_without_oracle_verdict).
_DLRM_V1 = (
    "Pass",
    "olympic mean 1.9000 epochs >= minimum 1.8891 (reference mean 1.8974, stdev 0.0070; "
    "interpolated between batch sizes 32768 and 71680)",
    "the 4.1.68 summarizer crashes on closed DLRM (KeyError 'dlrm'); at batch size 55296 "
    "the round's reference data (its 55296 point pruned as slower than the line from 32768 "
    "to 71680, as the official checker prunes) puts the minimum at 1.8891 epochs, below the "
    "olympic mean 1.90",
)
WITHOUT_ORACLE_RCP = {
    ("v1.0", "Google", "tpu-v4-128-TF", "dlrm"): _DLRM_V1,
    ("v1.0", "Google", "tpu-v4-256-TF", "dlrm"): _DLRM_V1,
    ("v1.0", "NVIDIA", "dgxa100_ngc21.05_merlin_hugectr", "dlrm"): _DLRM_V1,
    ("v2.0", "Google", "research-tpu-v4-256-TF", "dlrm"): _DLRM_V1,
    ("v1.1", "NVIDIA", "dgxa100_ngc21.09_merlin_hugectr", "dlrm"): _DLRM_V1,
}
# Rounds the RCP check does not cover (docs/rounds.md); a benchmark without RCPs is one
# the round's published reference data has no file for (_has_reference_rcps).
NO_RCP_ROUNDS = ("v0.7",)
# The official summarizer's note when its RCP step raised instead of judging.
RCP_CRASHED = "RCP/GBS computation crashed"
VERDICTS = {"Pass", "Fail", "Interp. Fail", "Missing"}  # a verdict from the RCP data


def _has_reference_rcps(round_name: str, benchmark: str) -> bool:
    """Whether the published reference RCPs of the round hold the benchmark."""
    oracle = oracle_dir()
    assert oracle is not None
    folder = oracle.parent / "reference" / "rcp" / f"training_{round_name[1:]}.0"
    assert folder.is_dir(), folder
    return (folder / f"rcps_{benchmark}.json").is_file()


def _without_oracle_verdict(round_name: str, row: dict[str, str]) -> tuple[str | None, str, str]:
    key = (round_name, row["org"], row["system"], row["benchmark"])
    if key in WITHOUT_ORACLE_RCP:
        return WITHOUT_ORACLE_RCP[key]
    if round_name in NO_RCP_ROUNDS:
        return None, "", "v0.7 predates RCPs (the official checker supports them from 1.0.0)"
    if row["division"] == "open":
        return None, "", "RCPs apply to the closed division only"
    if not _has_reference_rcps(round_name, row["benchmark"]):
        return None, "", "the round's reference data has no RCPs for this benchmark"
    assert RCP_CRASHED in row["summarizer_messages"], f"{key}: no oracle RCP status, no reason"
    return "checked", "", "the summarizer crashed where the round has RCPs: ours must judge"


_REPORTS: dict[str, dict[tuple[str, str, str], Score]] = {}


def _scores(round_name: str) -> dict[tuple[str, str, str], Score]:
    if round_name not in _REPORTS:
        corpus = corpus_dir()
        assert corpus is not None
        report = compute_scores([str(corpus / round_name)], ruleset="auto")
        _REPORTS[round_name] = {(s.org, s.system, s.benchmark): s for s in report.scores}
    return _REPORTS[round_name]


def _oracle_rows() -> list[tuple[str, dict[str, str]]]:
    oracle = oracle_dir()
    if oracle is None:
        return []
    return [(r, row) for r in SCORE_COLUMN for row in read_oracle(oracle, f"scores_{r}.csv")]


ROWS = _oracle_rows()


def _row_id(item: tuple[str, dict[str, str]]) -> str:
    round_name, row = item
    return f"{round_name}/{row['org']}/{row['system']}/{row['benchmark']}"


@pytest.mark.parametrize("item", ROWS, ids=[_row_id(i) for i in ROWS])
def test_score_equals_official(item: tuple[str, dict[str, str]], corpus: Path) -> None:
    round_name, row = item
    score = _scores(round_name)[(row["org"], row["system"], row["benchmark"])]
    official = row[SCORE_COLUMN[round_name]]
    if official == "":
        assert not score.valid and score.minutes is None, score.reason
    else:
        assert score.valid, score.reason
        # Every score column above is the summarizer's float, unrounded: ours agree to
        # 3e-16 today, so a relative 1e-12 leaves room for summation order, not for a wrong
        # factor (a 0.36% error on a 0.19-minute result is well inside abs=0.01).
        assert score.minutes == pytest.approx(float(official), rel=SCORE_REL, abs=0)
    assert score.division == row["division"]


@pytest.mark.parametrize("item", ROWS, ids=[_row_id(i) for i in ROWS])
def test_rcp_verdict_equals_official(item: tuple[str, dict[str, str]], corpus: Path) -> None:
    round_name, row = item
    key = (row["org"], row["system"], row["benchmark"])
    score = _scores(round_name)[key]
    official = row["rcp_status"]
    known = RCP_DIFFERENCES.get((round_name, *key))
    if known is not None:
        assert (official, score.rcp_verdict) == known[:2], known[2]
    elif official:
        assert score.rcp_verdict == official, score.rcp_message
    else:
        verdict, message, why = _without_oracle_verdict(round_name, row)
        if verdict == "checked":
            assert score.rcp_verdict in VERDICTS and score.rcp_message, why
        else:
            assert (score.rcp_verdict, score.rcp_message) == (verdict, message), why


def test_every_stated_rcp_verdict_names_an_oracle_row(oracle: Path) -> None:
    """An entry of RCP_DIFFERENCES or WITHOUT_ORACLE_RCP that names no row would never run."""
    assert ROWS, "oracle scores missing"
    rows = {(n, r["org"], r["system"], r["benchmark"]): r["rcp_status"] for n, r in ROWS}
    assert set(RCP_DIFFERENCES) <= set(rows)
    assert {rows[k] for k in WITHOUT_ORACLE_RCP if k in rows} == {""}
    assert set(WITHOUT_ORACLE_RCP) <= set(rows)


def test_every_oracle_row_is_scored_and_nothing_else(corpus: Path, oracle: Path) -> None:
    assert ROWS, "oracle scores missing"
    for round_name in SCORE_COLUMN:
        expected = {(r["org"], r["system"], r["benchmark"]) for n, r in ROWS if n == round_name}
        assert set(_scores(round_name)) == expected, round_name


PUBLISHED_V1_0 = [
    ("Graphcore", "ipu-pod16-TF1", "resnet", 37.12),
    ("Graphcore", "ipu-pod16-POPART-closed", "bert", 34.49),
    ("Graphcore", "ipu-pod16-POPART-open", "bert", 27.75),
    ("Graphcore", "ipu-pod64-TF1", "resnet", 14.48),
    ("Graphcore", "ipu-pod64-POPART-closed", "bert", 11.08),
    ("Graphcore", "ipu-pod64-POPART-open", "bert", 9.39),
    ("NVIDIA", "dgxa100_ngc21.05_mxnet", "resnet", 28.77),
    ("NVIDIA", "dgxa100_ngc21.05_pytorch", "bert", 21.69),
]


# (pytest-benchmark owns the fixture name "benchmark": the parameter is "bench")
@pytest.mark.parametrize(("org", "system", "bench", "minutes"), PUBLISHED_V1_0)
def test_published_v1_0_results(
    org: str, system: str, bench: str, minutes: float, corpus: Path
) -> None:
    folder = corpus / "v1.0" / org / "results" / system / bench
    (score,) = compute_scores([str(folder)], ruleset="1.0.0").scores
    assert score.minutes is not None and round(score.minutes, 2) == minutes


def test_ipu_pod64_closed_bert_fails_rcp_with_its_numbers(corpus: Path) -> None:
    folder = corpus / "v1.0" / "Graphcore" / "results" / "ipu-pod64-POPART-closed" / "bert"
    report = compute_scores([str(folder)], ruleset="1.0.0")
    (score,) = report.scores
    assert score.valid and score.rcp_verdict == "Fail"
    assert "olympic mean 2,561,296 samples < minimum 2,663,811" in score.rcp_message
    assert "reference at batch size 3072" in score.rcp_message
    assert [p.rule for p in report.problems] == ["MLR010"]


def test_rcp_passes_published_in_notes(corpus: Path) -> None:
    cases = {
        ("Graphcore", "ipu-pod16-POPART-closed", "bert"): "olympic mean 2,714,135 samples >=",
        ("NVIDIA", "dgxa100_ngc21.05_pytorch", "bert"): "olympic mean 2,775,192 samples >=",
        ("NVIDIA", "dgxa100_ngc21.05_mxnet", "resnet"): "olympic mean 35.00 epochs >=",
    }
    scores = _scores("v1.0")
    for key, text in cases.items():
        assert scores[key].rcp_verdict == "Pass" and text in scores[key].rcp_message, key


def test_v2_0_scaling_json_is_applied_and_reported(corpus: Path) -> None:
    score = _scores("v2.0")[("Google", "cloud-tpu-v4-4096-TF", "ssd")]
    assert score.scaling_factor == pytest.approx(1.023)
    assert score.raw_minutes is not None and score.minutes is not None
    assert score.minutes == pytest.approx(score.raw_minutes * 1.023)
    assert "scaling.json" in score.reason


def test_minigo_has_no_rcp_in_v1_0_and_open_division_is_not_checked(corpus: Path) -> None:
    scores = _scores("v1.0")
    assert scores[("NVIDIA", "dgxa100_ngc21.05_tensorflow", "minigo")].rcp_verdict is None
    assert scores[("Graphcore", "ipu-pod16-POPART-open", "bert")].rcp_verdict is None


def test_unet3d_drops_four_failed_runs(corpus: Path) -> None:
    score = _scores("v1.0")[("Google", "tpu-v4-1024-JAX", "unet3d")]
    assert score.valid and score.runs_counted == 36 and score.runs_total == 40


_RUNS: dict[str, dict[str, Run]] = {}


def _runs(round_name: str, corpus: Path) -> dict[str, Run]:
    if round_name not in _RUNS:
        report = compute_scores([str(corpus / round_name)], ruleset="auto")
        base = str(corpus / round_name) + "/"
        _RUNS[round_name] = {r.path.removeprefix(base): r for r in report.runs}
    return _RUNS[round_name]


@pytest.mark.parametrize("round_name", sorted(SCORE_COLUMN))
def test_runs_equal_the_crosscheck_and_compliance_verdicts(
    round_name: str, corpus: Path, oracle: Path
) -> None:
    runs = _runs(round_name, corpus)
    times = read_oracle(oracle, f"runs_{round_name}.csv")
    verdicts = {r["file"]: r for r in read_oracle(oracle, f"compliance_{round_name}.csv")}
    assert {r["file"] for r in times} == set(runs)
    for row in times:
        run = runs[row["file"]]
        assert run.minutes == pytest.approx(float(row["raw_minutes"]), abs=1e-5), row["file"]
        assert (run.run_stop_status or "") == row["run_stop_status"], row["file"]
        verdict = verdicts[row["file"]]
        official = verdict.get("era_verdict") or verdict["official_verdict"]
        assert run.compliant == (official == "pass"), row["file"]


def _oracle(round_name: str, oracle: Path) -> list[dict[str, str]]:
    return read_oracle(oracle, f"scores_{round_name}.csv")


@pytest.mark.parametrize("round_name", NORMALIZED)
def test_normalization_factor_and_samples_to_converge_equal_the_summarizers(
    round_name: str, corpus: Path, oracle: Path
) -> None:
    """v2.1+: the factor the RCP check computes is the one the official summarizer writes
    into scaling.json for its second pass; samples to converge is its trimmed mean."""
    scores = _scores(round_name)
    runs: dict[tuple[str, str, str], list[Run]] = {}
    for run in _runs(round_name, corpus).values():
        runs.setdefault((run.org, run.system, run.benchmark), []).append(run)
    for row in _oracle(round_name, oracle):
        key = (row["org"], row["system"], row["benchmark"])
        score = scores[key]
        if score.rcp_verdict == "Pass":
            official = float(row["rcp_scaling_factor_pass2"] or 1.0)
            assert score.rcp_scaling_factor == pytest.approx(official, rel=1e-12), key
        if row["samples_to_converge"]:
            counts = sorted(
                1e9 if r.epochs_or_samples is None else r.epochs_or_samples for r in runs[key]
            )
            mean = sum(counts[1:-1]) / (len(counts) - 2)
            assert mean == pytest.approx(float(row["samples_to_converge"]), rel=1e-9), key


def test_v5_0_llama31_405b_passes_within_the_allowance_and_is_normalized(corpus: Path) -> None:
    key = ("Nebius", "nebius_soperator_8xH200_n128_ngc25.01_nemo", "llama31_405b")
    score = _scores("v5.0")[key]
    assert score.rcp_verdict == "Pass" and score.rcp_scaling_factor == pytest.approx(7 / 6)
    assert "olympic mean 276,480 samples >= minimum 276,480 (322,560 less the allowed" in (
        score.rcp_message
    )
    assert score.minutes is not None and round(score.minutes, 2) == 124.50


def test_published_scaling_json_wins_and_the_computed_factor_is_shown(corpus: Path) -> None:
    score = _scores("v3.0")[("GIGABYTE", "G593-SD0_hugectr", "dlrm_dcnv2")]
    assert score.scaling_factor == pytest.approx(1.0370762711864403)
    assert score.rcp_scaling_factor == pytest.approx(1.0324858757062145)
    assert "the RCP check of this round's reference data gives 1.0325" in score.reason


def test_without_scaling_json_the_normalization_is_pending_and_nothing_is_written(
    corpus: Path, tmp_path: Path
) -> None:
    """A copy without its scaling.json scores what the tree says (the official
    summarizer's first run), and the published figure is the one the pending factor gives;
    the same on every run, and the tree is left as it was (the official tools write)."""
    import shutil

    src = corpus / "v4.1" / "Google"
    org = tmp_path / "v4.1" / "Google"
    folder = org / "results" / "cloud-tpu-v5p-1024-maxdiffusion" / "stable_diffusion"
    shutil.copytree(src / "results" / folder.parent.name / folder.name, folder)
    (org / "systems").mkdir()
    name = f"{folder.parent.name}.json"
    shutil.copy(src / "systems" / name, org / "systems" / name)
    (folder / "scaling.json").unlink()
    before = sorted((p.name, p.stat().st_mtime_ns) for p in folder.iterdir())
    first = compute_scores([str(tmp_path / "v4.1")]).scores
    second = compute_scores([str(tmp_path / "v4.1")]).scores
    assert first == second
    (score,) = first
    assert score.minutes is not None and round(score.minutes, 3) == 3.117  # unscaled
    assert score.score_if_normalized is not None
    assert round(score.score_if_normalized, 2) == 3.29  # as published, with the file
    assert "normalized" not in score.reason
    assert sorted((p.name, p.stat().st_mtime_ns) for p in folder.iterdir()) == before


def test_samples_and_steps_interpolated_or_below_every_reference(corpus: Path) -> None:
    """Reference points counted in samples (v5.1 Flux.1, batch 2304 between 2048 and
    4096) and in steps (v3.1 Stable Diffusion, batch 512 below the only pruned point)."""
    flux = _scores("v5.1")[("Oracle", "9xBM.GPU.B200.8", "flux1")]
    assert flux.rcp_verdict == "Pass"
    assert flux.rcp_message.startswith("olympic mean 11,688,192 samples >= minimum 10,927,372")
    assert "interpolated between batch sizes 2048 and 4096" in flux.rcp_message
    sd = _scores("v3.1")[("Intel-HabanaLabs", "HLS-Gaudi2-N8-PT", "stable_diffusion")]
    assert sd.rcp_verdict == "Pass"
    assert sd.rcp_message.startswith("olympic mean 5,000 steps >= minimum 1,821")
    assert "batch size 512 below every reference; smallest 2048 used" in sd.rcp_message


def test_no_scaling_json_scores_the_tree_as_the_official_summarizer_does(
    corpus: Path, oracle: Path, tmp_path: Path
) -> None:
    """v3.0 GIGABYTE G593-SD0_mxnet/resnet without its scaling.json: the official
    summarizer's first run scores it unscaled and only writes the RCP factor for the next
    run; the score says what the tree says, MLR013 and score_if_normalized the rest."""
    import shutil

    source = corpus / "v3.0/GIGABYTE"
    org = tmp_path / "GIGABYTE"
    shutil.copytree(source / "results/G593-SD0_mxnet/resnet", org / "results/G593-SD0_mxnet/resnet")
    (org / "systems").mkdir()
    shutil.copy(source / "systems/G593-SD0_mxnet.json", org / "systems")
    folder = org / "results/G593-SD0_mxnet/resnet"
    (folder / "scaling.json").unlink()
    report = compute_scores([str(org)], "3.0.0")
    (score,) = report.scores
    assert score.minutes == score.raw_minutes and score.scaling_factor == 1.0
    pending = [p for p in report.problems if p.rule == "MLR013"]
    assert [p.path for p in pending] == [str(folder)]
    assert not pending[0].is_error and "1.0042" in pending[0].message
    (published,) = [
        r
        for r in read_oracle(oracle, "scores_v3.0.csv")
        if (r["org"], r["system"], r["benchmark"]) == ("GIGABYTE", "G593-SD0_mxnet", "resnet")
    ]
    # With the factor written (the published scaling.json is the same 1.0042), the score
    # is the published one.
    assert score.score_if_normalized == pytest.approx(
        float(published["official_score_min"]), abs=0.01
    )
    assert score.minutes == pytest.approx(13.4433, abs=1e-4)
    official = _official_first_run(folder)
    if official is not None:
        assert score.minutes == pytest.approx(official, rel=1e-12)


def _official_first_run(folder: Path) -> float | None:
    """The official summarizer's score of a folder as given (its scaling step apart)."""
    import importlib.util

    if importlib.util.find_spec("mlperf_logging") is None:
        return None
    from mlperf_logging.result_summarizer import result_summarizer as rs

    score: float = rs._compute_strong_score_standalone(
        "resnet", folder.parent.name, False, str(folder), "training", "3.0.0"
    )[0]
    return score


def test_an_org_outside_its_round_folder_is_scored_for_its_round(
    corpus: Path, oracle: Path, tmp_path: Path
) -> None:
    """v5.1 GigaComputing copied outside any round folder: each result set's round came
    from its logs' content alone (the newest each benchmark allows: 5.1.0, 6.0.0 and
    6.1.0 for one system's benchmarks); the run's date gives 5.1.0 to every one, and the
    published scores."""
    import shutil

    org = tmp_path / "GigaComputing"
    shutil.copytree(corpus / "v5.1" / "GigaComputing", org)
    report = compute_scores([str(org)], "auto")
    assert {s.ruleset for s in report.scores} == {"5.1.0"}
    official = {
        (r["system"], r["benchmark"]): float(r["official_score_min"])
        for r in read_oracle(oracle, "scores_v5.1.csv")
        if r["org"] == "GigaComputing" and r["official_score_min"]
    }
    ours = {(s.system, s.benchmark): s.minutes for s in report.scores}
    assert set(ours) == set(official)
    for key, minutes in official.items():
        assert ours[key] == pytest.approx(minutes, abs=0.01), key
