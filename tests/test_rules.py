"""The compliance engine on hand-written logs: fixtures/check/ and the rule data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT

from mllog_check import parse_text
from mllog_check.problems import Severity
from mllog_check.rules import (
    RulesetError,
    UnknownRuleset,
    available_rulesets,
    check_file,
    check_log,
    load_ruleset,
)
from mllog_check.rules.examples import GOOD, good, line
from mllog_check.rules.schema import describe, multiple_of, power_of_two_times

CHECK = FIXTURES / "check"
RULESETS = CHECK / "rulesets"
LOGS = sorted(CHECK.glob("*.txt"))


def _errors(verdict) -> list[str]:  # type: ignore[no-untyped-def]
    return sorted({p.rule for p in verdict.problems if p.severity is Severity.ERROR})


def test_fixtures_cover_every_benchmark_both_divisions_both_ways() -> None:
    names = {p.name for p in LOGS}
    for bench in (
        "bert",
        "dlrm",
        "maskrcnn",
        "minigo",
        "resnet_lars",
        "resnet_sgd",
        "rnnt",
        "ssd",
        "unet3d",
    ):
        assert f"closed_{bench}.pass.txt" in names
        assert any(n.startswith(f"closed_{bench}.fail.") for n in names)
        assert f"closed_{bench}.fail.MLC040.txt" in names
        if bench != "resnet_sgd":
            short = bench.split("_")[0]
            assert f"open_{short}.pass.txt" in names
            assert f"open_{short}.fail.MLC040.txt" in names


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_fixture_verdict(path: Path) -> None:
    verdict = check_file(str(path), "1.0.0")
    match = re.search(r"\.fail\.(MLC\d+)\.txt$", path.name)
    if match is None:
        assert verdict.passed, [str(p) for p in verdict.problems]
        assert not verdict.problems
    else:
        assert not verdict.passed
        assert _errors(verdict) == [match.group(1)]
    division, _, rest = path.name.removeprefix("sample_").partition("_")
    assert verdict.division == division
    assert verdict.benchmark is not None and rest.startswith(verdict.benchmark)


def test_message_names_section_value_and_requirement() -> None:
    verdict = check_log(parse_text(good({"lars_opt_end_learning_rate": 0.001}), "r.txt"), "1.0.0")
    [problem] = verdict.problems
    assert f"{problem.location()}: {problem.rule} {problem.message} [{problem.name}]" == (
        "r.txt:11:1: MLC020 closed resnet (lars): lars_opt_end_learning_rate is 0.001, "
        "must be 0.0001 [bad-value]"
    )


def test_missing_key_points_at_file_and_says_why() -> None:
    verdict = check_log(
        parse_text(GOOD.replace('"key": "submission_status"', '"key": "x"'), "r"), "1.0.0"
    )
    [problem] = [p for p in verdict.problems if p.rule == "MLC010"]
    assert (problem.line, problem.column) == (0, 0)
    assert "submission_status is missing: required exactly once" in problem.message
    assert "availability category" in problem.message


def test_all_problems_kept_not_last_per_key() -> None:
    text = GOOD.replace('"metadata": {"epoch_num": 1}', '"metadata": {}')
    text = text.replace('"metadata": {"epoch_num": 2}', '"metadata": {}')
    verdict = check_log(parse_text(text, "r"), "1.0.0")
    lines = [p.line for p in verdict.problems if p.rule == "MLC021"]
    assert len(lines) == 6 and lines == sorted(lines)  # eval_start/accuracy/stop, 2 epochs


def test_positions_are_file_lines_with_noise_between() -> None:
    text = "noise\n\nmore noise\n" + good({"lars_epsilon": 0.1})
    [problem] = check_log(parse_text(text, "r"), "1.0.0").problems
    expected = text.splitlines().index(line("lars_epsilon", 0.1, t=1500).rstrip("\n")) + 1
    assert (problem.line, problem.column) == (expected, 1) and expected == 17


def test_deepest_section_replaces_a_key_rule_minigo_blocks() -> None:
    # closed_minigo names block_start without requirement: common's metadata rule is lifted,
    # as the official chain does; the epoch/block alternative group stays.
    text = (CHECK / "closed_minigo.pass.txt").read_text()
    text = text.replace('{"first_epoch_num": 1, "epoch_count": 1}', "{}")
    assert check_log(parse_text(text), "1.0.0").passed
    resnet = GOOD.replace('{"first_epoch_num": 1, "epoch_count": 1}', "{}")
    assert _errors(check_log(parse_text(resnet), "1.0.0")) == ["MLC021"]


def test_strict_promotes_warnings_only_under_strict() -> None:
    text = GOOD.replace('{"status": "success"}', '{"status": "aborted"}')
    assert check_log(parse_text(text), "1.0.0").passed
    strict = check_log(parse_text(text), "1.0.0", strict=True)
    assert not strict.passed and _errors(strict) == ["MLC105"]


def test_repeated_same_value_is_a_warning_different_an_error() -> None:
    same = GOOD.replace(line("opt_name", "lars", t=1500), line("opt_name", "lars", t=1500) * 2)
    verdict = check_log(parse_text(same), "1.0.0")
    assert verdict.passed and [p.rule for p in verdict.problems] == ["MLC101"]
    other = GOOD.replace(
        line("opt_name", "lars", t=1500),
        line("opt_name", "lars", t=1500) + line("opt_name", "sgd", t=1500),
    )
    assert "MLC011" in _errors(check_log(parse_text(other), "1.0.0"))


def test_ssd_lost_check_is_a_warning_kept_check_an_error() -> None:
    text = (CHECK / "closed_ssd.pass.txt").read_text()
    lost = check_log(parse_text(text.replace("[44, 55]", "[43, 55]")), "1.0.0")
    assert lost.passed and [p.rule for p in lost.problems] == ["MLC102"]
    kept = check_log(parse_text(text.replace("[44, 55]", "[44, 54]")), "1.0.0")
    assert _errors(kept) == ["MLC020"]


def test_init_limit_thirty_minutes_boundary() -> None:
    start = 1621118606000 + 1000
    for minutes, ok in ((29.99, True), (30.0, False)):
        stop = int(start + minutes * 60000)
        text = GOOD.replace('"time_ms": 1621118666000', f'"time_ms": {stop}')
        text = text.replace("1621118666001", str(stop + 1))
        assert check_log(parse_text(text), "1.0.0").passed is ok, minutes


def test_no_records_and_syntax_errors_fail() -> None:
    # MLC001 alone: the keys a non-log lacks would only bury the one answer.
    assert _errors(check_log(parse_text("hello\n"), "1.0.0")) == ["MLC001"]
    broken = GOOD + ':::MLLOG {"key": "eval_accuracy", "time_ms": 1\n'
    verdict = check_log(parse_text(broken), "1.0.0")
    assert not verdict.passed and any(p.rule.startswith("MLS") for p in verdict.problems)


def test_ruleset_names_and_unknown() -> None:
    assert "training-1.0.0" in available_rulesets()
    assert load_ruleset("1.0.0") is load_ruleset("training-1.0.0")
    assert check_log(parse_text(GOOD), "training-1.0.0").ruleset == "training-1.0.0"
    with pytest.raises(UnknownRuleset):
        check_log(parse_text(GOOD), "0.4.0")
    assert issubclass(UnknownRuleset, ValueError)


def test_inheritance_override_remove_add() -> None:
    path = str(RULESETS / "training-9.9.0.yaml")
    rules = load_ruleset(path)
    assert rules.name == "training-9.9.0"
    assert "closed_minigo" not in rules.sections and "closed_toy" in rules.sections
    assert "gradient_accumulation_steps" not in rules.sections["closed"].keys
    assert rules.params["backwards_tolerance_ms"] == 5000
    # Unchanged rules are inherited as they are.
    assert rules.sections["closed_ssd"].keys == load_ruleset("1.0.0").sections["closed_ssd"].keys
    # Override: init 25 minutes passes v1.0 (30) and fails 9.9.0 (20).
    text = GOOD.replace('"time_ms": 1621118666000', '"time_ms": 1621120107000')
    text = text.replace("1621118666001", "1621120107001")
    assert check_log(parse_text(text), "1.0.0").passed
    assert _errors(check_log(parse_text(text), path)) == ["MLC031"]
    momentum = check_log(parse_text(good({"lars_opt_momentum": 0.8})), path)
    assert "closed resnet (lars, 9.9): lars_opt_momentum is 0.8" in momentum.problems[0].message


def test_inheritance_two_levels_from_same_folder() -> None:
    rules = load_ruleset(str(RULESETS / "training-9.9.1.yaml"))
    assert "lars_epsilon" not in rules.sections["closed_resnet_lars"].keys
    assert "lars_opt_momentum" in rules.sections["closed_resnet_lars"].keys
    verdict = check_log(
        parse_text(good({"lars_epsilon": None})), str(RULESETS / "training-9.9.1.yaml")
    )
    assert verdict.passed and verdict.ruleset == "training-9.9.1"


def test_bad_ruleset_files_are_refused() -> None:
    with pytest.raises(RulesetError, match="occurs"):
        load_ruleset(str(RULESETS / "bad-format.yaml"))
    with pytest.raises(RulesetError, match="loop"):
        load_ruleset(str(RULESETS / "training-9.9.3.yaml"))


def test_arithmetic_keywords_use_official_tolerance() -> None:
    spec = {"base": 0.02, "tolerance": 1e-5}
    assert multiple_of(0.24, spec) and multiple_of(0.02 * 7 + 1e-8, spec)
    assert not multiple_of(0.25, spec) and not multiple_of("0.24", spec)
    assert not multiple_of(True, spec) and not multiple_of(float("inf"), spec)
    pow2 = {"base": 0.0001, "tolerance": 1e-5}
    assert power_of_two_times(5e-05, pow2) and power_of_two_times(0.0008, pow2)
    assert not power_of_two_times(0.0003, pow2) and not power_of_two_times(0, pow2)


def test_describe_reads_like_the_rule() -> None:
    assert describe({"const": 0.0001}) == "must be 0.0001"
    assert describe({"type": "number", "minimum": 0.759, "exclusiveMaximum": 1.0}) == (
        "must be ≥ 0.759 and < 1.0"
    )
    assert describe({"xPowerOfTwoTimes": {"base": 0.0001, "tolerance": 1e-5}}) == (
        "must be 2^N times 0.0001"
    )


def test_no_eval_or_exec_in_rules_code() -> None:
    for path in (ROOT / "mllog_check" / "rules").glob("*.py"):
        source = path.read_text()
        assert not re.search(r"\b(eval|exec)\(", source), path
