"""Differential test: mutated logs, our default verdict vs the official checker's.

Each mutant is a compliant fixture with one or two edits (a record dropped, repeated,
given another value, empty or no metadata, no value, two records swapped); the official checker
(`python -m mlperf_logging.compliance_checker`, an oracle only) runs on the same file.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import FIXTURES, has_module, needs
from official import official_cli

from mllog_check.rules import check_file

pytestmark = [
    pytest.mark.slow,
    needs(has_module("mlperf_logging"), "mlperf-logging not installed (test extras)"),
]

# Mutants the official checker crashes on (a traceback, no verdict), with ours: records
# without a value or metadata field (KeyError), and a division value that names a rules
# file it lacks.
CRASHES = [
    "closed_rnnt.pass.txt ['no-field@21', 'metadata@20']: ours False, official crash: "
    "KeyError: 'value'",
    "open_resnet.pass.txt ['no-field@22']: ours False, official crash: KeyError: 'value'",
    "closed_unet3d.pass.txt ['no-field@6']: ours False, official crash: KeyError: 'metadata'",
    "sample_closed_resnet_lars.pass.txt ['repeat@15', 'no-field@13']: ours False, "
    "official crash: KeyError: 'metadata'",
    "closed_unet3d.pass.txt ['drop@32', 'no-field@14']: ours False, official crash: "
    "KeyError: 'metadata'",
    "closed_ssd.pass.txt ['no-field@26']: ours False, official crash: KeyError: 'metadata'",
    "closed_resnet_sgd.pass.txt ['value@18', 'no-field@13']: ours False, official crash: "
    "KeyError: 'value'",
    "open_dlrm.pass.txt ['swap@21', 'value@3']: ours False, official crash: "
    "FileNotFoundError: x_common.yaml",
]
VALUES = [None, 0, 1, 2, 1e-4, 1e-3, 0.5, 1.0, 8192, "", "x", [1, 2], [43, 55], True, 0.9]


def _mutate(lines: list[str], rng: random.Random) -> str:
    index = [i for i, line in enumerate(lines) if ":::MLLOG " in line]
    i = rng.choice(index)
    ops = ["drop", "repeat", "value", "metadata", "swap", "repeat-other", "no-field"]
    op = rng.choice(ops)
    prefix, _, payload = lines[i].partition(":::MLLOG ")
    record = json.loads(payload)
    if op == "drop":
        del lines[i]
    elif op == "repeat":
        lines.insert(i + 1, lines[i])
    elif op == "swap":
        j = rng.choice(index)
        lines[i], lines[j] = lines[j], lines[i]
    else:
        if op == "metadata":
            record["metadata"] = {}
        elif op == "no-field":
            del record[rng.choice(["value", "metadata"])]
        else:
            record["value"] = rng.choice(VALUES)
        text = prefix + ":::MLLOG " + json.dumps(record)
        if op == "repeat-other":
            lines.insert(i + 1, text)
        else:
            lines[i] = text
    return f"{op}@{i + 1}"


def _official(path: Path) -> str:
    return official_cli(path, "1.0.0", path.parent)[0]


def test_mutants_agree_with_official(tmp_path: Path) -> None:
    rng = random.Random(20210519)
    sources = sorted((FIXTURES / "check").glob("*.pass.txt"))
    disagreements, crashes = [], []
    verdicts = []
    for n in range(36):
        source = rng.choice(sources)
        lines = source.read_text().splitlines()
        edits = [_mutate(lines, rng) for _ in range(rng.choice([1, 1, 2]))]
        path = tmp_path / f"mutant_{n}.txt"
        path.write_text("\n".join(lines) + "\n")
        ours, official = check_file(str(path), "1.0.0").passed, _official(path)
        verdicts.append(official)
        mutant = f"{source.name} {edits}: ours {ours}, official {official}"
        if official.startswith("crash"):
            crashes.append(mutant)  # no verdict to agree with
        elif ours != (official == "pass"):
            disagreements.append(mutant)
    assert not disagreements, "\n".join(disagreements)
    assert crashes == CRASHES, "\n".join(crashes)
    assert 5 <= verdicts.count("fail") <= len(verdicts) - 5  # both verdicts well represented


@pytest.mark.parametrize("path", sorted((FIXTURES / "check").glob("*.txt")), ids=lambda p: p.name)
def test_fixture_verdicts_are_the_official_ones(path: Path, tmp_path: Path) -> None:
    copy = tmp_path / path.name  # the official checker writes its log beside the file
    copy.write_bytes(path.read_bytes())
    official = "pass" if ".pass." in path.name else "fail"
    assert (check_file(str(copy), "1.0.0").passed, _official(copy)) == (
        official == "pass",
        official,
    )
