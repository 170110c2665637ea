"""Fuzz harness in CI: mutated real logs through parse and check, mutated real result
folders through score, package and audit; never an exception (tests/fuzzing.py).

A bounded, seeded number of inputs here; `python benchmarks/fuzz.py --long` runs
1,000,000 (or --count N) and prints the counts. A failure names the seed and input index that
replay it (``fuzz_logs(logs, 1, SEED, start=INDEX)``).
"""

from __future__ import annotations

import random
from pathlib import Path

import fuzzing
import pytest

SEED = 20261130
LOG_INPUTS = 2500
FOLDER_INPUTS = 60
YAML_INPUTS = 500


@pytest.mark.corpus
def test_mutated_logs_never_raise(corpus: Path) -> None:
    logs = fuzzing.corpus_logs(corpus)
    assert len({ruleset for _, ruleset in logs}) >= 10  # every round's rules take part
    outcome = fuzzing.fuzz_logs(logs, LOG_INPUTS, SEED)
    assert outcome.inputs == LOG_INPUTS
    assert outcome.failures == [], "\n".join(outcome.failures[:5])


@pytest.mark.corpus
def test_mutated_result_folders_never_raise(corpus: Path, tmp_path: Path) -> None:
    sets = fuzzing.corpus_sets(corpus)
    assert len({s.round_folder for s in sets}) >= 10
    outcome = fuzzing.fuzz_folders(sets, FOLDER_INPUTS, SEED, tmp_path)
    assert outcome.inputs == FOLDER_INPUTS
    assert outcome.failures == [], "\n".join(outcome.failures[:5])


def test_mutated_user_yaml_never_raises(tmp_path: Path) -> None:
    outcome = fuzzing.fuzz_yaml(YAML_INPUTS, SEED, tmp_path)
    assert outcome.inputs == YAML_INPUTS
    assert outcome.failures == [], "\n".join(outcome.failures[:5])


@pytest.mark.corpus
def test_hostile_folder_mutations_each_run(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Names, links, special files, scaling values, a deep folder, a long power log and
    names forging verdict lines, each at least once on a real result set (the random
    draw of the CI run may miss one). The power log is shorter here than in the long
    run (10^5 to 10^6 readings)."""
    monkeypatch.setattr(fuzzing, "POWER_READINGS", (20_000,))
    sets = fuzzing.corpus_sets(corpus)
    hostile = (
        *("hostile-names", "links", "special-files", "scaling-values", "deep-folder"),
        *("power-log", "forging-names"),
    )
    for i, name in enumerate(hostile):
        rng = random.Random(f"{SEED}:{name}")
        source = sets[rng.randrange(len(sets))]
        here = tmp_path / f"input-{i}"
        forging = name == "forging-names"
        org_name = fuzzing.FORGING_ORG if forging else None
        round_dir, org, bench = fuzzing._copy_set(source, here, org_name)
        fuzzing.FOLDER_MUTATIONS[name](bench, org, rng)
        ruleset = fuzzing.ruleset_of(source.round_folder)
        assert ruleset is not None
        fuzzing.check_folder_input(round_dir, org, ruleset, verdicts=forging)
        fuzzing.remove_tree(here)


@pytest.mark.corpus
def test_hostile_log_mutations_each_run(corpus: Path) -> None:
    """Values and metadata nested 50 to 3,000 deep, huge values in keys relations read,
    and a file name forging check's verdict line, on a few real logs each."""
    logs = fuzzing.corpus_logs(corpus)
    for name, mutate in (
        ("deep-values", fuzzing.deep_values),
        ("huge-relation-value", fuzzing.huge_relation_value),
    ):
        for i in range(6):
            rng = random.Random(f"{SEED}:{name}:{i}")
            path, ruleset = logs[rng.randrange(len(logs))]
            fuzzing.check_log_input(mutate(path.read_bytes(), rng), ruleset)
    path, ruleset = logs[0]
    fuzzing.verdict_name_input(b":::MLLOG {broken\n" + path.read_bytes(), ruleset)


def test_a_forged_verdict_line_is_found() -> None:
    """The harness's own check: a line a name forged fails the input."""
    fuzzing.no_forged_line(f"ok\n{fuzzing.FORGED[:-1]}x PASS")
    with pytest.raises(AssertionError):
        fuzzing.no_forged_line(f"ok\n{fuzzing.FORGED} PASS AMD")


def test_mutations_change_the_input_and_replay_from_the_seed() -> None:
    data = b"".join(
        b':::MLLOG {"namespace": "", "time_ms": %d, "event_type": "POINT_IN_TIME", '
        b'"key": "k%d", "value": 1, "metadata": {"file": "f", "lineno": 1}}\n' % (i, i)
        for i in range(40)
    )
    rare = {name: mutate for name, (_, mutate) in fuzzing.RARE_LOG_MUTATIONS.items()}
    for name, mutate in {**fuzzing.LOG_MUTATIONS, **rare}.items():
        changed = [mutate(data, random.Random(i)) != data for i in range(20)]
        assert sum(changed) >= 10, name
        assert mutate(data, random.Random(5)) == mutate(data, random.Random(5)), name


def test_the_harness_reports_an_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stage that raises is a failure with its seed and index, not a pass."""
    log = Path(__file__).resolve().parent.parent / "fixtures/check/closed_bert.pass.txt"

    def boom(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("planted")

    monkeypatch.setattr("mllog_check.rules.check_log", boom)
    outcome = fuzzing.fuzz_logs([(log, "1.0.0")], 3, SEED)
    assert outcome.inputs == 3 and len(outcome.failures) == 3
    assert outcome.failures[0].startswith(f"seed {SEED}, log 0 (")
    assert "ZeroDivisionError: planted" in outcome.failures[0]


def test_the_parse_invariant_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    from mllog_check.records import ParseResult

    counted = ParseResult.line_error_count.fget  # one line error too many, whatever the input
    assert counted is not None
    monkeypatch.setattr(ParseResult, "line_error_count", property(lambda self: counted(self) + 1))
    log = Path(__file__).resolve().parent.parent / "fixtures/check/closed_bert.pass.txt"
    outcome = fuzzing.fuzz_logs([(log, None)], 1, SEED)
    assert len(outcome.failures) == 1 and "marker lines" in outcome.failures[0]


@pytest.mark.corpus
def test_what_the_long_mode_found(corpus: Path) -> None:
    """benchmarks/fuzz.py --long, seed 20261130, log input 27701 (a real v1.0 ResNet log,
    lines shuffled, a value made 1e308-like): xPowerOfTwoTimes raised OverflowError. And
    an integer beyond floats (JSON allows it) raised in every arithmetic keyword."""
    outcome = fuzzing.fuzz_logs(fuzzing.corpus_logs(corpus), 1, SEED, start=27701)
    assert outcome.failures == [], outcome.failures
    from mllog_check import parse_text
    from mllog_check.rules import check_log

    log = Path(__file__).resolve().parent.parent / "fixtures/check/closed_maskrcnn.pass.txt"
    huge = "9" * 400
    text = log.read_text().replace(
        '"opt_base_learning_rate", "value": 0.24', (f'"opt_base_learning_rate", "value": {huge}')
    )
    verdict = check_log(parse_text(text), "1.0.0")
    (problem,) = [p for p in verdict.problems if p.rule == "MLC020"]
    assert "opt_base_learning_rate" in problem.message and not verdict.passed
