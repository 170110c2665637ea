"""The last gate before upload: the official verify script's package checker and
repo_checker, as the package's official-verdict line predicts them (docs/package.md,
"Repository checks"; docs/differences.md, "Where the official package checker stops").

Every case is a planted fault in a copy of a real corpus org (v5.0 GigaComputing's closed
rgat result, 10 runs); where mlperf-logging is installed the official tools run on the
same copy, and their verdict (a traceback is a failure) must equal the predicted one.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import has_module, require

from mllog_check.submission.package import check_package

ORG = "v5.0/GigaComputing"
SYSTEM = "G893-SD1_dgl"


def _plant(tmp_path: Path, corpus: Path) -> Path:
    source = corpus / ORG
    org = tmp_path / "copy" / "GigaComputing"
    shutil.copytree(source / "results" / SYSTEM, org / "results" / SYSTEM)
    (org / "systems").mkdir()
    shutil.copy(source / "systems" / f"{SYSTEM}.json", org / "systems")
    return org


def _edit(log: Path, pattern: str, new: str, key: str | None = None) -> None:
    """Replace ``pattern`` (a regex) by ``new`` on the lines of ``key`` (every line)."""
    lines = log.read_text().splitlines(keepends=True)
    for n, line in enumerate(lines):
        if key is None or f'"key": "{key}"' in line:
            lines[n] = re.sub(pattern, new, line)
    log.write_text("".join(lines))


def _official_package(org: Path, ruleset: str = "5.0.0") -> str:
    """mlperf-logging's package checker on ``org``: pass, fail or crash: <exception>."""
    log = org.parent / "package_checker.log"
    command = [sys.executable, "-m", "mlperf_logging.package_checker", str(org), "training"]
    command += [ruleset, "--log_output", str(log)]
    done = subprocess.run(
        command, cwd=org.parent, capture_output=True, text=True, timeout=300, check=False
    )
    if "Traceback (most recent call last)" in done.stderr:
        return "crash: " + done.stderr.strip().splitlines()[-1]
    return "pass" if "FOUND NO ERRORS" in log.read_text() else "fail"


def _official_repo(org: Path) -> str:
    """repo_checker's verdict: the CHECKS FAILED line (it exits 0 either way)."""
    command = [sys.executable, "-m", "mlperf_logging.repo_checker", str(org), "training"]
    command += ["5.0.0", "--log_output", str(org.parent / "repo_checker.log")]
    done = subprocess.run(
        command, cwd=org.parent, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0
    return "fail" if "CHECKS FAILED" in done.stderr else "pass"


RGAT = f"results/{SYSTEM}/rgat"
# (case, log, pattern, replacement, key it edits, the exception the official tool raises)
CRASHES = [
    ("declares-retinanet", "result_3.txt", '"rgat"', '"retinanet"', "submission_benchmark",
     "KeyError: None"),
    ("declares-gnn", "result_3.txt", '"rgat"', '"gnn"', "submission_benchmark",
     "FileNotFoundError"),
    ("division-closd", "result_3.txt", '"closed"', '"closd"', "submission_division",
     "FileNotFoundError"),
    ("batch-differs", "result_3.txt", '"value": 32768', '"value": 16384', "global_batch_size",
     "KeyError: None"),
    ("stop-without-status", "result_3.txt", '"status"', '"state"', "run_stop",
     "KeyError: 'status'"),
    ("eval-without-epoch", "result_3.txt", r', "epoch_num": [0-9.]+', "", "eval_accuracy",
     "KeyError: 'epoch_num'"),
    ("eval-a-string", "result_3.txt", r'"value": (0\.[0-9]+)', r'"value": "\1"', "eval_accuracy",
     "TypeError"),
    ("record-without-metadata", "result_3.txt", r', "metadata": \{[^}]*\}', "", "cache_clear",
     "KeyError: 'metadata'"),
]  # fmt: skip


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("case", "log", "pattern", "new", "key", "raised"), CRASHES, ids=[c[0] for c in CRASHES]
)
def test_an_official_crash_is_a_predicted_failure(
    corpus: Path,
    tmp_path: Path,
    case: str,
    log: str,
    pattern: str,
    new: str,
    key: str,
    raised: str,
) -> None:
    """One planted log makes the official package checker raise: its verdict is FAIL
    with why, never the PASS the olympic tolerance of one bad run would give."""
    org = _plant(tmp_path, corpus)
    _edit(org / RGAT / log, pattern, new, key)
    report = check_package(org, "5.0.0")
    stops = [p for p in report.problems if p.rule == "MLP044"]
    assert len(stops) == 1 and stops[0].is_error, [p.message for p in report.problems]
    assert raised.split(":")[0] in stops[0].message
    assert stops[0].message.startswith("the official package checker stops here: ")
    assert not report.official_passed and not report.passed
    if has_module("mlperf_logging"):
        official = _official_package(org)
        assert official.startswith("crash: ") and raised in official, official


