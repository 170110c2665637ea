"""MLPerf HPC: the round registry's HPC rounds, their rules and verdicts (docs/hpc.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import read_oracle

import mllog_check
from mllog_check import rounds
from mllog_check.rules import check_file, check_log, engine, load_ruleset

HPC_ROUNDS = ("hpc-v1.0", "hpc-v2.0", "hpc-v3.0")


@pytest.mark.parametrize(
    ("text", "usage", "version"),
    [
        ("hpc-3.0", None, "hpc-3.0.0"),
        ("hpc_3.0.0", None, "hpc-3.0.0"),
        ("hpc-v3.0", None, "hpc-3.0.0"),
        ("hpc_results_v3.0", None, "hpc-3.0.0"),
        ("HPC-1.0.0", None, "hpc-1.0.0"),
        ("3.0.0", "hpc", "hpc-3.0.0"),
        ("v2.0", "hpc", "hpc-2.0.0"),
        ("hpc-2.0", "hpc", "hpc-2.0.0"),
        ("3.0.0", None, "3.0.0"),
        ("3.0.0", "training", "3.0.0"),
        ("hpc-v0.7", None, "hpc-0.7.0"),
    ],
)
def test_every_spelling_names_its_round(text: str, usage: str | None, version: str) -> None:
    assert rounds.parse_round(text, usage).version == version


def test_a_name_of_the_other_usage_is_refused() -> None:
    with pytest.raises(rounds.RoundError, match="for usage 'training'"):
        rounds.parse_round("hpc-3.0", "training")
    with pytest.raises(rounds.RoundError, match="unknown usage"):
        rounds.usage_of("inference")


def test_hpc_rounds_know_their_benchmarks_runs_and_data() -> None:
    v30 = rounds.parse_round("hpc-3.0")
    assert v30.usage == "hpc" and v30.is_hpc and v30.release == "3.0.0"
    assert (v30.folder, v30.ruleset, v30.number) == ("hpc-v3.0", "hpc-3.0.0", (3, 0, 0))
    assert v30.runs() == {"cosmoflow": 10, "deepcam": 5, "oc20": 5, "openfold": 10}
    assert rounds.parse_round("hpc-1.0").benchmark("openfold") is None
    assert v30.has_rules() and v30.path("rcp") is not None
    # v0.7 HPC predates the official rule files: parse checks only.
    v07 = rounds.parse_round("hpc-0.7")
    assert not v07.has("rules") and set(v07.runs()) == {"cosmoflow", "deepcam"}
    # Training rounds are unchanged by the HPC entries.
    assert rounds.parse_round("3.0").usage == "training"
    assert rounds.parse_round("3.0").ruleset == "training-3.0.0"


def test_content_tells_hpc_from_training() -> None:
    hpc = [_record("submission_benchmark", "openfold")]
    found = rounds.from_records(hpc)
    assert found is not None and found.ruleset == "hpc-3.0.0" and found.source == "content"
    found = rounds.from_records([_record("submission_benchmark", "deepcam")])
    assert found is not None and found.round.is_hpc and found.source == "newest"
    # No benchmark: the syntax alone keeps the log a Training log (the official default).
    found = rounds.from_records([_record("run_start", None)])
    assert found is not None and not found.round.is_hpc


def test_folders_tell_the_round(tmp_path: Path) -> None:
    log = tmp_path / "hpc_results_v2.0" / "Org" / "results" / "s" / "strong" / "oc20" / "r.txt"
    assert rounds.choose(str(log)).ruleset == "hpc-2.0.0"
    assert rounds.choose(str(tmp_path / "hpc-v3.0" / "x" / "r.txt")).ruleset == "hpc-3.0.0"


def _record(key: str, value: object) -> mllog_check.Record:
    text = f':::MLLOG {{"key": "{key}", "value": null, "time_ms": 1, "metadata": {{}}}}\n'
    (rec,) = mllog_check.parse_text(text).records
    return rec._replace(value=value)


# --- rules ------------------------------------------------------------------------------


def _chain(path: Path, ruleset: str) -> list[str]:
    records = mllog_check.parse_file(str(path)).records
    return [s.name for s in engine.chain(load_ruleset(ruleset), records)]


@pytest.mark.corpus
def test_deepcam_applies_its_optimizer_and_scheduler_variants(corpus: Path) -> None:
    chains = {
        tuple(_chain(p, "hpc-3.0.0"))
        for p in sorted((corpus / "hpc-v3.0").rglob("strong/deepcam/result_*.txt"))
    }
    base = ("common", "closed", "closed_deepcam")
    # Clemson: LAMB with cosine annealing; Perlmutter: LAMB with multistep.
    assert {c[:3] for c in chains} == {base}
    assert {frozenset(c[3:]) for c in chains} == {
        frozenset({"closed_deepcam_lamb", "closed_deepcam_cosine_annealing"}),
        frozenset({"closed_deepcam_lamb", "closed_deepcam_multistep"}),
    }


@pytest.mark.corpus
@pytest.mark.parametrize("round_", HPC_ROUNDS)
def test_verdicts_equal_the_official_checker(corpus: Path, oracle: Path, round_: str) -> None:
    rows = read_oracle(oracle, f"compliance_{round_}.csv")
    assert rows
    differing = []
    for row in rows:
        verdict = check_file(str(corpus / round_ / row["file"]), "auto")
        assert verdict.ruleset == rounds.parse_round(round_).version, row["file"]
        assert verdict.benchmark == row["benchmark"], row["file"]
        ours = "pass" if verdict.passed else "fail"
        if ours != row["official_verdict"]:
            differing.append((row["file"], ours, row["official_verdict"]))
    assert differing == []


def _edited(corpus: Path, tmp_path: Path, pattern: str, drop: str = "", swap: tuple = ()) -> Path:
    source = next(iter(sorted(corpus.rglob(pattern))))
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    out = [line for line in lines if not (drop and f'"key": "{drop}"' in line)]
    if swap:
        out = [line.replace(*swap) for line in out]
    target = tmp_path / source.name
    target.write_text("".join(out), encoding="utf-8")
    return target


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("pattern", "ruleset", "drop", "swap", "code", "key"),
    [
        # a weak-scaling model that never stopped (the official v2.0 fails)
        ("hpc-v3.0/*/results/*/weak/cosmoflow/result_1.txt", "hpc-3.0.0", "run_stop", (),
         "MLC010", "run_stop"),
        # OpenFold's fixed settings
        ("hpc-v3.0/TACC/results/*/strong/openfold/result_1.txt", "hpc-3.0.0", "", (
            '"key": "val_every_iters", "value": 40', '"key": "val_every_iters", "value": 41'),
         "MLC020", "val_every_iters"),
        # DeepCAM's LAMB variant requires opt_max_grad_norm
        ("hpc-v3.0/Clemson/results/*/strong/deepcam/result_0.txt", "hpc-3.0.0",
         "opt_max_grad_norm", (), "MLC010", "opt_max_grad_norm"),
        # closed runs log their instance size (weak scaling's S)
        ("hpc-v1.0/LBNL/results/*/strong/oc20/result_1.txt", "hpc-1.0.0", "number_of_nodes", (),
         "MLC010", "number_of_nodes"),
    ],
)  # fmt: skip
def test_edited_real_logs_fail_as_the_official_checker_would(
    corpus: Path, tmp_path: Path, pattern: str, ruleset: str, drop: str, swap: tuple,
    code: str, key: str,
) -> None:  # fmt: skip
    path = _edited(corpus, tmp_path, pattern, drop, swap)
    verdict = check_file(str(path), ruleset)
    errors = [p for p in verdict.problems if p.is_error]
    assert not verdict.passed
    assert {p.rule for p in errors} == {code} and key in errors[0].message


@pytest.mark.corpus
def test_cosmoflow_quality_is_a_loss_below_the_target(corpus: Path, tmp_path: Path) -> None:
    source = next(iter(sorted((corpus / "hpc-v3.0").rglob("strong/cosmoflow/result_1.txt"))))
    records = mllog_check.parse_file(str(source)).records
    assert check_log(mllog_check.parse_file(str(source)), "hpc-3.0.0").passed
    last = max(r.value for r in records if r.key == "eval_error")
    assert last > 0.124  # early evaluations are above the target; the last is below
    lines = [
        line
        for line in source.read_text(encoding="utf-8").splitlines(keepends=True)
        if '"key": "eval_error"' not in line or f'"value": {last}' in line
    ]
    target = tmp_path / "result_1.txt"
    target.write_text("".join(lines), encoding="utf-8")
    verdict = check_file(str(target), "hpc-3.0.0")
    assert [p.rule for p in verdict.problems if p.is_error] == ["MLC040"]


# --- command line -----------------------------------------------------------------------


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (["--usage", "hpc", "--ruleset", "3.0.0"], 0, "closed openfold, hpc-3.0.0"),
        (["--ruleset", "hpc-3.0"], 0, "hpc-3.0.0"),
        ([], 0, "hpc-3.0.0"),  # the folder hpc-v3.0 names the round
        (["--usage", "hpc", "--ruleset", "3.1.0"], 2, "unknown ruleset '3.1.0' for usage 'hpc'"),
        # Training 3.0.0 rules do not know OpenFold (MLC050 names the HPC round)
        (["--ruleset", "3.0.0"], 1, "rounds that have it: hpc-3.0.0"),
    ],
)
def test_check_command_takes_the_official_usage_flags(
    corpus: Path, args: list[str], code: int, said: str
) -> None:
    from click.testing import CliRunner

    from mllog_check.cli import cli

    log = next(iter(sorted((corpus / "hpc-v3.0").rglob("strong/openfold/result_1.txt"))))
    result = CliRunner().invoke(cli, ["check", *args, str(log)])
    assert result.exit_code == code, result.output
    assert said in result.output
