"""``check --follow`` on a log written at speed: latency, CPU share, peak memory.

    python benchmarks/follow_bench.py [--rate 10000] [--repeat 5] [--every 1000] [--log PATH]

A writer process replays a real corpus log (default: an NVIDIA v1.0 Mask R-CNN log,
16,013 lines of which 896 are records, the rest framework output) into a growing file
at --rate lines per second, its training part (run_start to run_stop) --repeat times,
with a broken record line (a syntax error, reported at once) every --every lines.
Meanwhile ``mllog-check check --follow --until run_stop`` follows the file. Printed:

- latency: from the writer's write of a broken line to the follower's report of it on
  stderr (median, 95th percentile, max), against the 1 s limit;
- CPU share: the follower's user+system time over the replay's wall time, against 5%
  of one core; and as a ratio to ``check`` on the finished file (the same parse and
  rules, once), measured in the same run;
- memory: the follower's peak resident set against ``check``'s on the finished file
  (ratio), and its resident set at each quarter of the replay: flat when the last
  quarter's is under 1.2x the first's.

Exit 1 when a limit is exceeded.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_LOG = "v1.0/NVIDIA/results/dgxa100_ngc21.05_pytorch/maskrcnn/result_0.txt"
MAIN = "import sys; from mllog_check.cli import main; main(sys.argv[1:])"
LATENCY_LIMIT_S = 1.0
CPU_LIMIT = 0.05
FLAT_LIMIT = 1.2  # resident memory at the last quarter over the first
TICK_S = 0.01  # the writer writes a batch every 10 ms

WRITER = r"""
import sys, time
src, dst = sys.argv[1], sys.argv[2]
rate, repeat, every = float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
lines = open(src, "rb").read().splitlines(keepends=True)
start = next(i for i, l in enumerate(lines) if b'"key": "run_start"' in l)
stop = next(i for i, l in enumerate(lines) if b'"key": "run_stop"' in l)
body = lines[start + 1 : stop]
replay = lines[: start + 1] + body * repeat + lines[stop:]
per_tick = max(1, int(rate * 0.01))
out = open(dst, "ab", buffering=0)
t0 = time.monotonic()
number = 0
i = 0
while i < len(replay):
    batch = []  # a broken line every `every` lines; its number and time go to stdout
    for line in replay[i : i + per_tick]:
        number += 1
        if every and number % every == 0:
            batch.append(b':::MLLOG {"key": "broken", "value": \n')
            sys.stdout.write(f"{number} {time.monotonic()}\n")
            number += 1
        batch.append(line)
    i += per_tick
    out.write(b"".join(batch))
    sys.stdout.flush()
    sys.stdout.write(f"progress {i / len(replay):.3f}\n")
    sys.stdout.flush()
    delay = t0 + (i / per_tick) * 0.01 - time.monotonic()
    if delay > 0:
        time.sleep(delay)
