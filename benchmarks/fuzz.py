"""Fuzz mllog-check with mutated real logs and result folders; count exceptions.

    python benchmarks/fuzz.py [--long] [--count N] [--logs N] [--folders N] [--yaml N]
                              [--seed S] [--jobs J]

Default: the CI figures (2,500 logs, 60 folders, 500 YAML documents). --long: 1,000,000
inputs (990,000 logs, 2,000 folders, 8,000 YAML documents); --count N: N inputs in those
proportions. Logs are the corpus's small result logs ($MLLOG_CORPUS or ../shared/corpus)
mutated in memory (bit flips, lines deleted, duplicated, shuffled, truncated, wrong value
types, renamed keys, bad time_ms, prefixes and CRLF, hostile values: integers beyond
4,300 digits, numbers beyond floats, NaN and infinities, escape sequences, workflow
commands and spreadsheet formulas; CR-separated records, more broken lines than a log
lists, lines longer than a chunk or than the line limit, gzip, gzip members by the thousand,
values and metadata fields nested 50 to 3,000 deep, huge strings in keys relations read,
sometimes with the relating line repeated a thousand times) and sent through parse
(the invariant records + line errors == marker lines, the streaming iterator), check
(strict too), round detection and the anomaly detectors, and some through check
--follow (its live check and status line fed random pieces; a followed file rewritten
in place, truncated and rewritten, swapped for a file, a FIFO, a link out or a folder:
a rewrite must be seen, an append not), and a few through check under a file
name holding a line feed and a forged verdict line; every problem's text form
must hold no control character and its CSV cells no formula, and no printed line may be
one a name forged. Folders are small real
result sets with their system description, mutated on disk (runs removed, duplicated,
renamed, emptied, truncated, run_start or run_stop removed, status aborted, a log
mutated, the description broken, hostile folder and file names (Unicode look-alikes
too), links leaving the tree or to devices, FIFOs, scaling factors out of range, a
folder 1,100 deep, node counts beyond any system, a power folder whose first node log holds
10^5 to 10^6 readings, an org folder and a log named to forge verdict lines, whose check,
package and audit text is searched for them) and sent through score (its tables
in every format), package and audit; nothing outside the tree may reach a score. YAML
documents (a price catalog, a --ruleset file) get alias bombs, self-references, deep
nesting, prices that are no amount, tags, truncation and bit flips, and must load or be
refused with the tool's own error. The mutations live in tests/fuzzing.py. Prints the
number of inputs and of exceptions (the first few in full); exit 1 when any input raised.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import fuzzing  # noqa: E402  (tests/fuzzing.py, shared with tests/test_fuzz.py)


def corpus_dir() -> Path:
    configured = os.environ.get("MLLOG_CORPUS")
    return Path(configured) if configured else ROOT.parent / "shared" / "corpus"


def _logs(corpus: str, seed: int, start: int, count: int) -> fuzzing.Outcome:
    return fuzzing.fuzz_logs(fuzzing.corpus_logs(Path(corpus)), count, seed, start)


def _folders(corpus: str, seed: int, start: int, count: int) -> fuzzing.Outcome:
    with tempfile.TemporaryDirectory(prefix="mllog-fuzz-") as work:
        return fuzzing.fuzz_folders(
            fuzzing.corpus_sets(Path(corpus)), count, seed, Path(work), start
        )


def _yaml(corpus: str, seed: int, start: int, count: int) -> fuzzing.Outcome:
    with tempfile.TemporaryDirectory(prefix="mllog-fuzz-") as work:
        return fuzzing.fuzz_yaml(count, seed, Path(work), start)


def run(kind: str, total: int, seed: int, jobs: int, corpus: Path) -> fuzzing.Outcome:
    """Inputs 0..total-1 in slices (one per worker task); same inputs whatever --jobs."""
    work = {"logs": _logs, "folders": _folders, "yaml": _yaml}[kind]
    step = {"logs": 500, "folders": 20, "yaml": 500}[kind]
    slices = [(start, min(step, total - start)) for start in range(0, total, step)]
    outcome = fuzzing.Outcome()
    if jobs == 1:
        for start, count in slices:
            outcome.add(work(str(corpus), seed, start, count))
        return outcome
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(work, str(corpus), seed, s, c) for s, c in slices]
        for future in futures:
            outcome.add(future.result())
    return outcome


def _split(count: int) -> tuple[int, int, int]:
    """N inputs as logs, folders and YAML documents (99 : 0.2 : 0.8)."""
    folders = max(1, count // 500)
    yaml_docs = max(1, count * 8 // 1000)
    return count - folders - yaml_docs, folders, yaml_docs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--long", action="store_true", help="1,000,000 inputs (--count)")
    parser.add_argument("--count", type=int, default=None, help="inputs in all, split")
    parser.add_argument("--logs", type=int, default=None)
    parser.add_argument("--folders", type=int, default=None)
    parser.add_argument("--yaml", type=int, default=None)
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--failures", type=Path, help="write every failure to this file")
    args = parser.parse_args()
    count = args.count if args.count is not None else (1_000_000 if args.long else None)
    split = _split(count) if count is not None else (2_500, 60, 500)
    logs = args.logs if args.logs is not None else split[0]
    folders = args.folders if args.folders is not None else split[1]
    yaml_docs = args.yaml if args.yaml is not None else split[2]
    corpus = corpus_dir()
    if not corpus.is_dir():
        print(f"corpus not found: {corpus} (set MLLOG_CORPUS)", file=sys.stderr)
        return 2
    total = fuzzing.Outcome()
    for kind, inputs in (("logs", logs), ("folders", folders), ("yaml", yaml_docs)):
        started = time.perf_counter()
        outcome = run(kind, inputs, args.seed, args.jobs, corpus)
        seconds = time.perf_counter() - started
        print(
            f"{kind}: {outcome.inputs} inputs, {len(outcome.failures)} exceptions "
            f"({seconds:.0f} s, seed {args.seed})",
            flush=True,
        )
        total.add(outcome)
    print(f"total: {total.inputs} inputs, {len(total.failures)} exceptions")
    if args.failures:
        args.failures.write_text("\n".join(total.failures), encoding="utf-8")
    for failure in total.failures[:10]:
        print(failure)
    return 1 if total.failures else 0


if __name__ == "__main__":
    sys.exit(main())
