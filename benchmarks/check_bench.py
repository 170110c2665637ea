"""Wall time of `mllog-check check` vs the official compliance checker on corpus rounds.

    python benchmarks/check_bench.py [--corpus ../shared/corpus] [--sample N] [--repeat R]
    python benchmarks/check_bench.py --rounds v5.0,v5.1     # the v5.x corpus mode

`--rounds` names the corpus rounds to time (default v1.0), each with its own ruleset.

1. Round: `mllog-check check <corpus>/v1.0 --format json` (one process for every
   result log) against `python -m mlperf_logging.compliance_checker --usage training
   --ruleset 1.0.0 FILE`, one process per file, one after the other, as users run it.
   `--sample N` takes every k-th file for both tools (N files) for a quick run; the
   default is every file. The verdicts of both are compared on the way.
2. Single file: start-to-exit time of `mllog-check check FILE` vs the official command
   on the same file (the median-sized log of the round), median of R interleaved runs.
Both run with bytecode caching on (as installed for a user) after one warm-up run each.
Both tools run in the same environment, in the same run; only ratios are meaningful.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _official(ruleset: str) -> list[str]:
    command = [sys.executable, "-m", "mlperf_logging.compliance_checker"]
    return [*command, "--usage", "training", "--ruleset", ruleset]


def _ours() -> list[str]:
    found = shutil.which("mllog-check")
    return [found] if found else [sys.executable, "-c", "from mllog_check.cli import main; main()"]


# As installed for a user: bytecode caching on (this sandbox sets PYTHONDONTWRITEBYTECODE,
# which would make both tools recompile every module on every start).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _timed(cmd: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=ENV, capture_output=True, text=True, check=False)
    return time.perf_counter() - start, done


def _files(round_dir: Path, sample: int | None) -> list[Path]:
    files = sorted(round_dir.glob("*/results/*/*/result_*.txt"))
    if sample and sample < len(files):
        step = len(files) / sample
        files = [files[int(i * step)] for i in range(sample)]
    return files


def _ruleset(round_dir: Path) -> str:
    return round_dir.name.removeprefix("v") + ".0"


def _round(files: list[Path], round_dir: Path, work: Path) -> tuple[float, float]:
    whole = len(files) == len(_files(round_dir, None))
    targets = [str(round_dir)] if whole else [str(f) for f in files]
    ruleset = _ruleset(round_dir)
    command = [*_ours(), "check", "--ruleset", ruleset, "--format", "json", *targets]
    ours_s, done = _timed(command, work)
    verdicts = {
        str(Path(f["path"]).resolve()): f["verdict"] for f in json.loads(done.stdout)["files"]
    }
    official_s = 0.0
    agree = 0
    for f in files:
        seconds, result = _timed([*_official(ruleset), str(f)], work)
        official_s += seconds
        official = "pass" if result.returncode == 0 else "fail"
        agree += verdicts.get(str(f.resolve())) == official
    print(f"round {round_dir.name}: {len(files)} result logs ({'all' if whole else 'sample'})")
    print(f"  mllog-check (1 process)          {ours_s:8.2f} s")
    print(f"  official (1 process per file)    {official_s:8.2f} s")
    print(f"  ratio                            {official_s / ours_s:8.1f}x")
    print(f"  verdicts agreeing                {agree}/{len(files)}")
    return ours_s, official_s


def _single(file: Path, repeat: int, work: Path, ruleset: str) -> None:
    ours: list[float] = []
    official: list[float] = []
    for _ in range(repeat):  # interleaved so that load changes hit both alike
        ours.append(_timed([*_ours(), "check", "--ruleset", ruleset, str(file)], work)[0])
        official.append(_timed([*_official(ruleset), str(file)], work)[0])
    a, b = statistics.median(ours), statistics.median(official)
    print(f"single file {file.name} ({file.stat().st_size / 1e3:.0f} kB), median of {repeat}:")
    print(f"  mllog-check check FILE           {a * 1000:8.0f} ms")
    print(f"  official checker FILE            {b * 1000:8.0f} ms")
    print(f"  ratio                            {b / a:8.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(os.environ.get("MLLOG_CORPUS", ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--corpus", type=Path, default=default)
    parser.add_argument("--sample", type=int, default=None, help="check N files only")
    parser.add_argument("--repeat", type=int, default=11, help="single-file runs each")
    parser.add_argument("--rounds", default="v1.0", help="corpus rounds, comma-separated")
    args = parser.parse_args()
    rounds = [args.corpus / name.strip() for name in args.rounds.split(",")]
    missing = [str(r) for r in rounds if not r.is_dir()]
    if missing:
        sys.exit(f"corpus round not found: {', '.join(missing)}")
    with tempfile.TemporaryDirectory() as tmp:  # the official tool writes its log in cwd
        work = Path(tmp)
        total_ours = total_official = 0.0
        for round_dir in rounds:
            files = _files(round_dir, args.sample)
            ruleset = _ruleset(round_dir)
            # Warm-up of both: bytecode written, mllog-check's validated-rules cache filled.
            _timed([*_ours(), "check", "--ruleset", ruleset, str(files[0])], work)
            _timed([*_official(ruleset), str(files[0])], work)
            ours_s, official_s = _round(files, round_dir, work)
            total_ours += ours_s
            total_official += official_s
        if len(rounds) > 1:
            print(f"all rounds: ratio {total_official / total_ours:.1f}x")
        last = rounds[-1]
        by_size = sorted(_files(last, None), key=lambda f: f.stat().st_size)
        _single(by_size[len(by_size) // 2], args.repeat, work, _ruleset(last))  # median-sized


if __name__ == "__main__":
    main()
