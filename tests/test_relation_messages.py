"""Relation rules (MLC051) say what they computed, report once per log where the data says
so, and take their code from the data (docs/rules.md, "Relations")."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FIXTURES

from mllog_check import parse_text
from mllog_check.problems import Problem, Severity
from mllog_check.rules import check_log

V6 = FIXTURES / "rounds" / "v6"


def _relations(text: str, ruleset: str = "6.1.0", path: str = "x.txt") -> list[Problem]:
    verdict = check_log(parse_text(text, path), ruleset)
    return [p for p in verdict.problems if p.rule == "MLC051"]


def _fixture(name: str) -> str:
    return (V6 / f"closed_{name}.pass.txt").read_text(encoding="utf-8")


def test_the_learning_rate_band_is_printed_with_the_batch_size() -> None:
    text = _fixture("dlrmv4").replace('"value": 1e-06,', '"value": 0.002,', 1)
    (problem,) = [p for p in _relations(text) if p.line == 13]
    # the band 0.5e-6 × B / 8192 … 1.5e-6 × B / 8192 at B = 8192, and where B came from
    assert "opt_base_learning_rate is 0.002: must satisfy within [0.5, 1.5]" in problem.message
    assert "computed 5e-07 ≤ value 0.002 holds" in problem.message
    assert "value 0.002 ≤ computed 1.5e-06 is false" in problem.message
    assert "global_batch_size = 8192 at line 7" in problem.message


def test_the_evaluation_grid_names_the_field_and_the_interval() -> None:
    text = _fixture("dlrmv4").replace('"samples_count": 57344000}', '"samples_count": 57344001}')
    (problem,) = [p for p in _relations(text) if "multiple of" in p.message]
    assert "eval_accuracy metadata.samples_count is 57344001" in problem.message
    assert "computed 1 = 0 is false" in problem.message  # 57344001 mod the interval
    assert "global_batch_size = 8192 at line 7" in problem.message
    assert problem.line == 29


def test_a_once_per_log_relation_reports_its_first_record_and_counts_the_rest() -> None:
    # Qwen's schedule: every evaluation off it (as after one missed point)
    text = _fixture("qwen35_397b_grpo")
    text = text.replace('"samples_count": 4608}', '"samples_count": 4600}')
    text = text.replace('"samples_count": 4864}', '"samples_count": 4856}')
    (problem,) = _relations(text)
    assert problem.line == 34 and problem.severity is Severity.ERROR
    assert "metadata.samples_count is 4600" in problem.message
    # B × ceil(2.5 + 3840 / B) + n × B at B = 256: 4608 for the first evaluation
    assert "metadata.samples_count 4600 = computed 4608 is false" in problem.message
    assert problem.message.endswith("(once per log: 1 more eval_accuracy records break it)")


@pytest.mark.corpus
def test_a_real_logs_relation_names_the_expected_value(corpus: Path) -> None:
    """A real v5.1 Llama 3.1 8B log with its decay steps changed: the message gives the
    value the relation expects (1,200,000 − warmup steps) and the warmup steps read."""
    found = sorted((corpus / "v5.1").glob("*/results/*/llama31_8b/result_0.txt"))
    assert found
    text = found[0].read_text(encoding="utf-8", errors="replace")
    assert check_log(parse_text(text, str(found[0])), "5.1.0").passed
    lines = text.splitlines()
    (at,) = [i for i, line in enumerate(lines) if '"opt_learning_rate_decay_steps"' in line]
    warm = next(line for line in lines if '"opt_learning_rate_warmup_steps"' in line)
    steps = int(warm.split('"value": ')[1].split(",")[0])
    lines[at] = lines[at].replace(f'"value": {1_200_000 - steps}', '"value": 1234', 1)
    (problem,) = _relations("\n".join(lines) + "\n", "5.1.0", str(found[0]))
    assert f"= {1_200_000 - steps} is false" in problem.message, problem.message
    assert f"opt_learning_rate_warmup_steps = {steps} at line" in problem.message


def test_a_relation_may_be_a_warning_by_data(tmp_path: Path) -> None:
    rules = tmp_path / "mine.yaml"
    rules.write_text(
        "ruleset: mine-1.0.0\nextends: training-6.1.0\nsections:\n  closed_dlrmv4:\n    keys:\n"
        "      eval_accuracy:\n        occurs: at_least_one\n        checks:\n"
        "          - {test: {le: [{this: value}, 0.5]}, says: '≤ 0.5', warn_as: MLC103}\n",
        encoding="utf-8",
    )
    verdict = check_log(parse_text(_fixture("dlrmv4"), "x.txt"), str(rules))
    warned = [p for p in verdict.problems if p.rule == "MLC103"]
    assert len(warned) == 2 and all(p.severity is Severity.WARNING for p in warned)
    assert "eval_accuracy is 0.74: must satisfy ≤ 0.5 (value 0.74 ≤ 0.5 is false)" in (
        warned[0].message
    )
