"""What hostile inputs cost: peak memory and seconds of each, against its limit.

    python benchmarks/hostile_bench.py [--quick] [--only NAME]

Each case builds its input in a temporary folder from a real v5.0 log ($MLLOG_CORPUS or
../shared/corpus) and runs one command in a fresh Python process; the process's peak
resident memory (``ru_maxrss``) and seconds are printed beside the limit docs/security.md
states, and beside the baseline of the same run: the same command on the unmutated log
(the interpreter and imports included). The sizes are those of the reports that led to
the bounds (a 1 MB gzip holding one line, a million bad marker lines, 300,000
CR-separated records, YAML aliases nine deep; check --follow of a 256 MiB line without
a line feed, 2,000,000 bad eval_accuracy lines, 200,000 empty gzip members, a 64 KB
string repeated by YAML aliases, a 2 GB sparse pyproject.toml, a registry that is a FIFO
or /dev/zero; the fifth look of docs/security.md: an 8,000,000-character value three
relations quote and its line repeated 1,000 times, a power log of 1,000,000 readings,
4,000 and 200 runs near the RCP bound, package --staged with 100,000 staged paths);
--quick divides them by ten for CI.

Exit 1 when a case goes over its limit. ``check`` on millions of valid records is
printed for information: its memory still grows with the records (docs/security.md).
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINE = 8 << 20  # mllog_check.parsing.scanner.MAX_LINE (not imported: runs on old trees)
LOG = "v5.0/GigaComputing/results/G893-SD1_pytorch/llama2_70b_lora/result_0.txt"

PROBE = """
import resource, sys, time
from mllog_check.cli import main
start = time.perf_counter()
try:
    main(sys.argv[1:])
except SystemExit:
    pass
