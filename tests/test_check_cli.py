"""``mllog-check check``: exit codes, directory walk, formats, determinism, light imports."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES

from mllog_check.cli import cli

CHECK = FIXTURES / "check"
GOOD = str(CHECK / "sample_closed_resnet_lars.pass.txt")
BAD = str(CHECK / "closed_resnet_lars.fail.MLC020.txt")


def _run(*args: str) -> tuple[int, str]:
    # The fixtures are v1.0 logs outside any round folder: name the round (the default,
    # auto, would take the newest round their content allows, and say so).
    chosen = [] if any(a.startswith("--ruleset") for a in args) else ["--ruleset", "1.0.0"]
    result = CliRunner().invoke(cli, ["check", *chosen, *args])
    return result.exit_code, result.output


def test_exit_codes() -> None:
    assert _run(GOOD)[0] == 0
    assert _run(GOOD, BAD)[0] == 1
    assert _run("no/such/file.txt")[0] == 2
    code, out = _run("--ruleset", "0.1.0", GOOD)
    assert code == 2 and "unknown ruleset" in out
    assert _run("--format", "yaml", GOOD)[0] == 2
    assert _run("--ruleset", "training-1.0.0", GOOD)[0] == 0


def test_strict_turns_stable_warnings_into_failure(tmp_path: Path) -> None:
    # MLC101 (stable): an exactly-once key logged twice with the same value.
    lines = Path(GOOD).read_text().splitlines(keepends=True)
    once = next(line for line in lines if '"key": "submission_org"' in line)
    log = tmp_path / "result_0.txt"
    log.write_text("".join([*lines[:2], once, *lines[2:]]))
    assert _run(str(log))[0] == 0
    code, out = _run("--strict", str(log))
    assert code == 1 and "MLC101" in out
    # Ignored, a check beyond the official ones no longer fails the log.
    assert _run("--strict", "--ignore", "MLC101", str(log))[0] == 0


def test_strict_leaves_preview_rules_warnings(tmp_path: Path) -> None:
    # MLC105 (preview: docs/differences.md has no firing table for it yet).
    log = tmp_path / "result_0.txt"
    log.write_text(Path(GOOD).read_text().replace('"success"', '"aborted"'))
    code, out = _run("--strict", str(log))
    assert code == 0 and "MLC105" not in out
    code, out = _run("--strict", "--preview", str(log))
    assert code == 0 and "warning: MLC105" in out


def test_directory_walk_takes_result_logs_only(tmp_path: Path) -> None:
    tree = tmp_path / "results" / "sys" / "resnet"
    tree.mkdir(parents=True)
    shutil.copy(GOOD, tree / "result_0.txt")
    shutil.copy(BAD, tree / "result_1.txt")
    shutil.copy(BAD, tree / "train.log")
    (tree / "README.md").write_text("not a log\n")
    (tree / ".result_0.txt.swp").write_text("junk\n")
    # what the official checker writes into the folder it runs in: not a result log
    (tree / "compliance_checker.log").write_text("INFO - Running compliance\n")
    code, out = _run("--format", "json", str(tmp_path))
    assert code == 1
    paths = [f["path"] for f in json.loads(out)["files"]]
    assert [Path(p).name for p in paths] == ["result_0.txt", "result_1.txt"]
    assert _run("--format", "json", str(tmp_path)) == (code, out)  # identical run to run
    # other names: with --include, or named explicitly
    code, out = _run("--format", "json", "--include", "train*.log", str(tmp_path))
    paths = [f["path"] for f in json.loads(out)["files"]]
    assert [Path(p).name for p in paths] == ["result_0.txt", "result_1.txt", "train.log"]
    code, out = _run("--format", "json", str(tree / "train.log"))
    assert [Path(f["path"]).name for f in json.loads(out)["files"]] == ["train.log"]


def test_directory_walk_skips_the_official_checkers_own_log(tmp_path: Path) -> None:
    """A real submission folder after the official checker ran in it: PASS, not a FAIL
    for compliance_checker.log."""
    tree = tmp_path / "resnet"
    tree.mkdir()
    shutil.copy(GOOD, tree / "result_0.txt")
    (tree / "compliance_checker.log").write_text(
        "INFO - Running compliance on file: result_0.txt\nINFO - SUCCESS\n"
    )
    code, out = _run(str(tmp_path))
    assert code == 0, out
    assert "compliance_checker.log" not in out


def test_empty_directory_is_an_input_error(tmp_path: Path) -> None:
    code, out = _run(str(tmp_path))
    assert code == 2 and "no result logs" in out


@pytest.mark.parametrize("planted", [False, True], ids=["clean", "cadence-finding"])
def test_single_file_path_stays_light(tmp_path: Path, planted: bool) -> None:
    """The pre-commit hook runs this: no pandas, numpy, scipy, matplotlib, pyarrow or rich;
    nor the scorer, even for a log whose evaluation cadence (MLR060) check judges."""
    log = GOOD
    if planted:  # the cadence rule's bad example (tests/test_check_cadence.py)
        from test_check_cadence import _planted

        log = str(_planted(tmp_path))
    probe = (
        "import sys\n"
        "from mllog_check.cli import main\n"
        "try:\n"
        f"    main(['check', '--ruleset', '1.0.0', {log!r}])\n"
        "except SystemExit as e:\n"
        "    assert e.code == 0, e.code\n"
        "heavy = {'pandas', 'numpy', 'scipy', 'matplotlib', 'pyarrow', 'rich'} & set(sys.modules)\n"
        # A plain single-file check reads its options without click, decodes a
        # small log without orjson and reads prepared rules and schedules (no YAML,
        # jsonschema or lark; the cadence without the scorer, dataclasses or datetime).
        "light = {'click', 'orjson', 'yaml', 'jsonschema', 'lark', 'dataclasses', 'inspect',\n"
        "         'typing', 'datetime', 'mllog_check.results.scores',\n"
        "         'mllog_check.results.scoring'}\n"
        "heavy |= light & set(sys.modules)\n"
        "print(sorted(heavy))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"
    assert ("MLR060" in result.stdout) is planted


@pytest.mark.corpus
@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_a_reader_that_leaves_early_gets_no_traceback(corpus: Path, fmt: str) -> None:
    """`check DIR | head -1`: the pipe closes while check still writes (BrokenPipeError);
    exit quietly, as the commands click runs do."""
    code = "from mllog_check.cli import main; main()"
    args = [sys.executable, "-c", code, "check", str(corpus / "v1.0"), "--format", fmt]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # as head does after its line
    err = proc.stderr.read().decode()
    proc.wait(timeout=300)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert proc.returncode == 1


def test_a_file_that_is_not_a_log_gets_mlc001_alone_and_exit_2(tmp_path: Path) -> None:
    """`check README.md` gave MLC001, then a wall of MLC010 for the keys a log lacks."""
    notes = tmp_path / "README.md"
    notes.write_text("# Submission notes\n\nRun with 8 GPUs.\n")
    for flag in ([], ["--ruleset", "5.1"], ["--ruleset", "v0.5"]):
        done = CliRunner().invoke(cli, ["check", str(notes), *flag])
        codes = [line.split()[2] for line in done.output.splitlines() if ": error: " in line]
        assert codes == ["MLC001"], done.output
        assert done.exit_code == 2 and "FAIL" in done.output
    assert "(not an MLPerf log)" in CliRunner().invoke(cli, ["check", str(notes)]).output
    # Beside a real log, the log's verdict decides (exit 1: one file fails).
    log = FIXTURES / "check" / "sample_closed_resnet_lars.pass.txt"
    done = CliRunner().invoke(cli, ["check", str(notes), str(log), "--ruleset", "1.0.0"])
    assert done.exit_code == 1, done.output


@pytest.mark.corpus
def test_a_log_in_another_benchmarks_folder_is_said_by_the_hook(
    corpus: Path, tmp_path: Path
) -> None:
    """A compliant v5.1 llama2_70b_lora log filed in an rgat folder passed check silently
    (package scores it as rgat): MLP024 warns, --strict fails. No corpus log in its own
    folder gets it (measured over every round)."""
    source = corpus / "v5.1/AMD/results/MI300X_EPYC_9575F_pytorch_llama2_70b/llama2_70b_lora"
    folder = tmp_path / "Org/results/sys/rgat"
    folder.mkdir(parents=True)
    shutil.copy(source / "result_0.txt", folder / "result_0.txt")
    log = str(folder / "result_0.txt")
    done = CliRunner().invoke(cli, ["check", log, "--ruleset", "5.1.0"])
    assert done.exit_code == 0
    assert "warning: MLP024 submission_benchmark is 'llama2_70b_lora'" in done.output
    strict = CliRunner().invoke(cli, ["check", log, "--ruleset", "5.1.0", "--strict"])
    assert strict.exit_code == 1 and "error: MLP024" in strict.output
    same = CliRunner().invoke(cli, ["check", str(source), "--ruleset", "5.1.0"])
    assert same.exit_code == 0 and "MLP024" not in same.output
