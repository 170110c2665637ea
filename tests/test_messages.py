"""Messages say what is wrong first: a missing item before the expected list, and the
closest known name for a misspelled benchmark or key ("did you mean")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES

from mllog_check import parse_text
from mllog_check.results import compute_scores
from mllog_check.rules import check_log
from mllog_check.submission.package import check_package
from mllog_check.suggest import closest, did_you_mean

GOOD = (FIXTURES / "check" / "closed_resnet_lars.pass.txt").read_text()


def _messages(text: str, code: str, ruleset: str = "1.0.0") -> list[str]:
    verdict = check_log(parse_text(text, "result_0.txt"), ruleset)
    return [p.message for p in verdict.problems if p.rule == code]


def test_suggestions() -> None:
    assert closest("resnt", ["resnet", "rnnt", "ssd"]) == ["resnet"]
    assert closest("resnet", ["resnet", "rnnt"]) == []  # exact: nothing to suggest
    assert did_you_mean("gnmt", ["resnet", "bert"]) == ""
    assert did_you_mean("maskrnn", ["maskrcnn", "ssd"]) == ' (did you mean "maskrcnn"?)'


@pytest.mark.corpus
def test_missing_tensor_is_named_first_with_the_expected_count(corpus: Path) -> None:
    """A real v1.1 ResNet log (161 tensors) with conv0_weight removed: the message starts
    with what is missing, not with the 161 expected names."""
    log = corpus / "v1.1/Baidu/results/1_node_8_A100_NGC21.05_MXNet/resnet/result_0.txt"
    text = "".join(
        line
        for line in log.read_text().splitlines(keepends=True)
        if '"tensor": "conv0_weight"' not in line
    )
    (message,) = _messages(text, "MLC041", "1.1.0")
    assert message.startswith(
        "closed resnet: weights_initialization missing 1 of the 161 expected tensor values: "
        "conv0_weight;"
    )
    assert len(message) < 200 and "bn0_gamma" not in message


def test_missing_tensor_fixture() -> None:
    text = (FIXTURES / "check" / "closed_rnnt.fail.MLC041.txt").read_text()
    (message,) = _messages(text, "MLC041")
    assert "missing 1 of the 7 expected tensor values: joint_net;" in message


def test_misspelled_benchmark_value() -> None:
    text = GOOD.replace('"value": "resnet"', '"value": "resnt"', 1)
    (message,) = [m for m in _messages(text, "MLC050") if "submission_benchmark" in m]
    assert 'submission_benchmark is "resnt": not a benchmark of training-1.0.0' in message
    assert message.endswith('no round has it (did you mean "resnet"?)')


def test_misspelled_key() -> None:
    text = GOOD.replace('"key": "submission_benchmark"', '"key": "submission_benchmrk"', 1)
    (message,) = [m for m in _messages(text, "MLC010") if "submission_benchmark" in m]
    assert message.endswith(
        "the log has submission_benchmrk at line 1: did you mean submission_benchmark?"
    ), message
    # an unrelated unknown key is not offered
    text = GOOD.replace('"key": "submission_benchmark"', '"key": "my_own_key"', 1)
    (message,) = [m for m in _messages(text, "MLC010") if "submission_benchmark" in m]
    assert "did you mean" not in message


def test_misspelled_benchmark_folder_in_score_and_package(tmp_path: Path) -> None:
    tree = tmp_path / "t"
    shutil.copytree(FIXTURES / "score" / "olympic", tree)
    results = tree / "Example" / "results" / "sys8"
    (results / "resnet").rename(results / "resnt")
    (score,) = compute_scores([str(tree)], "1.0.0").scores
    assert 'resnt is not a benchmark of round v1.0 (did you mean "resnet"?)' in score.reason
    org = tmp_path / "Acme"
    shutil.copytree(FIXTURES / "package" / "clean" / "Acme", org)
    for folder in (org / "results").glob("*/resnet"):
        folder.rename(folder.with_name("resnt"))
    messages = [p.message for p in check_package(org, "1.0.0").problems if p.rule == "MLP005"]
    assert messages and all('(did you mean "resnet"?)' in m for m in messages)


@pytest.mark.corpus
def test_misspelled_benchmark_option_of_cost(corpus: Path) -> None:
    from click.testing import CliRunner

    from mllog_check.cli import cli

    org = corpus / "v1.0" / "Graphcore"
    prices = FIXTURES / "prices" / "sample.csv"
    out = CliRunner().invoke(
        cli, ["cost", str(org), "--benchmark", "resnt", "--prices", str(prices)]
    )
    assert out.exit_code == 2
    assert 'no result for --benchmark resnt (did you mean "resnet"?)' in out.output