seconds = time.perf_counter() - start
sys.stderr.write(f"\\nRESULT {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss} {seconds}\\n")
"""


def corpus_dir() -> Path:
    configured = os.environ.get("MLLOG_CORPUS")
    return Path(configured) if configured else ROOT.parent / "shared" / "corpus"


@dataclass(frozen=True)
class Case:
    name: str
    what: str
    build: Callable[[Path, Path, int], list[str]]  # (work, log, scale) -> command args
    limit_mib: float
    limit_s: float
    bounded: bool = True  # False: printed for information only
    in_work: bool = False  # run in the case's folder (a pyproject.toml above it)
    env: dict[str, str] | None = None  # variables set, {work} replaced by the folder


def _record(log: Path) -> bytes:
    """One real :::MLLOG line of the log (its submission_org record)."""
    for line in log.read_bytes().splitlines():
        if b'"key": "submission_org"' in line:
            return line[line.index(b":::MLLOG") :]
    raise SystemExit(f"{log}: no submission_org record")


def long_line(work: Path, log: Path, scale: int) -> list[str]:
    path = work / "long.txt.gz"
    with gzip.open(path, "wb", compresslevel=9) as out:
        out.write(b":::MLLOG " + b"x" * 1_000_000)
        for _ in range(1000 // scale):
            out.write(b"x" * 1_000_000)
    return ["parse", "-q", str(path)]


def bad_lines(work: Path, log: Path, scale: int) -> list[str]:
    path = work / "bad.txt.gz"
    with gzip.open(path, "wb", compresslevel=9) as out:
        out.write(b":::MLLOG {broken\n" * (1_000_000 // scale))
    return ["parse", "-q", str(path)]


def cr_segments(work: Path, log: Path, scale: int) -> list[str]:
    path = work / "cr.txt"
    record = b":::MLLOG " + _record(log)[9:].replace(b" ", b"")  # its shortest form
    # As many as MAX_LINE allows on one line (300,000 of 28 bytes were reported; real
    # records are longer), after a non-ASCII prefix: columns count characters, the
    # slowest case, quadratic before.
    count = min(300_000, MAX_LINE // (len(record) + 1) - 1) // scale
    path.write_bytes("é ".encode() + b"\r".join([record] * count) + b"\n")
    return ["parse", "-q", str(path)]


def _laughs(levels: int, indent: str = "") -> str:
    """Anchors a0..a{levels-1}, each nine aliases of the one before (9**levels nodes)."""
    lines = [f"{indent}a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [
        f"{indent}a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)
    ]
    return "\n".join(lines) + "\n"


def yaml_prices(work: Path, log: Path, scale: int) -> list[str]:
    """A well-formed entry whose aliases hold the anchors and whose description is the
    expansion (a schema error message would print it whole)."""
    path = work / "prices.yaml"
    anchors = ["&a0 [x, x, x, x, x, x, x, x, x]"]
    anchors += [f"&a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    path.write_text(
        "prices:\n  - system: G893-SD1\n    price: 1\n    currency: USD\n    kind: list\n"
        "    includes: all\n    source: test\n    date: 2025-01-01\n"
        f"    aliases: [{', '.join(anchors)}]\n    description: *a8\n",
        encoding="utf-8",
    )
    return ["cost", "--ruleset", "5.0.0", "--prices", str(path), str(log)]


def yaml_ruleset(work: Path, log: Path, scale: int) -> list[str]:
    path = work / "rules.yaml"
    rules = "ruleset: evil\nparams:\n  warn_only_keys: *a9\n"
    path.write_text("anchors:\n" + _laughs(10, "  ") + rules, encoding="utf-8")
    return ["check", "--ruleset", str(path), str(log)]


def many_records(work: Path, log: Path, scale: int) -> list[str]:
    path = work / "result_0.txt.gz"
    lines = log.read_bytes().splitlines(keepends=True)
    body = [ln for ln in lines if b'"key": "eval_accuracy"' in ln][:1] or lines[-1:]
    stop = next(i for i, ln in enumerate(lines) if b'"key": "run_stop"' in ln)
    with gzip.open(path, "wb", compresslevel=9) as out:
        out.writelines(lines[:stop])
        for _ in range(4_000_000 // scale // 1000):
            out.write(b"".join(body * 1000))
        out.writelines(lines[stop:])
    return ["check", "--ruleset", "5.0.0", str(path)]


def follow_long_line(work: Path, log: Path, scale: int) -> list[str]:
    """check --follow of a log whose last line (after run_stop) has no line feed: 256 MiB
    of it took 1.35 GB (the follower kept it whole)."""
    path = work / "result_0.txt"
    with path.open("wb") as out:
        out.write(log.read_bytes().rstrip(b"\n") + b"\n:::MLLOG ")
        for _ in range(256 // scale):
            out.write(b"x" * (1 << 20))
    return ["check", "--follow", "--until", "run_stop", "--ruleset", "5.0.0", str(path)]


def rule_problems(work: Path, log: Path, scale: int) -> list[str]:
    """2,000,000 bad eval_accuracy lines in a gzip (3 MB): 2,000,000 problems before."""
    lines = log.read_bytes().split(b"\n")
    evaluation = next(ln for ln in lines if b'"key": "eval_accuracy"' in ln)
    value = evaluation.index(b'"value": ') + len(b'"value": ')
    bad = evaluation[:value] + b'"bad"' + evaluation[evaluation.index(b",", value) :] + b"\n"
    stop = next(i for i, ln in enumerate(lines) if b'"key": "run_stop"' in ln)
    path = work / "result_0.txt.gz"
    with gzip.open(path, "wb", compresslevel=9) as out:
        out.write(b"\n".join(lines[:stop]) + b"\n")
        for _ in range(2000 // scale):
            out.write(bad * 1000)
        out.write(b"\n".join(lines[stop:]))
    return ["check", "--ruleset", "5.0.0", str(path)]


def gzip_members(work: Path, log: Path, scale: int) -> list[str]:
    """200,000 empty gzip members in one 4 MB read chunk (quadratic before: 55-155 s)."""
    data = log.read_bytes()
    half = len(data) // 2
    path = work / "result_0.txt.gz"
    empty = gzip.compress(b"", mtime=0)
    path.write_bytes(
        gzip.compress(data[:half]) + empty * (200_000 // scale) + gzip.compress(data[half:])
    )
    return ["parse", "-q", str(path)]


def yaml_string(work: Path, log: Path, scale: int) -> list[str]:
    """A 98 KB price catalog repeating a 64 KB string through aliases (a 96 KB one took
    2.27 GB and printed a 328 MB message)."""
    path = work / "prices.yaml"
    aliases = ", ".join(["*s"] * (300 // scale))
    path.write_text(
        f"prices:\n  - system: G893-SD1\n    description: &s {'x' * 65_536}\n"
        f"    includes: &l [{aliases}]\n    aliases: [*l, *l, *l, *l]\n    price: 1\n"
        "    currency: USD\n    kind: list\n    source: test\n    date: 2025-01-01\n",
        encoding="utf-8",
    )
    return ["cost", "--ruleset", "5.0.0", "--prices", str(path), str(log)]


def pyproject_sparse(work: Path, log: Path, scale: int) -> list[str]:
    """A 2 GB sparse pyproject.toml in the working folder (read whole: 4.2 GB)."""
    with (work / "pyproject.toml").open("wb") as sparse:
        sparse.truncate((2 << 30) // scale)
    return ["check", str(log)]


def registry_fifo(work: Path, log: Path, scale: int) -> list[str]:
    """$MLLOG_CHECK_ROUNDS naming a FIFO (a hang before) and /dev/zero (memory)."""
    os.mkfifo(work / "rounds.yaml")
    return ["check", str(log)]


# A published log whose rules relate keys (closed Llama 3.1 405B: MLC051 relations).
RELATED = "v5.1/NVIDIA/results/tyche_ngpu512_ngc25.09_nemo/llama31_405b/result_0.txt"
# A published benchmark folder with power logs (one node log per run).
POWER = "v5.0/Lenovo/results/SR780aV3-8xB200_SXM_180GB/bert"
# A closed result near its RCP bound (docs/scores.md: pass probability 0.79).
NEAR_RCP = "v1.0/Graphcore/results/ipu-pod16-POPART-closed/bert"


def with_value(data: bytes, key: str, value: bytes) -> bytes:
    """The log with the first ``key`` record's value replaced by ``value`` (JSON); the
    fifth look's tests plant their values with it too."""
    lines = data.split(b"\n")
    index = next(i for i, ln in enumerate(lines) if f'"key": "{key}"'.encode() in ln)
    line = lines[index]
    start = line.index(b'"value": ') + len(b'"value": ')
    lines[index] = line[:start] + value + line[line.index(b', "metadata"', start) :]
    return b"\n".join(lines)


