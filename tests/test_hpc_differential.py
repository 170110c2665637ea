"""Differential test for the MLPerf HPC rules: mutated real logs, ours vs official.

Each mutant is a real HPC corpus log (one per benchmark and DeepCAM variant) with one
edit: a key's records dropped, or its first record given another value. The official
checker (mlperf-logging, `--usage hpc`, an oracle only) runs in process on the same file,
as its result summarizer runs it. Verdicts must agree (docs/hpc.md).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import has_module, needs

from mllog_check import parse_file
from mllog_check.rules import check_file, engine, load_ruleset

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.slow,
    needs(has_module("mlperf_logging"), "mlperf-logging not installed (test extras)"),
]

MARK = ":::MLLOG "
VALUES = [None, 0, -1, 1, 0.5, 1.0, 1e-6, "", "x", True, False, [1, 2], 121266, 0.0]
# (round folder, ruleset, a glob of one base log): every benchmark, both DeepCAM schedulers
BASES = [
    ("hpc-v1.0", "1.0.0", "LBNL/results/*/strong/oc20/result_1.txt"),
    ("hpc-v1.0", "1.0.0", "LBNL/results/*/weak/cosmoflow/result_1.txt"),
    ("hpc-v2.0", "2.0.0", "tacc/results/*/strong/deepcam/result_1.txt"),
    ("hpc-v3.0", "3.0.0", "Clemson/results/*/strong/deepcam/result_0.txt"),
    ("hpc-v3.0", "3.0.0", "HPE+LBNL/results/*/strong/deepcam/result_1.txt"),
    ("hpc-v3.0", "3.0.0", "TACC/results/*/strong/openfold/result_1.txt"),
]
PER_BASE = 40  # mutants per base log (sampled with a fixed seed)


def _records(path: Path) -> list[tuple[str, dict[str, object] | None]]:
    out: list[tuple[str, dict[str, object] | None]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(MARK):
            out.append((line, json.loads(line[len(MARK) :])))
        else:
            out.append((line, None))
    return out


def _mutants(path: Path, release: str) -> list[tuple[str, str]]:
    """(description, text) of the base log's mutants, sampled."""
    records = _records(path)
    chain = engine.chain(load_ruleset(f"hpc-{release}"), parse_file(str(path)).records)
    keys = sorted({k for section in chain for k in section.keys})
    logged = {str(r["key"]) for _, r in records if r is not None}
    found: list[tuple[str, str]] = []
    for key in keys:
        if key not in logged:
            continue
        kept = [line for line, r in records if r is None or r["key"] != key]
        found.append((f"drop {key}", "\n".join(kept) + "\n"))
        for value in VALUES:
            lines, done = [], False
            for line, r in records:
                if r is not None and r["key"] == key and not done:
                    line = MARK + json.dumps({**r, "value": value})
                    done = True
                lines.append(line)
            found.append((f"{key} = {value!r}", "\n".join(lines) + "\n"))
    # order: a key's first record moved to the start or to the end of the log
    ordered = {"init_start", "init_stop", "run_start", "run_stop", "staging_start",
               "staging_stop", "block_start", "epoch_start", "eval_start"}  # fmt: skip
    for key in sorted(logged & ordered):
        first = next(i for i, (_, r) in enumerate(records) if r is not None and r["key"] == key)
        rest = [line for i, (line, _) in enumerate(records) if i != first]
        moved = records[first][0]
        found.append((f"{key} first", "\n".join([moved, *rest]) + "\n"))
        found.append((f"{key} last", "\n".join([*rest, moved]) + "\n"))
    random.Random(f"{path.name}{release}").shuffle(found)
    return found[:PER_BASE]


def _official(path: Path, release: str) -> bool:
    from mlperf_logging.compliance_checker import mlp_compliance

    checker = mlp_compliance.make_checker(usage="hpc", ruleset=release, quiet=True, werror=False)
    try:
        valid, *_ = mlp_compliance.main(str(path), f"hpc_{release}/common.yaml", checker)
    except Exception:  # the official checker raising is its failure
        return False
    return bool(valid)


@pytest.mark.parametrize(("round_", "release", "pattern"), BASES)
def test_mutated_hpc_logs_get_the_official_verdict(
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    round_: str,
    release: str,
    pattern: str,
) -> None:
    import logging

    monkeypatch.chdir(tmp_path)  # the official checker writes its log in the cwd
    base = next(iter(sorted((corpus / round_).glob(pattern))))
    differing = []
    logging.disable(logging.CRITICAL)
    try:
        mutants = _mutants(base, release)
        assert len(mutants) == PER_BASE
        for i, (what, text) in enumerate(mutants):
            path = tmp_path / f"result_{i}.txt"
            path.write_text(text, encoding="utf-8")
            ours = check_file(str(path), f"hpc-{release}").passed
            if ours != _official(path, release):
                differing.append(f"{what}: ours {'pass' if ours else 'fail'}")
    finally:
        logging.disable(logging.NOTSET)
    assert differing == []
