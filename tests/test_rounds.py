"""Rounds v0.5–v2.0 on hand-written logs: fixtures/rounds/<round folder>/<name>.txt.

A fixture named ``X.pass.txt`` passes its round's rules; ``X.fail.MLCnnn.txt`` fails
them with exactly that error code. The round comes from the folder (``--ruleset auto``).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES, has_module, needs
from official import official_cli

import mllog_check
from mllog_check.cli import cli
from mllog_check.rounds import choose
from mllog_check.rules import check_file
from mllog_check.rules.detect import check_chosen

ROUNDS = FIXTURES / "rounds"
# v6/ is not a round folder (its logs serve 6.0 and 6.1 alike):
# tests/test_rounds_6_differential.py checks them with explicit rulesets.
LOGS = sorted(p for p in ROUNDS.rglob("*.txt") if p.parent.name != "v6")
EXPECTED = re.compile(r"\.fail\.(MLC\d+)\.txt$")


def _errors(path: Path, ruleset: str, strict: bool = False) -> set[str]:
    verdict = check_file(str(path), ruleset, strict=strict)
    return {p.rule for p in verdict.problems if p.is_error}


def test_fixtures_cover_each_round_both_ways() -> None:
    for folder in ("v0.6", "v0.7", "v1.1", "v2.0"):
        names = [p.name for p in (ROUNDS / folder).glob("*.txt")]
        assert any(".pass." in n for n in names), folder
        assert sum(".fail." in n for n in names) >= 3, folder
    assert (ROUNDS / "v0.5.0" / "resnet.pass.txt").is_file()


@pytest.mark.parametrize("path", LOGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_verdict(path: Path) -> None:
    verdict, found = check_chosen(mllog_check.parse_file(str(path)))
    assert found.source == "folder"
    errors = sorted({p.rule for p in verdict.problems if p.is_error})
    match = EXPECTED.search(path.name)
    if match is None:
        assert verdict.passed, [str(p) for p in verdict.problems]
    else:
        assert errors == [match[1]], [p.message for p in verdict.problems if p.is_error]


# The change each round makes, shown by the same log under the neighbouring round:
# (fixture, ruleset, strict, error codes expected there).
NEIGHBOURS = [
    # v0.7: 20-minute init (v1.0: 30), open targets (v1.0: none), BERT 0.706 at batch 8192.
    ("v0.7/closed_resnet_init25min.fail.MLC031.txt", "1.0.0", False, {"MLC010"}),
    ("v0.7/open_resnet_0.70.fail.MLC040.txt", "1.0.0", False, set()),
    ("v0.7/closed_bert_batch8192_0.708.pass.txt", "1.0.0", False, {"MLC010", "MLC040"}),
    # v1.1: weights_initialization is a warning (an error under --strict, as 4.1.68).
    ("v1.1/closed_resnet_no_weights.pass.txt", "1.1.0", True, {"MLC010"}),
    ("v1.1/closed_resnet_tensor_all.pass.txt", "1.1.0", True, {"MLC041"}),
    ("v1.1/closed_resnet_no_weights.pass.txt", "2.0.0", False, {"MLC010"}),
    ("v1.1/closed_rnnt_buckets8.pass.txt", "1.0.0", False, {"MLC020"}),
    # v2.0: open init up to 240 min, RetinaNet's 0.340, small-batch Mask R-CNN LR.
    ("v2.0/open_unet3d_init60min.pass.txt", "1.1.0", False, {"MLC031"}),
    ("v2.0/closed_ssd_retinanet_0.335.fail.MLC040.txt", "1.1.0", False, {"MLC010"}),
    ("v2.0/closed_maskrcnn_batch8_lr0.01.pass.txt", "1.1.0", False, {"MLC020"}),
    ("v2.0/closed_unet3d_no_weights.fail.MLC010.txt", "1.1.0", False, set()),
    ("v2.0/closed_minigo_no_weights.pass.txt", "1.1.0", True, {"MLC010"}),
    # v0.6 under v0.7: train/eval_samples missing; v0.6 GNMT logs BLEU, v0.7 BLEU / 100.
    ("v0.6/gnmt.pass.txt", "0.7.0", False, {"MLC010", "MLC040"}),
]


@pytest.mark.parametrize(("name", "ruleset", "strict", "codes"), NEIGHBOURS)
def test_round_changes_against_the_neighbour(
    name: str, ruleset: str, strict: bool, codes: set[str]
) -> None:
    assert _errors(ROUNDS / name, ruleset, strict) == codes


def test_v2_0_open_and_closed_init_limits() -> None:
    verdict = check_file(str(ROUNDS / "v2.0" / "closed_unet3d_init60min.fail.MLC031.txt"), "1.0.0")
    assert not verdict.passed  # default ruleset 1.0.0: 30 min as well
    message = next(
        p.message
        for p in check_file(
            str(ROUNDS / "v2.0" / "open_unet3d_init250min.fail.MLC031.txt"), "2.0.0"
        ).problems
        if p.rule == "MLC031"
    )
    assert "must be < 240 min" in message


def test_v2_0_ssd_is_retinanet() -> None:
    bad = check_file(str(ROUNDS / "v2.0" / "closed_ssd_retinanet_0.335.fail.MLC040.txt"), "2.0.0")
    assert any("≥ 0.34" in p.message for p in bad.problems if p.rule == "MLC040")
    sgd = check_file(str(ROUNDS / "v2.0" / "closed_ssd_sgd.fail.MLC020.txt"), "2.0.0")
    assert any("opt_name" in p.message for p in sgd.problems if p.is_error)


def test_v0_5_has_parse_checks_only() -> None:
    path = ROUNDS / "v0.5.0" / "resnet.pass.txt"
    verdict, found = check_chosen(mllog_check.parse_file(str(path)))
    assert (found.ruleset, found.round.has("rules"), verdict.passed) == ("0.5.0", False, True)
    broken = mllog_check.parse_text(":::MLPv0.5.0 resnet notatime (x.py:1) run_start\n", "x")
    verdict, _ = check_chosen(broken, "0.5.0")
    assert not verdict.passed and all(p.rule.startswith("MLS") for p in verdict.problems)


# ------------------------------------------------------------------ the command


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["check", *args])
    return result.exit_code, result.output


def test_check_auto_says_which_round_and_why() -> None:
    code, out = _run("--ruleset", "auto", "-v", *map(str, sorted((ROUNDS / "v2.0").glob("*"))))
    assert code == 1
    assert "ruleset 2.0.0 (from folder: folder 'v2.0' names round 2.0.0)" in out
    assert "closed_ssd_retinanet.pass.txt: pass" in out
    code, out = _run("--ruleset", "auto", str(ROUNDS / "v2.0" / "closed_ssd_retinanet.pass.txt"))
    assert code == 0 and "ruleset 2.0.0" not in out  # said only with -v


def test_check_auto_without_evidence_is_a_usage_error(tmp_path: Path) -> None:
    log = tmp_path / "result_0.txt"
    log.write_text("no marker here\n")
    code, out = _run("--ruleset", "auto", str(log))
    assert code == 2  # not a log: MLC001 alone, no round needed to say so
    assert "MLC001" in out and "(not an MLPerf log)" in out
    shutil.copy(ROUNDS / "v2.0" / "closed_ssd_retinanet.pass.txt", log)
    code, out = _run("--ruleset", "v2.0", "-v", str(log))  # an explicit flag wins
    assert code == 0 and "ruleset 2.0.0 (from flag: --ruleset v2.0)" in out
    code, out = _run("-v", str(log))  # auto: the content allows several rounds, said so;
    # the run's date (a fixture dated May 2021) chooses among them (docs/rounds.md)
    assert "from date" in out and "0.7.0, 1.0.0" in out and "run dated 2021-05-15" in out


def test_check_auto_uses_content_when_the_path_is_silent(tmp_path: Path) -> None:
    log = tmp_path / "result_0.txt"
    shutil.copy(ROUNDS / "v0.6" / "gnmt.pass.txt", log)
    code, out = _run("--ruleset", "auto", "-v", str(log))
    assert code == 0 and "ruleset 0.6.0 (from content: :::MLL syntax" in out


def test_check_v0_5_says_no_rules_exist() -> None:
    code, out = _run("--ruleset", "0.5.0", str(ROUNDS / "v0.5.0" / "resnet.pass.txt"))
    assert code == 0 and "no compliance rules exist for round 0.5.0" in out
    assert choose(str(ROUNDS / "v0.5.0" / "resnet.pass.txt")).ruleset == "0.5.0"


# ------------------------------------------------------------------ the official oracle

# Fixtures whose official 4.1.68 verdict is knowingly not ours (docs/differences.md).
OFFICIAL_DIFFERS = {
    "v1.1/closed_resnet_no_weights.pass.txt": "fail",  # era tool: warning
    "v1.1/closed_resnet_tensor_all.pass.txt": "fail",
    # 0.7.0 has no RNN-T rules: the official checker crashes looking for them
    "v0.7/closed_rnnt.fail.MLC050.txt": "crash: FileNotFoundError: closed_rnnt.yaml",
}
OFFICIAL_RULESET = {"v0.6": "0.6.0", "v0.7": "0.7.0", "v1.1": "1.1.0", "v2.0": "2.0.0"}


@pytest.mark.slow
@needs(has_module("mlperf_logging"), "official mlperf-logging absent (test extras)")
@pytest.mark.parametrize(
    "path",
    [p for p in LOGS if p.parent.name in OFFICIAL_RULESET],
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_fixture_agrees_with_the_official_checker(path: Path, tmp_path: Path) -> None:
    name = f"{path.parent.name}/{path.name}"
    ours = "fail" if EXPECTED.search(path.name) else "pass"
    expected = OFFICIAL_DIFFERS.get(name, ours)
    # It writes compliance_checker.log into the working directory: keep that out of the tree.
    verdict, output = official_cli(path, OFFICIAL_RULESET[path.parent.name], tmp_path)
    assert verdict == expected, output


@pytest.mark.corpus
def test_a_round_of_another_syntax_is_a_usage_error_with_a_guess(corpus: Path) -> None:
    """--ruleset v0.5 (a slip for v5.0) on a published v5.0 log: v0.5 has no rules, so
    the log got parse checks only and passed; its syntax cannot be v0.5's: exit 2."""
    log = next(iter(sorted((corpus / "v5.0").rglob("result_0.txt"))))
    code, out = _run("--ruleset", "v0.5", str(log))
    assert code == 2, out
    assert "round 0.5.0 is written :::MLPv0.5.0, this log :::MLLOG" in out
    assert "did you mean 5.0.0?" in out
    # A real v0.5 log still gets its parse checks with the flag.
    v05 = next(iter(sorted((corpus / "v0.5").rglob("*.txt"))))
    code, out = _run("--ruleset", "v0.5", str(v05))
    assert code in (0, 1) and "cannot be the log's round" not in out