@pytest.mark.corpus
def test_a_run_without_evaluation_before_run_stop_stops_the_rcp_step(
    corpus: Path, tmp_path: Path
) -> None:
    org = _plant(tmp_path, corpus)
    log = org / RGAT / "result_3.txt"
    log.write_text("".join(ln for ln in log.read_text().splitlines(True) if "eval_acc" not in ln))
    report = check_package(org, "5.0.0")
    stops = [p for p in report.problems if p.rule == "MLP044"]
    assert len(stops) == 1 and "UnboundLocalError" in stops[0].message
    assert not report.official_passed
    if has_module("mlperf_logging"):
        assert "UnboundLocalError" in _official_package(org)


@pytest.mark.corpus
def test_logs_declaring_no_benchmark_stop_the_rcp_step(corpus: Path, tmp_path: Path) -> None:
    """No log of a closed folder declares submission_benchmark: the compliance step fails
    them (it enqueues no benchmark rules), then the RCP step looks up None."""
    org = _plant(tmp_path, corpus)
    for log in sorted((org / RGAT).glob("result_*.txt")):
        kept = [ln for ln in log.read_text().splitlines(True) if "submission_benchmark" not in ln]
        log.write_text("".join(kept))
    report = check_package(org, "5.0.0")
    stops = [p for p in report.problems if p.rule == "MLP044"]
    assert len(stops) == 1 and "KeyError: None" in stops[0].message
    assert "declare no benchmark of 5.0.0" in stops[0].message
    if has_module("mlperf_logging"):
        assert _official_package(org) == "crash: KeyError: None"