def _huge_batch(scale: int) -> bytes:
    huge = b'"' + b"A" * (8_000_000 // scale) + b'"'
    return with_value((corpus_dir() / RELATED).read_bytes(), "global_batch_size", huge)


def relation_value(work: Path, log: Path, scale: int) -> list[str]:
    """One 8,000,000-character global_batch_size that three relations quote (MLC051):
    one 8 MB problem line, 79 s and 283 MB before the message bounds."""
    path = work / "result_0.txt"
    path.write_bytes(_huge_batch(scale))
    return ["check", "--ruleset", "5.1.0", str(path)]


def relation_repeat(work: Path, log: Path, scale: int) -> list[str]:
    """That log with the line relating to the value repeated 1,000 times, gzipped
    (41 KB; 4.2 to 4.8 GB of memory before anything was printed)."""
    lines = _huge_batch(scale).split(b"\n")
    index = next(i for i, ln in enumerate(lines) if b'"key": "opt_base_learning_rate"' in ln)
    lines[index + 1 : index + 1] = [lines[index]] * 1_000
    path = work / "result_0.txt.gz"
    path.write_bytes(gzip.compress(b"\n".join(lines)))
    return ["check", "--ruleset", "5.1.0", str(path)]


def _copy_org(source: Path, work: Path) -> Path:
    """<work>/<org>/{systems/<system>.json, results/<system>/<benchmark>}: writable."""
    system, org_dir = source.parent, source.parent.parent.parent
    org = work / org_dir.name
    (org / "systems").mkdir(parents=True)
    shutil.copyfile(
        org_dir / "systems" / f"{system.name}.json", org / "systems" / f"{system.name}.json"
    )
    shutil.copytree(source, org / "results" / system.name / source.name)
    for path in org.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return org


def power_readings(work: Path, log: Path, scale: int) -> list[str]:
    """score of a result whose first run's node log holds 1,000,000 readings (about
    1 KB each before: 2,000,000 took over 300 s and 1.98 GB)."""
    org = _copy_org(corpus_dir() / POWER, work)
    bench = next((org / "results").glob("*/*"))
    node = bench / "power" / "result_0" / "node_0.txt"
    lines = node.read_bytes().splitlines(keepends=True)
    first = next(ln for ln in lines if b'"power_reading"' in ln)
    times = [int(re.search(rb'"time_ms": (\d+)', ln).group(1)) for ln in lines]  # type: ignore[union-attr]
    start, stop = min(times), max(times)
    head, rest = first.split(b'"time_ms": ', 1)
    middle, tail = rest[rest.index(b",") :].split(b'"value": ', 1)
    tail = tail[tail.index(b",") :]
    count = 1_000_000 // scale
    with node.open("wb") as out:
        out.writelines(ln for ln in lines if b'"power_reading"' not in ln and b"_stop" not in ln)
        for i in range(count):
            t = start + (stop - start) * (i + 1) // (count + 1)
            out.write(b'%s"time_ms": %d%s"value": %d.0%s' % (head, t, middle, 2800 + i % 600, tail))
        out.writelines(ln for ln in lines if b"power_measurement_stop" in ln)
    return ["score", "--ruleset", "5.0.0", str(org)]


def _many_runs(work: Path, runs: int) -> list[str]:
    org = _copy_org(corpus_dir() / NEAR_RCP, work)
    bench = next((org / "results").glob("*/*"))
    logs = sorted(bench.glob("result_*.txt"))
    for i in range(len(logs), runs):
        shutil.copyfile(logs[i % len(logs)], bench / f"result_{i}.txt")
    return ["score", "--ruleset", "1.0.0", "--runs", str(org)]


def rcp_runs(work: Path, log: Path, scale: int) -> list[str]:
    """A result near its RCP bound with 4,000 runs: the bootstrap took 47 ms a run
    (187 s); beyond MAX_RUNS (200) it gives no figure."""
    return _many_runs(work, 4_000 // scale)


def rcp_max_runs(work: Path, log: Path, scale: int) -> list[str]:
    """The same with 200 runs, the most the bootstrap takes (its work is bounded)."""
    return _many_runs(work, 200)


def staged_paths(work: Path, log: Path, scale: int) -> list[str]:
    """package --staged in a repository where 100,000 paths outside any org are staged
    (162 s before; git lists them in under a second)."""
    repo = work  # the command runs in it
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    for i in range(100_000 // scale):
        folder = repo / "notes" / f"d{i // 1000}" / "a" / "b"
        if i % 1000 == 0:
            folder.mkdir(parents=True)
        (folder / f"f{i}.txt").write_bytes(b"x")
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    return ["package", "--staged", "--ruleset", "5.0.0"]


CASES = (
    Case("long-line", "1 MB gzip of one 1 GB marker line", long_line, 200, 10),
    Case("bad-lines", "a million broken marker lines (20 KB gzip)", bad_lines, 200, 30),
    Case("cr-segments", "CR-separated records filling one 8 MiB line", cr_segments, 600, 60),
    Case("yaml-prices", "price catalog with aliases nine deep", yaml_prices, 200, 10),
    Case("yaml-ruleset", "--ruleset file with aliases ten deep", yaml_ruleset, 200, 10),
    Case("follow-line", "check --follow: a 256 MiB line without LF", follow_long_line, 100, 60),
    Case("rule-problems", "2 million bad eval_accuracy lines (gzip)", rule_problems, 400, 120),
    Case("gzip-members", "200,000 empty gzip members in one chunk", gzip_members, 100, 5),
    Case("yaml-string", "catalog repeating a 64 KB string by aliases", yaml_string, 100, 10),
    Case("pyproject", "2 GB sparse pyproject.toml", pyproject_sparse, 100, 10, in_work=True),
    Case(
        "registry-fifo",
        "$MLLOG_CHECK_ROUNDS is a FIFO",
        registry_fifo,
        100,
        10,
        env={"MLLOG_CHECK_ROUNDS": "{work}/rounds.yaml"},
    ),
    Case(
        "registry-zero",
        "$MLLOG_CHECK_ROUNDS is /dev/zero",
        lambda work, log, scale: ["check", str(log)],
        100,
        10,
        env={"MLLOG_CHECK_ROUNDS": "/dev/zero"},
    ),
    Case("relation-value", "an 8,000,000-character value in 3 relations", relation_value, 200, 30),
    Case("relation-many", "that relation line 1,000 times (gzip)", relation_repeat, 200, 30),
    Case("power-log", "score: a node log of 1,000,000 readings", power_readings, 400, 180),
    Case("rcp-runs", "score --runs: 4,000 runs near the RCP bound", rcp_runs, 600, 300),
    Case("rcp-200-runs", "score --runs: 200 runs, the bootstrap's most", rcp_max_runs, 300, 60),
    Case("staged", "package --staged: 100,000 paths, no org", staged_paths, 200, 30, in_work=True),
    Case("many-records", "check of 4 million valid records", many_records, 0, 0, bounded=False),
)


def measure(
    args: list[str], cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[float, float]:
    """(peak MiB, seconds) of one command in a fresh interpreter (a minute at most: a
    hang is reported as such)."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", PROBE, *args],
            capture_output=True,
            text=True,
            check=False,
            cwd=cwd,
            env={**os.environ, **(env or {})},
            timeout=300,
        )
    except subprocess.TimeoutExpired:
        return float("inf"), float("inf")
    last = [ln for ln in done.stderr.splitlines() if ln.startswith("RESULT ")]
    if not last:
        raise SystemExit(f"{args}: no measurement\n{done.stderr[-2000:]}")
    _, kib, seconds = last[-1].split()
    return int(kib) / 1024, float(seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="inputs ten times smaller")
    parser.add_argument("--only", action="append", help="run only this case (repeatable)")
    args = parser.parse_args()
    log = corpus_dir() / LOG
    if not log.is_file():
        print(f"corpus log not found: {log} (set MLLOG_CORPUS)", file=sys.stderr)
        return 2
    scale = 10 if args.quick else 1
    base_mib, base_s = measure(["check", "--ruleset", "5.0.0", str(log)])
    print(f"baseline: check of {log.name} (unmutated): {base_mib:.0f} MiB, {base_s:.2f} s\n")
    print(f"{'case':<14}{'MiB':>8}{'limit':>8}{'x base':>8}{'s':>8}{'limit':>7}  verdict  input")
    over = 0
    with tempfile.TemporaryDirectory(prefix="mllog-hostile-") as tmp:
        for case in CASES:
            if args.only and case.name not in args.only:
                continue
            work = Path(tmp) / case.name
            work.mkdir()
            env = {k: v.format(work=work) for k, v in (case.env or {}).items()}
            command = case.build(work, log, scale)
            mib, seconds = measure(command, work if case.in_work else None, env)
            ok = not case.bounded or (mib <= case.limit_mib and seconds <= case.limit_s)
            over += not ok
            verdict = ("ok" if ok else "OVER") if case.bounded else "info"
            limits = (f"{case.limit_mib:>8.0f}", f"{case.limit_s:>7.0f}")
            if not case.bounded:
                limits = (f"{'-':>8}", f"{'-':>7}")
            print(
                f"{case.name:<14}{mib:>8.0f}{limits[0]}{mib / base_mib:>8.1f}{seconds:>8.2f}"
                f"{limits[1]}  {verdict:<7}  {case.what}"
            )
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
