"""Wall time of `mllog-check score` vs the official result summarizer on one round.

    python benchmarks/score_bench.py [--corpus ../shared/corpus] [--round v1.0] [--orgs A,B]

Runs, in this order and in the same environment:
1. `mllog-check score <round>/<Org> --format csv` for the chosen orgs, one process;
2. `python -m mlperf_logging.result_summarizer <Org> training <ruleset>` for each org,
   one after the other, on a temporary COPY of the round (the official tool writes
   scaling.json into the tree it scores).
Prints both wall times and the ratio (official / ours). Default orgs: Graphcore (60
logs); the whole v1.0 round takes the official tool minutes (about 390 s measured).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _timed(cmd: list[str], cwd: Path | None = None) -> tuple[float, int]:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    return time.perf_counter() - start, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    default = Path(os.environ.get("MLLOG_CORPUS", ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--corpus", type=Path, default=default)
    parser.add_argument("--round", default="v1.0")
    parser.add_argument("--ruleset", default="1.0.0")
    parser.add_argument("--orgs", default="Graphcore", help="comma-separated, or 'all'")
    args = parser.parse_args()
    round_dir = args.corpus / args.round
    if not round_dir.is_dir():
        sys.exit(f"no corpus round at {round_dir}")
    orgs = sorted(p.name for p in round_dir.iterdir() if (p / "results").is_dir())
    if args.orgs != "all":
        orgs = [o for o in orgs if o in args.orgs.split(",")]
    files = [f for o in orgs for f in (round_dir / o / "results").rglob("result_*.txt")]
    size = sum(f.stat().st_size for f in files)
    print(f"{args.round} {', '.join(orgs)}: {len(files)} logs, {size / 1e6:.1f} MB")
    cmd = [sys.executable, "-c", "from mllog_check.cli import main; main()", "score"]
    cmd += [str(round_dir / o) for o in orgs] + ["--ruleset", args.ruleset, "--format", "csv"]
    ours, code = _timed(cmd)
    print(f"mllog-check score: {ours:.2f} s (exit {code})")
    official = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "copy"
        shutil.copytree(round_dir, copy, symlinks=True)
        for org in orgs:
            summarizer = [sys.executable, "-m", "mlperf_logging.result_summarizer", org]
            seconds, code = _timed([*summarizer, "training", args.ruleset], cwd=copy)
            official += seconds
            print(f"official result_summarizer {org}: {seconds:.2f} s (exit {code})")
    print(f"official / mllog-check: {official / ours:.1f}x")


if __name__ == "__main__":
    main()