@pytest.mark.corpus
def test_an_hpc_folder_beside_strong_and_weak_stops_the_walk(corpus: Path, tmp_path: Path) -> None:
    """MLPerf HPC v3.0 Clemson (official: pass) with results/<system>/pruned/old/: the
    official package checker asserts that every folder it walks sits in strong/ or weak/."""
    org = tmp_path / "hpc_results_v3.0" / "Clemson"
    shutil.copytree(corpus / "hpc-v3.0" / "Clemson", org)
    [system] = sorted((org / "results").iterdir())
    report = check_package(org, "auto")
    assert report.official_passed and not [p for p in report.problems if p.rule == "MLP044"]
    (system / "pruned" / "old").mkdir(parents=True)
    report = check_package(org, "auto")
    stops = [p for p in report.problems if p.rule == "MLP044"]
    assert [p.path for p in stops] == [str(system / "pruned")]
    assert "AssertionError" in stops[0].message and not report.official_passed
    if has_module("mlperf_logging"):
        log = tmp_path / "hpc.log"
        command = [sys.executable, "-m", "mlperf_logging.package_checker", str(org), "hpc"]
        done = subprocess.run(
            [*command, "3.0.0", "--log_output", str(log)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.stderr.strip().splitlines()[-1] == "AssertionError"


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("plant", "error"),
    [("missing", "FileNotFoundError"), ("not-json", "ValueError")],
)
def test_a_description_it_cannot_open_stops_the_official_checker(
    corpus: Path, tmp_path: Path, plant: str, error: str
) -> None:
    """The official package checker json.loads each result system's description: a
    missing one or one that is not JSON raises, so the verdict line says where it stops,
    as for the other crashes (was: a bare FAIL)."""
    org = _plant(tmp_path, corpus)
    description = org / "systems" / f"{SYSTEM}.json"
    if plant == "missing":
        description.unlink()
    else:
        description.write_text('{"division": "closed",\n', encoding="utf-8")
    report = check_package(org, "5.0.0")
    (stop,) = [p for p in report.problems if p.rule == "MLP044"]
    assert error in stop.message and not report.official_passed
    code = "from mllog_check.cli import main; main()"
    done = subprocess.run(
        [sys.executable, "-c", code, "package", str(org), "--ruleset", "5.0.0"],
        capture_output=True,
        text=True,
        check=False,
    )
    said = "official package checker verdict: FAIL (the official package checker stops here"
    assert done.returncode == 1 and said in done.stdout
    if has_module("mlperf_logging"):  # JSONDecodeError is a ValueError
        official = _official_package(org).replace("json.decoder.JSONDecodeError", "ValueError")
        assert error in official


POWER_SYSTEM = "SR780aV3-8xB200_SXM_180GB"


def _power_org(tmp_path: Path, corpus: Path) -> Path:
    """v5.0 Lenovo's bert result with its power logs (power/result_N/node_K.txt)."""
    source = corpus / "v5.0/Lenovo"
    org = tmp_path / "Lenovo"
    bert = f"results/{POWER_SYSTEM}/bert"
    shutil.copytree(source / bert, org / bert)
    (org / "systems").mkdir()
    shutil.copy(source / "systems" / f"{POWER_SYSTEM}.json", org / "systems")
    return org


@pytest.mark.corpus
@pytest.mark.parametrize("case", ["node-name", "no-run-folder", "run-folder-a-file"])
def test_the_power_step_stops_on_names_it_cannot_read(
    corpus: Path, tmp_path: Path, case: str
) -> None:
    org = _power_org(tmp_path, corpus)
    power = org / "results" / POWER_SYSTEM / "bert" / "power"
    if case == "node-name":
        (power / "result_0" / "node_0.txt").rename(power / "result_0" / "node_x.txt")
        raised = "ValueError"
    elif case == "no-run-folder":
        for folder in sorted(power.iterdir()):
            shutil.rmtree(folder)
        raised = "ValueError"
    else:
        shutil.rmtree(power / "result_0")
        (power / "result_0").write_text("")
        raised = "NotADirectoryError"
    report = check_package(org, "5.0.0")
    stops = [p for p in report.problems if p.rule == "MLP044"]
    assert len(stops) == 1 and f"{raised} in its power step" in stops[0].message
    assert not report.official_passed
    if has_module("mlperf_logging"):
        assert _official_package(org).startswith(f"crash: {raised}")


MASKRCNN = ("v3.0/GIGABYTE", "G593-SD0_pytorch")  # closed, 5 runs, reaches the target
# (case, pattern, replacement on result_3.txt's eval_accuracy lines, what the official
# tool raises or its verdict): its quality check reads BBOX, then SEGM only when BBOX is
# within its bounds (Python's ``and``).
NESTED = [
    ("a-number", r'\{"BBOX": ([0-9.]+), "SEGM": [0-9.]+\}', r"\1", "crash: TypeError"),
    ("no-bbox", '"BBOX"', '"bbox"', "crash: KeyError: 'BBOX'"),
    ("no-segm", '"SEGM"', '"segm"', "crash: KeyError: 'SEGM'"),
    ("segm-a-string-below-target", r'"SEGM": (0\.1[0-9]+)', r'"SEGM": "\1"', "pass"),
]  # fmt: skip


@pytest.mark.corpus
@pytest.mark.parametrize(("case", "pattern", "new", "official"), NESTED, ids=[c[0] for c in NESTED])
def test_a_nested_quality_target_it_cannot_read_stops_it(
    corpus: Path, tmp_path: Path, case: str, pattern: str, new: str, official: str
) -> None:
    """Mask R-CNN's target on BBOX and SEGM: a value its check cannot index or compare
    stops the official package checker (MLP044); one its ``and`` never reads does not."""
    round_name, system = MASKRCNN
    org = tmp_path / "GIGABYTE"
    folder = f"results/{system}/maskrcnn"
    shutil.copytree(corpus / round_name / folder, org / folder)
    (org / "systems").mkdir()
    shutil.copy(corpus / round_name / "systems" / f"{system}.json", org / "systems")
    log = org / folder / "result_3.txt"
    before = log.read_text()
    _edit(log, pattern, new, "eval_accuracy")
    assert log.read_text() != before
    report = check_package(org, "3.0.0")
    stops = [p for p in report.problems if p.rule == "MLP044"]
    if official == "pass":
        assert not stops and report.official_passed, [p.message for p in report.problems]
    else:
        raised = official.removeprefix("crash: ")
        assert len(stops) == 1 and raised in stops[0].message, [p.message for p in stops]
        assert stops[0].line > 0 and not report.official_passed
    if has_module("mlperf_logging"):
        theirs = _official_package(org, "3.0.0")
        assert theirs == official if official == "pass" else theirs.startswith(official)


@pytest.mark.corpus
def test_the_unplanted_copy_passes_both_tools_and_prints_no_crash(
    corpus: Path, tmp_path: Path
) -> None:
    for org in (_plant(tmp_path / "rgat", corpus), _power_org(tmp_path / "power", corpus)):
        report = check_package(org, "5.0.0")
        assert report.official_passed and report.passed
        assert not [p for p in report.problems if p.rule.startswith("MLP04")]
        if has_module("mlperf_logging"):
            assert (_official_package(org), _official_repo(org)) == ("pass", "pass")


@pytest.mark.corpus
def test_the_verdict_line_says_where_the_official_checker_stops(
    corpus: Path, tmp_path: Path
) -> None:
    org = _plant(tmp_path, corpus)
    _edit(org / RGAT / "result_3.txt", '"rgat"', '"retinanet"', "submission_benchmark")
    cli = [sys.executable, "-c", "from mllog_check.cli import main; main()"]
    done = subprocess.run(
        [*cli, "package", str(org), "--ruleset", "5.0.0"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("official package"))
    assert line.startswith(
        "official package checker verdict: FAIL (the official package checker stops here: "
        "KeyError: None in its RCP step (the logs declare different benchmarks: "
    )


# --- repository checks (repo_checker) ------------------------------------------------------


def _repo_plants(org: Path) -> list[tuple[str, Path]]:
    """The published cases, planted: a transfer leftover beside a result (v1.1), a system
    description named with a space (v1.0), a file over 50 MB, a broken link."""
    folder = org / RGAT
    leftover = folder / ".!65506!result_4.txt"
    shutil.copy(folder / "result_4.txt", leftover)
    spaced = org / "systems" / f"{SYSTEM} copy.json"
    shutil.copy(org / "systems" / f"{SYSTEM}.json", spaced)
    (org / "benchmarks" / "rgat").mkdir(parents=True)
    big = org / "benchmarks" / "rgat" / "graph.bin"
    with open(big, "wb") as out:
        out.truncate(50 * 1024 * 1024 + 1)  # sparse
    broken = org / "benchmarks" / "rgat" / "dataset"
    broken.symlink_to("missing")
    return [("MLP041", leftover), ("MLP041", spaced), ("MLP042", big), ("MLP043", broken)]


@pytest.mark.corpus
def test_repository_checks_are_the_official_repo_checker(corpus: Path, tmp_path: Path) -> None:
    org = _plant(tmp_path, corpus)
    planted = _repo_plants(org)
    report = check_package(org, "5.0.0")
    found = {(p.rule, p.path) for p in report.problems if p.rule in ("MLP041", "MLP042", "MLP043")}
    assert found == {(code, str(path)) for code, path in planted}
    assert all(p.is_error for p in report.problems if p.rule in ("MLP041", "MLP042", "MLP043"))
    # repo_checker's verdict, not the package checker's (one per official tool)
    assert report.repo_passed is False and report.official_passed and not report.passed
    if has_module("mlperf_logging"):
        assert _official_repo(org) == "fail"
    for _, path in planted:
        path.unlink()
    report = check_package(org, "5.0.0")
    assert report.official_passed and report.repo_passed
    if has_module("mlperf_logging"):
        assert _official_repo(org) == "pass"


@pytest.mark.corpus
def test_the_audit_runs_the_repository_checks(corpus: Path, tmp_path: Path) -> None:
    """A round folder holding the planted org: the audit fails it on the same paths."""
    from mllog_check.submission.audit import run_audit

    org = _plant(tmp_path, corpus)
    planted = _repo_plants(org)
    result = run_audit(org.parent, "5.0.0", jobs=1)
    [row] = result.orgs
    assert row["org"] == "GigaComputing" and not row["passed"]
    found = {(p.rule, Path(p.path).name) for p in result.problems if p.rule.startswith("MLP04")}
    assert found == {(code, path.name) for code, path in planted}


@pytest.mark.corpus
def test_repository_checks_start_with_the_round_of_repo_checker(corpus: Path) -> None:
    """v1.0 Graphcore published vim swap files in systems/ (no repo_checker then): stray
    files as before, no MLP041; its verdict stays the era checker's (RCP failure)."""
    report = check_package(corpus / "v1.0/Graphcore", "1.0.0")
    swaps = [p for p in report.problems if p.path.endswith(".swp")]
    assert swaps and {p.rule for p in swaps} == {"MLP004"}


@pytest.mark.corpus
def test_a_link_leaving_the_tree_fails_here_and_passes_officially(
    corpus: Path, tmp_path: Path
) -> None:
    """MLP007 is kept beyond the official tools: the official package checker reads a valid
    link to a log outside and counts it, repo_checker passes it; the official-verdict line
    says PASS, ours FAIL."""
    org = _plant(tmp_path, corpus)
    outside = tmp_path / "outside"
    outside.mkdir()
    log = org / RGAT / "result_3.txt"
    shutil.move(log, outside / "result_3.txt")
    log.symlink_to(outside / "result_3.txt")
    report = check_package(org, "5.0.0")
    errors = {p.rule for p in report.problems if p.is_error}
    assert errors == {"MLP007"}  # not followed; still counted as the official checker does
    assert report.official_passed and not report.passed
    if has_module("mlperf_logging"):
        assert (_official_package(org), _official_repo(org)) == ("pass", "pass")


def test_official_tools_are_installed_where_the_gate_is_tested() -> None:
    require(has_module("mlperf_logging"), "the official mlperf-logging package is not installed")