sys.stdout.write(f"done {number} {time.monotonic() - t0}\n")
"""


def corpus_dir() -> Path:
    configured = os.environ.get("MLLOG_CORPUS")
    return Path(configured) if configured else ROOT.parent / "shared" / "corpus"


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _run_measured(args: list[str]) -> tuple[float, int, int]:
    """CPU seconds (user+system), peak RSS (KiB) and exit code of a child process."""
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss, proc.returncode


class Outcome:
    """What one replay measured."""

    def __init__(self, target: Path) -> None:
        self.target = target
        self.lines = 0
        self.wall = 0.0
        self.cpu_total = 0.0  # the follower's whole life: start-up, one-time loads, work
        self.peak_kib = 0
        self.quarters: list[tuple[float, float, int]] = []  # (time, CPU s, RSS KiB) per 1/4
        self.latencies: list[float] = []
        self.missed = 0
        self.code = 0

    def steady_share(self) -> float:
        """CPU share from the first quarter of the replay to its end (one-time loads,
        such as the round's rules compiled on the first record, come before)."""
        (t1, c1, _), (t4, c4, _) = self.quarters[0], self.quarters[-1]
        return (c4 - c1) / (t4 - t1) if t4 > t1 else 0.0


def follow(log: Path, rate: float, repeat: int, every: int, folder: Path) -> Outcome:
    target = folder / "v1.0" / "run.log"  # the round folder tells the round
    target.parent.mkdir(parents=True)
    target.touch()
    got = Outcome(target)
    follower = subprocess.Popen(
        [sys.executable, "-c", MAIN, "check", "--follow", "--until", "run_stop", str(target)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen: dict[int, float] = {}
    name = f"{target}:"

    def read() -> None:
        assert follower.stderr is not None
        for line in follower.stderr:
            if line.startswith(name) and "MLS" in line:
                number = int(line[len(name) :].split(":", 1)[0])
                seen.setdefault(number, time.monotonic())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(1.0)  # the follower's start-up is not the replay's
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(log), str(target), str(rate), str(repeat), str(every)],
        stdout=subprocess.PIPE,
        text=True,
    )
    written: dict[int, float] = {}
    t0 = time.monotonic()
    assert writer.stdout is not None
    for line in writer.stdout:
        if line.startswith("progress"):
            if float(line.split()[1]) >= (len(got.quarters) + 1) / 4:
                sample = (time.monotonic(), _cpu_s(follower.pid), _rss_kib(follower.pid))
                got.quarters.append(sample)
        elif line.startswith("done"):
            got.lines = int(line.split()[1])
        else:
            number, at = line.split()
            written[int(number)] = float(at)
    writer.wait()
    got.wall = time.monotonic() - t0
    _, status, usage = os.wait4(follower.pid, 0)
    follower.returncode = got.code = os.waitstatus_to_exitcode(status)
    reader.join(timeout=5)
    got.cpu_total = usage.ru_utime + usage.ru_stime
    got.peak_kib = usage.ru_maxrss
    got.latencies = sorted(seen[n] - at for n, at in written.items() if n in seen)
    got.missed = len(written) - len(got.latencies)
    return got


def _cpu_s(pid: int) -> float:
    """A running process's user+system CPU seconds (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def report(got: Outcome, check_cpu: float, check_kib: int, log: Path) -> bool:
    """Print the figures against the limits; whether all are within."""
    ok = True
    print(
        f"replayed {got.lines:,} lines in {got.wall:.1f} s ({got.lines / got.wall:,.0f} lines/s) "
        f"from {log}"
    )
    lat = got.latencies
    if lat:
        p95 = lat[int(0.95 * (len(lat) - 1))]
        print(
            f"latency  median {statistics.median(lat) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
            f"max {lat[-1] * 1000:.0f} ms over {len(lat)} problems "
            f"(limit {LATENCY_LIMIT_S * 1000:.0f} ms)"
        )
        ok &= lat[-1] < LATENCY_LIMIT_S
    if got.missed or not lat:
        print(f"latency  {got.missed} broken lines never reported")
        ok = False
    share = got.steady_share()
    print(
        f"cpu      {share * 100:.2f}% of one core while following (limit {CPU_LIMIT * 100:.0f}%); "
        f"the whole process {got.cpu_total:.2f} s = {got.cpu_total / check_cpu:.2f}x check on "
        f"the finished file ({check_cpu:.2f} s)"
    )
    ok &= share < CPU_LIMIT
    rss = ", ".join(f"{kib / 1024:.1f}" for _, _, kib in got.quarters)
    print(
        f"memory   peak {got.peak_kib / 1024:.0f} MiB = {got.peak_kib / check_kib:.2f}x check on "
        f"the finished file ({check_kib / 1024:.0f} MiB); resident at each quarter: {rss} MiB"
    )
    if got.quarters and got.quarters[0][2]:
        # Flat in the number of records (docs/design.md, memory): the last quarter's
        # resident memory over the first's.
        growth = got.quarters[-1][2] / got.quarters[0][2]
        print(f"memory   last quarter / first quarter: {growth:.2f}x (flat: < {FLAT_LIMIT})")
        ok &= growth < FLAT_LIMIT
    print("within the limits" if ok else "OVER A LIMIT")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--rate", type=float, default=10_000, help="lines per second")
    parser.add_argument("--repeat", type=int, default=5, help="times the training part")
    parser.add_argument("--every", type=int, default=1000, help="a broken line every N")
    parser.add_argument("--log", help="the log to replay (default: a corpus log)")
    args = parser.parse_args()
    log = Path(args.log) if args.log else corpus_dir() / DEFAULT_LOG
    if not log.is_file():
        sys.stderr.write(f"no log at {log} (set MLLOG_CORPUS or --log)\n")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        got = follow(log, args.rate, args.repeat, args.every, Path(tmp))
        check = [sys.executable, "-c", MAIN, "check", str(got.target)]
        check_cpu, check_kib, _ = _run_measured(check)
    return 0 if report(got, check_cpu, check_kib, log) else 1


if __name__ == "__main__":
    sys.exit(main())
