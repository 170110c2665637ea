"""MLPerf HPC speed: a whole HPC round against the official checker, and a weak-scaling
folder of 729 logs against Training logs, per megabyte (docs/hpc.md).

    python benchmarks/hpc_bench.py [--corpus ../shared/corpus] [--rounds hpc-v3.0]
                                   [--sample N] [--models 729]

1. Round: `mllog-check check <corpus>/<round> --format json` (one process for every log)
   against `python -m mlperf_logging.compliance_checker --usage hpc --ruleset X.Y.0 FILE`,
   one process per file, as users run it; verdicts compared on the way. Target: >= 20x.
2. Weak scaling: a folder of `--models` logs (the corpus's weak-scaling CosmoFlow models,
   copied round-robin into a temporary tree, as Fugaku's 729-model folders) checked and
   scored, against `check` and `score` of the Training v1.0 corpus round in the same run:
   ms per log, MB/s and records/s of each, and the ratio of the records/s (HPC /
   Training; 1 is the same speed per record). HPC logs hold more, shorter records per MB
   (165,195 records in 38 MB against v1.0's 95,274 in 35 MB), so per MB they look slower
   and per log faster; per record is the fair measure.

mllog-check runs from the current install; both tools with bytecode caching on after a
warm-up run; only ratios are meaningful.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OURS = [sys.executable, "-c", "from mllog_check.cli import main; main()"]


def _timed(cmd: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    result = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    return time.perf_counter() - start, result


def _round(round_dir: Path, sample: int | None, work: Path) -> float:
    from mllog_check.rounds import parse_round

    release = parse_round(round_dir.name).release
    files = sorted(round_dir.rglob("result_*.txt"))
    if sample:
        files = files[:: max(1, len(files) // sample)][:sample]
    official_cmd = [sys.executable, "-m", "mlperf_logging.compliance_checker", "--usage", "hpc"]
    official_cmd += ["--ruleset", release]
    _timed([*official_cmd, str(files[0])], work)  # warm-up (bytecode)
    _timed([*OURS, "check", str(files[0])], work)
    ours_s, result = _timed([*OURS, "check", "--format", "json", *map(str, files)], work)
    verdicts = {f["path"]: f["verdict"] for f in json.loads(result.stdout)["files"]}
    official_s, agree = 0.0, 0
    for path in files:
        seconds, done = _timed([*official_cmd, str(path)], work)
        official_s += seconds
        agree += verdicts.get(str(path)) == ("pass" if done.returncode == 0 else "fail")
    print(f"{round_dir.name}: {len(files)} logs, verdicts agree on {agree}")
    print(f"  mllog-check check (1 process)    {ours_s:8.2f} s")
    print(f"  official (1 process per file)    {official_s:8.2f} s")
    print(f"  ratio                            {official_s / ours_s:8.1f}x")
    return official_s / ours_s


def _weak_tree(corpus: Path, models: int, work: Path) -> Path:
    sources = sorted(corpus.glob("hpc-v*/*/results/*/weak/cosmoflow/result_*.txt"))
    if not sources:
        raise SystemExit("no weak-scaling CosmoFlow logs in the corpus")
    org = work / "hpc-v3.0" / "Example"
    folder = org / "results" / "big" / "weak" / "cosmoflow"
    folder.mkdir(parents=True)
    for i in range(models):
        shutil.copyfile(sources[i % len(sources)], folder / f"result_{i + 1}.txt")
    (org / "systems").mkdir()
    desc = {"division": "closed", "number_of_nodes": "1458", "accelerators_per_node": "4"}
    (org / "systems" / "big.json").write_text(json.dumps(desc), encoding="utf-8")
    return org


def _rate(label: str, folder: Path, work: Path) -> float:
    """Records/s of `check` plus `score` on a folder (one process each); prints more."""
    files = sorted(folder.rglob("result_*.txt"))
    size = sum(f.stat().st_size for f in files) / 1e6
    records = sum(f.read_bytes().count(b":::MLLOG") for f in files)
    check_s, _ = _timed([*OURS, "check", "--format", "json", str(folder)], work)
    score_s, _ = _timed([*OURS, "score", "--format", "json", str(folder)], work)
    total = check_s + score_s
    per_log = 1000 * total / len(files)
    print(
        f"  {label:<28} {len(files):5d} logs {size:7.1f} MB  check {check_s:6.2f} s  "
        f"score {score_s:6.2f} s  {per_log:6.1f} ms/log  {size / total:6.2f} MB/s  "
        f"{records / total / 1000:6.1f} k records/s"
    )
    return records / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--rounds", default="hpc-v3.0")
    parser.add_argument("--sample", type=int, default=None)
    parser.add_argument("--models", type=int, default=729)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:  # the official tool writes its log in cwd
        work = Path(tmp)
        for name in args.rounds.split(","):
            _round(args.corpus / name, args.sample, work)
        print(f"weak scaling ({args.models} models) against Training v1.0, check + score:")
        weak = _rate(
            f"HPC weak, {args.models} models", _weak_tree(args.corpus, args.models, work), work
        )
        training = _rate("Training v1.0 round", args.corpus / "v1.0", work)
        print(f"  per-record speed HPC / Training  {weak / training:8.2f}")


if __name__ == "__main__":
    main()
