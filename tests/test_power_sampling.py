"""The power rules' sampling (MLE035 power-sampling-rate, MLE036 power-too-few-samples;
mllog_check/power/sampling.py, docs/power.md "Sampling"): on every published power log
of the corpus and on planted faults in copies of real ones.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from conftest import FIXTURES

from mllog_check.power import check_benchmark_folder

SAMPLING = {"MLE035", "MLE036"}
LENOVO_BERT = Path("v5.0/Lenovo/results/SR780aV3-8xB200_SXM_180GB/bert")


def _sampling(folder: Path) -> list[tuple[str, str]]:
    problems = check_benchmark_folder(str(folder)).problems
    return [(p.rule, Path(p.path).relative_to(folder).as_posix()) for p in problems]


def _time(line: str) -> int:
    return int(json.loads(line.split(":::MLLOG ", 1)[1])["time_ms"])


def _rewrite(path: Path, keep: object) -> None:
    lines = path.read_text().splitlines()
    path.write_text("".join(f"{text}\n" for text in keep(lines)))  # type: ignore[operator]


@pytest.mark.corpus
def test_no_published_power_log_breaks_the_sampling_rules(corpus: Path) -> None:
    """Counts per round for docs/differences.md: every corpus power log, none fires."""
    fired: Counter[str] = Counter()
    logs = 0
    for power in sorted(corpus.glob("*/*/results/*/*/power")):
        logs += len(list(power.glob("result_*/node_*.txt")))
        fired.update(
            power.relative_to(corpus).parts[0]
            for rule, _ in _sampling(power.parent)
            if rule in SAMPLING
        )
    assert logs == 35 and fired == Counter()


@pytest.mark.corpus
def test_a_real_log_thinned_to_every_two_seconds_warns_once_per_log(
    corpus: Path, tmp_path: Path
) -> None:
    """Every other reading of the v5.0 Lenovo bert logs removed: the 2 s cadence of the
    published v4.0 power orgs. One MLE035 for the result set naming every node log, none
    on the logs as published; no MLE036 (about 105 readings: more than 60, and once per
    second is 3.4's rule, MLE035's alone)."""
    copy = tmp_path / "bert"
    shutil.copytree(corpus / LENOVO_BERT, copy)
    assert not [r for r, _ in _sampling(copy) if r in SAMPLING]
    nodes = sorted(copy.glob("power/result_*/node_*.txt"))
    for node in nodes:
        _rewrite(
            node,
            lambda lines: [t for i, t in enumerate(lines) if '"power_reading"' not in t or i % 2],
        )
    found = Counter(rule for rule, _ in _sampling(copy))
    assert found == {"MLE035": 1}
    (message,) = [
        p.message for p in check_benchmark_folder(str(copy)).problems if p.rule == "MLE035"
    ]
    assert "one every 2 s (median)" in message and "at least one per 1 s" in message
    runs = {node.parent.name for node in nodes}
    assert f"in {len(nodes)} node logs of {len(runs)} run(s) in all: result_0/node_0.txt" in message


@pytest.mark.corpus
def test_a_real_log_with_a_hole_is_uneven(corpus: Path, tmp_path: Path) -> None:
    copy = tmp_path / "bert"
    shutil.copytree(corpus / LENOVO_BERT, copy)
    node = copy / "power" / "result_3" / "node_0.txt"
    _rewrite(node, lambda lines: lines[:50] + lines[55:])  # five readings mid-run
    assert _sampling(copy) == [("MLE035", "power/result_3/node_0.txt")]


@pytest.mark.corpus
def test_a_real_run_cut_below_sixty_readings_has_too_few(corpus: Path, tmp_path: Path) -> None:
    """A real bert run cut to 40 s, its log read every second up to a second after:
    the rate is kept, the count (about 43) is below 60."""
    copy = tmp_path / "bert"
    shutil.copytree(corpus / LENOVO_BERT, copy)
    result = copy / "result_0.txt"
    lines = result.read_text().splitlines()
    start = next(_time(t) for t in lines if '"key": "run_start"' in t)
    cut = start + 40_000
    _rewrite(result, lambda ls: [t for t in ls if _time(t) <= cut or '"run_stop"' in t])
    stop_line = next(t for t in result.read_text().splitlines() if '"run_stop"' in t)
    result.write_text(
        result.read_text().replace(
            stop_line, stop_line.replace(f'"time_ms": {_time(stop_line)}', f'"time_ms": {cut}')
        )
    )
    node = copy / "power" / "result_0" / "node_0.txt"
    stop = next(t for t in node.read_text().splitlines() if "power_measurement_stop" in t)
    end = cut + 1000
    moved = stop.replace(f'"time_ms": {_time(stop)}', f'"time_ms": {end}')
    _rewrite(node, lambda ls: [t for t in ls if _time(t) <= end and t != stop] + [moved])
    found = [(r, p) for r, p in _sampling(copy) if r in SAMPLING]
    assert found == [("MLE036", "power/result_0/node_0.txt")]


def test_fixtures_each_show_one_rule() -> None:
    power = FIXTURES / "power"
    assert _sampling(power / "per_second" / "resnet") == []
    assert [r for r, _ in _sampling(power / "uneven" / "resnet")] == ["MLE035"]
    assert [r for r, _ in _sampling(power / "too_few" / "resnet")] == ["MLE036"]


def test_a_zero_length_window_counts_the_readings_over_the_run(tmp_path: Path) -> None:
    """MLE007 (stop at start, the published v4.0 pattern): the count and the rate are
    judged on the readings over the run, so a log read every second passes both."""
    copy = tmp_path / "resnet"
    shutil.copytree(FIXTURES / "power" / "per_second" / "resnet", copy)
    node = copy / "power" / "result_0" / "node_0.txt"
    lines = node.read_text().splitlines()
    stop = lines[-1]
    zero = stop.replace(f'"time_ms": {_time(stop)}', f'"time_ms": {_time(lines[0])}')
    node.write_text("\n".join([lines[0], zero, *lines[1:-1]]) + "\n")
    assert {r for r, _ in _sampling(copy)} == {"MLE007"}


@pytest.mark.parametrize(
    "readings",
    [
        [],  # no readings: MLE024 says so, the sampling rules stay silent
        [(1000, 5.0)] * 50,  # all at one time
        [(t, 5.0) for t in range(-60_000, 0, 1000)],  # all before the window
        [(t, 5.0) for t in range(0, 200_000, 1000)] + [(10**20, 5.0)],  # one far away
    ],
)
def test_odd_logs_give_at_most_one_problem_per_rule(
    tmp_path: Path, readings: list[tuple[int, float]]
) -> None:
    def mllog(t: int, key: str, value: object) -> str:
        record = {"key": key, "value": value, "time_ms": t, "metadata": {}}
        return ":::MLLOG " + json.dumps(record) + "\n"

    folder = tmp_path / "b"
    (folder / "power" / "result_0").mkdir(parents=True)
    (folder / "result_0.txt").write_text(
        mllog(0, "run_start", None) + mllog(90_000, "run_stop", None)
    )
    body = [mllog(-1000, "power_measurement_start", None)]
    body += [mllog(t, "power_reading", w) for t, w in readings]
    body.append(mllog(91_000, "power_measurement_stop", None))
    (folder / "power" / "result_0" / "node_0.txt").write_text("".join(body))
    found = Counter(rule for rule, _ in _sampling(folder))
    assert found["MLE035"] <= 1 and found["MLE036"] <= 1
