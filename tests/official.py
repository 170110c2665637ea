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
