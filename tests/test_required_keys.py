"""Every key an official rule file requires (its REQ), and no other, is required by our
loaded ruleset of that round, Training 0.6.0-6.1.0 and HPC 1.0.0-3.0.0.

Compared as both checkers apply them: along each chain of sections (common, division,
benchmark, variant), the deepest file naming a key decides its requirement (the official
checker drops an earlier file's messages for a key a later file names; docs/rules.md),
and AT_LEAST_ONE_OR groups hold from every file. The official files are read as data
only (their REQ fields), never evaluated. Each difference left is named with why.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from conftest import corpus_dir

from mllog_check.rounds import parse_round
from mllog_check.rules import load_ruleset
from mllog_check.rules.loader import KeySpec, Ruleset, Section

# (round folder, chain, key): official requirement, ours, and why they differ.
ACCEPTED = {
    # docs/differences.md, "Rounds from v2.1": the era tool (2.1.0) required opt_epsilon,
    # renamed opt_lamb_epsilon after the round; ours requires the era key (MLC110 warns).
    ("training_2.1.0", "common/closed/closed_bert", "opt_epsilon"): (None, "EXACTLY_ONE"),
    # resnet.yaml's END block counts the LARS (SGD) keys against the optimizer logged: one
    # each; here the optimizer's own sections require them exactly once.
    **{
        ("training_0.6.0", "common/resnet/resnet_lars", key): (None, "EXACTLY_ONE")
        for key in (
            "lars_epsilon",
            "lars_opt_learning_rate_decay_poly_power",
            "lars_opt_learning_rate_decay_steps",
            "lars_opt_weight_decay",
        )
    },
    ("training_0.6.0", "common/resnet/resnet_sgd", "opt_learning_rate_decay_boundary_epochs"): (
        None,
        "EXACTLY_ONE",
    ),
    # v0.6 MiniGo: common.yaml does not list minigo, so the official checker fails every
    # MiniGo log; ours applies minigo.yaml, which logs no blocks and no run_stop
    # (docs/differences.md, "Rounds v0.6-v2.0").
    **{
        ("training_0.6.0", "common/minigo", key): (req, None)
        for key, req in (
            ("block_start", "AT_LEAST_ONE"),
            ("block_stop", "AT_LEAST_ONE"),
            ("run_stop", "EXACTLY_ONE"),
        )
    },
}
# Official files no chain of ours reaches must be of benchmarks the round's list lacks
# (MLC050: v3.0 closed_dlrm, v5.1 closed_bert, ...) or, like 0.6.0 score.yaml, of none.

Required = tuple[dict[str, str], set[frozenset[str]]]


def _reference() -> Path | None:
    corpus = corpus_dir()
    folder = corpus.parent / "reference" / "official-rules" if corpus else None
    return folder if folder is not None and folder.is_dir() else None


def _folders() -> list[Path]:
    folder = _reference()
    return sorted(p for p in folder.iterdir() if p.is_dir()) if folder else []


def _official_files(folder: Path) -> dict[str, dict[str, str | None]]:
    """Each file's keys and their REQ (None: named without one), by our section names."""
    files: dict[str, dict[str, str | None]] = {}
    for path in sorted(folder.glob("*.yaml")):
        # Every scalar a string, a repeated mapping key the last, as the official loader.
        items = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.BaseLoader) or []
        keys = {i["KEY"]["NAME"]: i["KEY"].get("REQ") for i in items if "KEY" in i}
        files[{"closed_common": "closed", "open_common": "open"}.get(path.stem, path.stem)] = keys
    return files


def _official(req: str | None) -> tuple[str | None, frozenset[str] | None]:
    if req is None or req == "OPTIONAL":
        return None, None
    alternatives = re.fullmatch(r"AT_LEAST_ONE_OR\((.*)\)", req)
    if alternatives:
        return None, frozenset(a.strip() for a in alternatives[1].split(","))
    return req.replace(" ", ""), None


def _ours(spec: KeySpec) -> tuple[str | None, frozenset[str] | None]:
    group = frozenset(spec.one_of) if spec.one_of else None
    if spec.at_least:
        return f"AT_LEAST({spec.at_least})", group
    return {"exactly_one": "EXACTLY_ONE", "at_least_one": "AT_LEAST_ONE"}.get(
        spec.occurs or ""
    ), group


def _along(files: list[dict[str, tuple[str | None, frozenset[str] | None]]]) -> Required:
    required: dict[str, str | None] = {}
    groups: set[frozenset[str]] = set()
    for keys in files:
        for key, (req, group) in keys.items():
            required[key] = req
            if group:
                groups.add(group | {key})
    return {k: r for k, r in required.items() if r}, groups


def _chains(ruleset: Ruleset) -> list[list[str]]:
    found: list[list[str]] = []

    def walk(name: str, above: list[str]) -> None:
        found.append([*above, name])
        for child in ruleset.children(name):
            walk(child.name, [*above, name])

    for root in ruleset.roots():
        walk(root.name, [])
    return found


