"""Accelerator names normalized by the data table schemas/accelerators.yaml: every system
description of the corpus gets a model and a generation, and the filter finds a model
however its description spells it."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from mllog_check.results import compute_scores
from mllog_check.results.filters import ResultFilter
from mllog_check.results.hardware import accelerator, short_accelerator
from mllog_check.results.tree import read_system


def _descriptions(corpus: Path) -> list[Path]:
    return sorted(corpus.glob("*/*/systems/*.json"))


_KEYED_LINE = re.compile(r"^\s*\w+: \{")


def _neither_json_nor_keyed_lines(path: Path) -> bool:
    """Read here without the product: not JSON, and no `key: {json}` first line."""
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        json.loads(text)
    except ValueError:
        return _KEYED_LINE.match(text) is None
    return False


@pytest.mark.corpus
def test_every_corpus_description_gets_a_model_and_a_generation(corpus: Path) -> None:
    paths = _descriptions(corpus)
    read = 0
    for path in paths:
        system = read_system(path)
        if system.unreadable is not None:  # v0.7 Alibaba's files are neither form
            assert _neither_json_nor_keyed_lines(path), (path, system.unreadable)
            continue
        read += 1
        found = accelerator(system.get("accelerator_model_name"), system.system_name, system.host)
        assert found is not None and found.generation, (path, system.accelerator_model)
    assert read == sum(not _neither_json_nor_keyed_lines(p) for p in paths) and read > 0


@pytest.mark.corpus
def test_keyed_lines_descriptions_are_read_and_filtered_by_accelerator(corpus: Path) -> None:
    """v0.6 NVIDIA's `key: {json}` lines descriptions: their accelerator and count as the
    file's entry states them (read here with a regex), and --accelerator keeps them."""
    keyed = [p for p in _descriptions(corpus) if _KEYED_LINE.match(p.read_text(encoding="utf-8"))]
    assert keyed
    for path in keyed:
        text = path.read_text(encoding="utf-8")
        name = re.search(r"'accelerator': '([^']+)'", text)
        nodes = re.search(r"'num_nodes': '(\d+)'", text)
        per_node = re.search(r"'num_accelerators': '(\d+)'", text)
        assert name and nodes and per_node, path
        system = read_system(path)
        assert system.form == "keyed-lines" and system.unreadable is None
        assert system.accelerator_model == name[1]
        assert system.accelerators == int(nodes[1]) * int(per_node[1])
        assert system.status and system.division in ("closed", "open")
    orgs = sorted({p.parents[1] for p in keyed})
    report = compute_scores([str(o) for o in orgs])
    assert report.scores and not [p for p in report.problems if p.rule == "MLR030"]
    for score in report.scores:
        found = accelerator(score.accelerator_model)
        assert found is not None and score.accelerators, score
        assert ResultFilter(accelerators=(found.model,)).apply([score]) == [score]


@pytest.mark.parametrize(
    "text",
    [
        'org: {"value": "X"}\nentry: {"value": "{\'nodes\': \\"{\'num_nodes\': \'1\'"}',
        'org: {"value": "X"}\norg: {"value": "Y"}',
        'org: {"value": ' + "[" * 50_000 + "]}",
        'org: {"value": 1' + "0" * 5_000 + "}",
        "entry: {\"value\": \"{'a': '\\\\U99999999'}\"}",
        "entry: {\"value\": \"{'a': '" + "x" * 60_000 + "'}\"}",
        "entry: {\"value\": \"{'a' 'b'}\"}",
        'entry: {"value": ["not", "text"]}',
        "org: {}\nnot a line",
        "x: {" + "\n" * 10 + "}",
    ],
    ids=[
        "unclosed",
        "twice",
        "deep",
        "huge-int",
        "escape",
        "long",
        "no-colon",
        "list",
        "stray-line",
        "multiline",
    ],
)
def test_hostile_keyed_lines_are_unreadable_never_a_traceback(text: str, tmp_path: Path) -> None:
    path = tmp_path / "sys.json"
    path.write_text(text, encoding="utf-8")
    system = read_system(path)
    assert system.unreadable is not None and system.data is None
    assert "key: {json}" in system.unreadable.reason or system.unreadable.kind == "json"


@pytest.mark.parametrize(
    ("name", "system", "model", "generation"),
    [
        ("Intel(R) Gaudi(R) 2 AI Accelerator", None, "Gaudi2", "Gaudi 2"),
        ("Intel Gaudi2", None, "Gaudi2", "Gaudi 2"),
        ("Habana Gaudi", None, "Gaudi", "Gaudi 1"),
        ("Nvidia Tesla V100S-PCIe-32GB", None, "V100S", "Volta"),
        ("Tesla V100-SXM2-16GB", None, "V100", "Volta"),
        ("NVIDIA A100 - PCIe - 80 GB", None, "A100", "Ampere"),
        ("NVIDIA Blackwell GPU (B200-SXM-180GB)", None, "B200", "Blackwell"),
        ("NVIDIA GB200", None, "GB200", "Blackwell"),
        ("AMD Instinct MI325X 256GB HBM3e", None, "MI325X", "CDNA 3"),
        ("TPU", "tpu-v4-128", "TPU-v4", "TPU v4"),
        ("TPU-trillium", None, "TPU-v6e", "TPU v6e (Trillium)"),
        ("tpu-v3", None, "TPU-v3", "TPU v3"),
    ],
)
def test_names_as_descriptions_spell_them(
    name: str, system: str | None, model: str, generation: str
) -> None:
    found = accelerator(name, system)
    assert found is not None and (found.model, found.generation) == (model, generation)
    assert short_accelerator(name, system) == model


@pytest.mark.corpus
def test_a_system_without_accelerators_is_named_by_its_host(corpus: Path) -> None:
    system = read_system(corpus / "v2.1" / "Intel" / "systems" / "1-node-SPR-pytorch.json")
    assert system.accelerator_model is None  # "N/A"
    found = accelerator(system.get("accelerator_model_name"), system.system_name, system.host)
    assert found is not None and found.generation == "Sapphire Rapids"


@pytest.mark.corpus
def test_accelerator_filter_finds_gaudi2_however_spelled(corpus: Path, tmp_path: Path) -> None:
    # Every Gaudi2 result of a round, and the same results once their descriptions spell
    # the name as the held-out record's v4.0 descriptions do.
    org = corpus / "v3.1" / "Intel-HabanaLabs"
    scores = compute_scores([str(org)]).scores
    assert len(scores) >= 5
    kept = ResultFilter(accelerators=("Gaudi2",)).apply(scores)
    assert len(kept) == len(scores)
    copy = tmp_path / "v3.1" / "Intel-HabanaLabs"
    shutil.copytree(org, copy)
    for path in (copy / "systems").glob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        data["accelerator_model_name"] = "Intel(R) Gaudi(R) 2 AI Accelerator"
        path.write_text(json.dumps(data), encoding="utf-8")
    spelled = compute_scores([str(copy)]).scores
    assert {s.accelerator_model for s in spelled} == {"Intel(R) Gaudi(R) 2 AI Accelerator"}
    assert len(ResultFilter(accelerators=("Gaudi2",)).apply(spelled)) == len(scores)
    assert ResultFilter(accelerators=("Gaudi",)).apply(spelled) == []
    # A generation finds them too.
    assert len(ResultFilter(accelerators=("Gaudi 2",)).apply(spelled)) == len(scores)
