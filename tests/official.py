"""The official per-file checker (mlperf-logging, an oracle only) as the differential
tests run it: its verdict is "pass", "fail", or "crash: <exception>" -- a crash exits
non-zero too, but it is no verdict to agree with, so the tests name each one."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

# A missing rules file by its name: its folder is wherever the package is installed.
_MISSING = re.compile(r"FileNotFoundError: \[Errno 2\] No such file or directory: '[^']*/([^/']+)'")


def official_cli(path: Path, ruleset: str, cwd: Path) -> tuple[str, str]:
    """The verdict of ``python -m mlperf_logging.compliance_checker`` on one file, and its
    output. It writes compliance_checker.log into ``cwd``."""
    command = [sys.executable, "-m", "mlperf_logging.compliance_checker", "--usage", "training"]
    command += ["--ruleset", ruleset, str(path)]
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)
    output = done.stdout + done.stderr
    if "Traceback (most recent call last)" in done.stderr:
        last = done.stderr.strip().splitlines()[-1]
        return "crash: " + _MISSING.sub(lambda m: f"FileNotFoundError: {m[1]}", last), output
    return ("pass" if done.returncode == 0 else "fail"), output


def repo_checker(org: Path, usage: str, ruleset: str, tmp: Path) -> str:
    """The verdict of ``python -m mlperf_logging.repo_checker`` on an org folder: "fail"
    when it prints CHECKS FAILED (it exits 0 either way), else "pass". It only walks the
    tree; its log goes to ``tmp``. Its ruleset choices start at 2.0.0 and change nothing
    it checks."""
    command = [sys.executable, "-m", "mlperf_logging.repo_checker", str(org), usage]
    command += [ruleset, "--log_output", str(tmp / "repo_checker.log")]
    done = subprocess.run(command, cwd=tmp, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return "fail" if "CHECKS FAILED" in done.stderr else "pass"


def verify_script(oracle_verdict: str, org: Path, usage: str, ruleset: str, tmp: Path) -> str:
    """The verify script's verdict: the official package checker's (the oracle row) and,
    in the rounds that have it (the registry's repo_checked), repo_checker's, run here
    where mlperf-logging is installed."""
    from conftest import has_module

    from mllog_check.rounds import parse_round

    rnd = parse_round(ruleset if usage == "training" else f"hpc-{ruleset}")
    if oracle_verdict != "pass" or not rnd.applies("repo_checked"):
        return oracle_verdict
    if not has_module("mlperf_logging"):
        return oracle_verdict
    return repo_checker(org, usage, ruleset, tmp)


def official_in_process(path: Path, usage: str, release: str) -> str:
    """The official per-file verdict without a process per file: "pass", "fail", or
    "crash: <exception>" (the CLI exits non-zero on a crash too, but a crash is no verdict
    to agree with). ``release`` is the official ruleset (6.0.0; 1.0.0 with usage hpc)."""
    import logging

    from mlperf_logging.compliance_checker import mlp_compliance as mc

    mc.enqueued_configs.clear()  # a crashed run leaves its queue behind
    checker = mc.make_checker(usage, release, True, False)
    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        passed = checker.check_file(str(path), f"{usage}_{release}/common.yaml")
    except Exception as err:
        # a missing rules file by its name (its folder is wherever the package is installed)
        missing = isinstance(err, OSError) and err.filename
        return f"crash: {type(err).__name__}: {Path(err.filename).name if missing else err}"
    finally:
        logging.disable(previous)
    return "pass" if passed else "fail"