Found = dict[tuple[str, str, str], tuple[str | None, ...]]


def _ruleset(folder: Path) -> Ruleset:
    usage, version = folder.name.split("_")
    return load_ruleset(version if usage == "training" else f"hpc-{version}")


def _differences(folder: Path, ruleset: Ruleset) -> tuple[Found, set[str]]:
    files = _official_files(folder)
    found: Found = {}
    for chain in _chains(ruleset):
        theirs = _along(
            [{k: _official(r) for k, r in files[n].items()} for n in chain if n in files]
        )
        ours = _along([{k: _ours(s) for k, s in ruleset.sections[n].keys.items()} for n in chain])
        where = "/".join(chain)
        for key in sorted(set(theirs[0]) | set(ours[0])):
            if theirs[0].get(key) != ours[0].get(key):
                found[(folder.name, where, key)] = (theirs[0].get(key), ours[0].get(key))
        for group in sorted(theirs[1] ^ ours[1], key=sorted):
            found[(folder.name, where, " or ".join(sorted(group)))] = (
                "AT_LEAST_ONE_OR" if group in theirs[1] else None,
                "AT_LEAST_ONE_OR" if group in ours[1] else None,
            )
    reached = {n for chain in _chains(ruleset) for n in chain}
    return found, set(files) - reached


@pytest.mark.corpus
@pytest.mark.parametrize("folder", _folders(), ids=lambda p: p.name)
def test_required_keys_are_the_official_ones(folder: Path) -> None:
    found, unreached = _differences(folder, _ruleset(folder))
    accepted = {k: v for k, v in ACCEPTED.items() if k[0] == folder.name}
    assert found == accepted
    rnd = parse_round(folder.name)
    had = sorted(n for n in unreached if rnd.benchmark(n.split("_", 1)[-1]) is not None)
    assert not had, f"official files of the round's benchmarks no chain reaches: {had}"


@pytest.mark.corpus
def test_the_comparison_sees_every_round_and_a_removed_key() -> None:
    """Both usages' folders are compared, and a key removed from a section shows."""
    names = [p.name for p in _folders()]
    assert {n.split("_")[0] for n in names} == {"training", "hpc"} and len(names) >= 17
    folder = next(p for p in _folders() if p.name == "training_4.1.0")
    ruleset = _ruleset(folder)
    old = ruleset.sections["closed_llama2_70b_lora"]
    keys = {k: spec for k, spec in old.keys.items() if k != "lora_alpha"}
    section = Section(old.name, old.label, old.parent, old.when, keys, old.aggregate)
    changed = Ruleset(ruleset.name, {**ruleset.sections, old.name: section}, ruleset.params)
    assert _differences(folder, ruleset)[0] == {}
    found, _ = _differences(folder, changed)
    assert found[("training_4.1.0", "common/closed/closed_llama2_70b_lora", "lora_alpha")] == (
        "EXACTLY_ONE",
        None,
    )


def _lora_logs() -> list[Path]:
    """The smallest closed Llama 2 70B LoRA log of each corpus round that has one."""
    corpus = corpus_dir()
    if corpus is None:
        return []
    found = []
    for round_dir in sorted(p for p in corpus.iterdir() if p.is_dir()):
        logs = sorted(round_dir.glob("*/results/*/llama2_70b_lora/result_*.txt"))
        if logs:
            found.append(min(logs, key=lambda p: (p.stat().st_size, str(p))))
    return found


@pytest.mark.corpus
@pytest.mark.parametrize("source", _lora_logs(), ids=lambda p: p.parts[-6])
def test_a_closed_lora_log_without_lora_alpha_fails_both(source: Path, tmp_path: Path) -> None:
    """Every round's closed_llama2_70b_lora.yaml requires lora_alpha exactly once (v4.1
    only stopped naming it twice); a real log without it fails here and officially."""
    from conftest import has_module, require
    from official import official_cli

    from mllog_check.rules import check_file

    require(has_module("mlperf_logging"), "the official mlperf-logging package is not installed")
    ruleset = parse_round(source.parts[-6]).version
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if '"key": "lora_alpha"' not in line]
    assert len(kept) == len(lines) - 1
    for name, text in (("published", lines), ("planted", kept)):
        path = tmp_path / name / "result_0.txt"
        path.parent.mkdir()
        path.write_text("".join(text), encoding="utf-8")
        verdict = check_file(str(path), ruleset)
        missing = [p for p in verdict.problems if p.is_error and "lora_alpha" in p.message]
        official = official_cli(path, ruleset, path.parent)[0]
        if name == "published":
            assert (verdict.passed, official) == (True, "pass")
        else:
            assert missing and not verdict.passed and official == "fail", verdict.problems
