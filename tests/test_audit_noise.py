"""lines-after-run-stop reports what changes a result, once per file, not the trailer
keys frameworks always log; records at time_ms 0 are anomalies too (time-ms-zero)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FIXTURES

from mllog_check import parse_file, parse_text
from mllog_check.problems import Problem
from mllog_check.rules import check_log
from mllog_check.submission.anomalies import detect

GOOD = (FIXTURES / "check" / "closed_resnet_lars.pass.txt").read_text()


def _kinds(findings: list[Problem], kind: str) -> list[Problem]:
    return [f for f in findings if f.name == kind]


def _after(path: Path) -> list[Problem]:
    return _kinds(detect(parse_file(path).records), "lines-after-run-stop")


def _line(time_ms: int, key: str, value: object = None) -> str:
    return (
        f':::MLLOG {{"namespace": "", "time_ms": {time_ms}, "event_type": "POINT_IN_TIME", '
        f'"key": "{key}", "value": {value if value is not None else "null"}, '
        '"metadata": {"file": "train.py", "lineno": 1}}\n'
    )


def _stop_ms(text: str) -> int:
    import json

    line = next(x for x in text.splitlines() if '"key": "run_stop"' in x)
    return int(json.loads(line.split(" ", 1)[1])["time_ms"])


@pytest.mark.corpus
def test_trailer_keys_after_run_stop_are_not_reported(corpus: Path) -> None:
    """v2.0: Google BERT logs run_final, DLRM block_start/block_stop after run_stop."""
    v20 = corpus / "v2.0" / "Google" / "results"
    assert _after(v20 / "cloud-tpu-v4-6912-TF" / "bert" / "result_0.txt") == []
    assert _after(v20 / "research-tpu-v4-256-TF" / "dlrm" / "result_0.txt") == []
    ms = _stop_ms(GOOD)
    trailer = "".join(
        _line(ms + i, key, "1")
        for i, key in enumerate(("block_stop", "current_lr", "throughput", "tracked_stats"), 1)
    )
    assert _kinds(detect(parse_text(GOOD + trailer).records), "lines-after-run-stop") == []


@pytest.mark.corpus
def test_what_changes_a_result_is_reported_once_per_file(corpus: Path) -> None:
    # v0.7 Google JAX SSD: evaluations after run_stop
    (found,) = _after(corpus / "v0.7/Google/results/tpu-v3-4096-JAX/ssd/result_0.txt")
    assert "eval_accuracy at line 287 (+7)" in found.message and found.line == 287
    # v1.0 NVIDIA HugeCTR DLRM: the hyperparameters are logged after run_stop
    (found,) = _after(
        corpus / "v1.0/NVIDIA/results/dgxa100_ngc21.05_merlin_hugectr/dlrm/result_0.txt"
    )
    assert found.message.startswith(
        "after run_stop (line 61), records that change a result: hyperparameter train_samples "
        "at line 62"
    )
    assert "hyperparameter global_batch_size at line 69" in found.message
    assert "submission_org" not in found.message  # the header is not a result


def test_second_run_stop_and_hyperparameter_fixture() -> None:
    ms = _stop_ms(GOOD)
    lines = GOOD.count("\n")
    text = GOOD + _line(ms + 5, "throughput", "9") + _line(ms + 9, "run_stop")
    (found,) = _kinds(detect(parse_text(text).records), "lines-after-run-stop")
    assert found.line == lines + 2 and f"second run_stop at line {lines + 2}" in found.message
    text = GOOD + _line(ms + 5, "global_batch_size", "512") + _line(ms + 6, "eval_accuracy", "0.8")
    (found,) = _kinds(detect(parse_text(text).records), "lines-after-run-stop")
    assert "hyperparameter global_batch_size" in found.message and "eval_accuracy" in found.message


@pytest.mark.corpus
def test_time_ms_zero_lines_are_anomalies(corpus: Path) -> None:
    """A line appended by hand at time_ms 0, as all 30 Intel v1.0 DLRM logs end with
    (those logs are not in the corpus: appended here to a real v1.0 DLRM log)."""
    log = corpus / "v1.0/NVIDIA/results/dgxa100_ngc21.05_merlin_hugectr/dlrm/result_0.txt"
    text = log.read_text()
    if not text.endswith("\n"):
        text += "\n"
    text += _line(0, "submission_poc_name", '"someone"')
    result = parse_text(text, "result_0.txt")
    last = text.count("\n")
    assert [p.line for p in check_log(result, "1.0.0").problems if p.rule == "MLC107"] == [last]
    (found,) = _kinds(detect(result.records), "time-ms-zero")
    assert (found.line, found.message) == (
        last,
        f"1 records with time_ms 0: submission_poc_name at line {last} (all submission header)",
    )
    # Google v1.0 logs headers at time_ms 0: one row per file, first and last named
    google = corpus / "v1.0/Google/results/tpu-v4-1024-JAX/unet3d/result_4.txt"
    (found,) = _kinds(detect(parse_file(google).records), "time-ms-zero")
    assert found.line == 20 and "first submission_benchmark at line 20, last" in found.message
