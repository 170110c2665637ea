"""Differential test for rulesets 6.0.0 and 6.1.0, which have no published logs.

Passing bases, closed and open, for every benchmark of the round: real v5.1 logs of the
same benchmark from the corpus (v5.0 for Llama 3.1 405B, which v5.1 did not run), and the
minimal fixtures of fixtures/rounds/v6/ for the benchmarks new in v6.x. An open base is
the closed log with submission_division "open" (open Flux.1 also reports
averaged_validation_loss); a 6.1 base gets the run disclosure keys v6.1 requires. Each
base is then mutated key by key (every key the round's rules name for it: dropped,
repeated with another value, given another value, or emptied metadata) and our verdict
is compared with the official checker's (mlperf-logging, an oracle run in-process here:
its rule files are Python that it evaluates itself). Where the official checker raises
(a failure: docs/differences.md), ours fails the log and the package's model of its
crashes (MLP044, mllog_check/submission/crashes.py) names it.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, corpus_dir, has_module, needs

from mllog_check import parse_text
from mllog_check.rounds import parse_round
from mllog_check.rules import check_log, load_ruleset
from mllog_check.rules.engine import chain
from mllog_check.submission.crashes import log_crash

pytestmark = [
    pytest.mark.slow,
    needs(has_module("mlperf_logging"), "mlperf-logging not installed (test extras)"),
]

PREFIX = ":::MLLOG "
COMMON_MUTANTS = 4
VALUES = [None, 0, 1, 2, 1e-4, 0.5, 1.0, 8192, "", "x", [1, 2], True, 0.9, 25.0, 4096]
# One real v5.1 (v5.0) log per benchmark the corpus has: benchmark -> (round, org/system).
REAL = {
    "llama2_70b_lora": ("v5.1", "AMD/results/MI355X_EPYC_9575F_pytorch"),
    "llama31_8b": ("v5.1", "AMD/results/MI355X_EPYC_9575F_pytorch"),
    "flux1": ("v5.1", "Oracle/results/9xBM.GPU.B200.8"),
    "dlrm_dcnv2": ("v5.1", "GigaComputing/results/G894-AD1_hugectr"),
    "llama31_405b": ("v5.0", "Nebius/results/nebius_soperator_8xH200_n64_ngc25.01_nemo"),
}
BENCHMARKS = {
    "6.0.0": [
        *("flux1", "dlrm_dcnv2", "llama31_8b", "llama2_70b_lora", "llama31_405b"),
        *("gpt_oss_20b", "deepseekv3_671b"),
    ],
    "6.1.0": [
        *("flux1", "llama31_8b", "llama2_70b_lora", "gpt_oss_20b", "deepseekv3_671b"),
        *("qwen35_397b_grpo", "dlrmv4"),
    ],
}
DISCLOSURE = [
    ("lowest_numerical_precision_in_linear", "bfloat16"),
    ("lowest_numerical_precision_in_attn", "bfloat16"),
    ("lowest_numerical_precision_in_comm", "fp32"),
    ("tensor_parallelism", 1),
    ("pipeline_parallelism", 1),
    ("context_parallelism", 1),
    ("expert_parallelism", 1),
    ("micro_batch_size", 1),
    ("config_filename", "config_8x8.sh"),
]


def official(path: Path, ruleset: str) -> str:
    """The official per-file verdict, in-process (tests/official.py)."""
    from official import official_in_process

    return official_in_process(path, "training", ruleset)


def _compare(path: Path, ruleset: str, case: str, disagreements: list[str]) -> str:
    """One mutant: our verdict against the official one, which is returned. A crash is a
    failure (the official CLI exits non-zero, the package checker stops): ours must fail
    the log, and the package's model of official crashes (MLP044) must predict it, as it
    must predict no crash where the official checker gives a verdict."""
    text = path.read_text(encoding="utf-8")
    result = parse_text(text, str(path))
    verdict = check_log(result, ruleset)
    # v2.1: the era tool's verdict (ours passes without MLC110 where 4.1.68 passes)
    ours = verdict.passed and not any(p.rule == "MLC110" for p in verdict.problems)
    theirs = official(path, ruleset)
    stop = log_crash(result, parse_round(ruleset), verdict.problems)
    crashed = theirs.startswith("crash")
    if (ours and crashed) or (ours != (theirs == "pass") and not crashed):
        disagreements.append(f"{case}: ours {ours}, official {theirs}")
    if crashed != (stop is not None):
        predicted = "no crash" if stop is None else stop.message
        disagreements.append(f"{case}: predicted {predicted}, official {theirs}")
    return theirs


def _payloads(lines: list[str]) -> Iterator[tuple[int, dict]]:  # type: ignore[type-arg]
    for i, line in enumerate(lines):
        at = line.find(PREFIX)  # real logs may carry a rank prefix before the marker
        if at >= 0:
            yield i, json.loads(line[at + len(PREFIX) :])


def _line(payload: dict) -> str:  # type: ignore[type-arg]
    return PREFIX + json.dumps(payload)


def _real(benchmark: str) -> list[str] | None:
    corpus = corpus_dir()
    if corpus is None or benchmark not in REAL:
        return None
    round_, folder = REAL[benchmark]
    found = sorted((corpus / round_ / folder / benchmark).glob("result_*.txt"))
    return found[0].read_text(encoding="utf-8").splitlines() if found else None


def _base(benchmark: str, ruleset: str, division: str) -> list[str] | None:
    lines = _real(benchmark)
    if lines is None:
        fixture = FIXTURES / "rounds" / "v6" / f"closed_{benchmark}.pass.txt"
        if not fixture.exists():
            return None
        lines = fixture.read_text(encoding="utf-8").splitlines()
    out: list[str] = []
    batch = 1
    for _, payload in _payloads(lines):
        if payload["key"] == "global_batch_size":
            batch = payload["value"]
        if payload["key"] == "evaluation_frequency" and ruleset == "6.1.0":
            # v6.1 closed Flux.1: the interval is rounded up to whole batches.
            payload["value"] = -(-262144 // batch) * batch
        if division == "open" and benchmark == "llama31_8b" and payload["key"] == "eval_accuracy":
            # The official open Llama 3.1 8B file asks an accuracy below 1 (a TODO there):
            # no log perplexity passes it, so the open base reports one.
            payload["value"] = payload["value"] / 10
        if payload["key"] == "submission_division":
            payload["value"] = division
            out.append(_line(payload))
            if ruleset == "6.1.0":
                for key, value in DISCLOSURE:
                    out.append(_line({**payload, "key": key, "value": value, "metadata": {}}))
            continue
        out.append(_line(payload))
        if division == "open" and benchmark == "flux1" and payload["key"] == "eval_accuracy":
            out.append(_line({**payload, "key": "averaged_validation_loss"}))
    return _trim(out, ruleset)


def _trim(lines: list[str], ruleset: str) -> list[str]:
    """Drop the bulk of records no rule names (per-step losses): 3 of each are kept."""
    named = set(_named_keys(lines, ruleset))
    seen: dict[str, int] = {}
    kept = []
    for line in lines:
        key = json.loads(line[len(PREFIX) :])["key"]
        seen[key] = seen.get(key, 0) + 1
        if key in named or seen[key] <= 3:
            kept.append(line)
    return kept


def _named_keys(lines: list[str], ruleset: str, split: bool = False) -> Any:
    """Keys the round's rules name for this log (its chain of sections); with ``split``,
    (those of the benchmark's own section, those of common/closed/open)."""
    result = parse_text("\n".join(lines) + "\n", "base.txt")
    sections = chain(load_ruleset(ruleset), result.records)
    logged = {r.key for r in result.records}
    own = {k for s in sections[2:] for k in s.keys} & logged
    shared = {k for s in sections[:2] for k in s.keys} & logged - own
    if split:
        return sorted(own), sorted(shared)
    return sorted(own | shared)


def _mutants(lines: list[str], ruleset: str, rng: random.Random) -> Iterator[tuple[str, list[str]]]:
    own, shared = _named_keys(lines, ruleset, split=True)
    # Every key of the benchmark's own section; a sample of the common ones (bounded time).
    for key in own + sorted(rng.sample(shared, min(len(shared), COMMON_MUTANTS))):
        where = [i for i, p in _payloads(lines) if p["key"] == key]
        op = rng.choice(["drop", "value", "value", "metadata", "repeat-other", "drop-first"])
        mutant = list(lines)
        first = json.loads(mutant[where[0]][len(PREFIX) :])  # bases are marker lines only
        if op == "drop":
            mutant = [x for i, x in enumerate(mutant) if i not in set(where)]
        elif op == "drop-first":
            del mutant[where[0]]
        elif op == "metadata":
            mutant[where[0]] = _line({**first, "metadata": {}})
        else:
            changed = _line({**first, "value": rng.choice(VALUES)})
            if op == "value":
                mutant[where[0]] = changed
            else:
                mutant.insert(where[0] + 1, changed)
        yield f"{key}:{op}", mutant


@pytest.mark.parametrize("ruleset", ["6.0.0", "6.1.0"])
@pytest.mark.parametrize("division", ["closed", "open"])
def test_v6_bases_and_mutants_agree_with_official(
    ruleset: str, division: str, tmp_path: Path
) -> None:
    rng = random.Random(f"v6-{ruleset}-{division}")
    disagreements: list[str] = []
    verdicts, bases = [], 0
    for benchmark in BENCHMARKS[ruleset]:
        base = _base(benchmark, ruleset, division)
        if base is None:
            continue  # a corpus log, and no corpus here
        bases += 1
        cases = [("base", base), *_mutants(base, ruleset, rng)]
        for n, (edit, lines) in enumerate(cases):
            path = tmp_path / f"{benchmark}_{n}.txt"
            text = "\n".join(lines) + "\n"
            path.write_text(text, encoding="utf-8")
            theirs = _compare(path, ruleset, f"{benchmark} {edit}", disagreements)
            verdicts.append(theirs)
            if edit == "base":
                assert theirs == "pass", f"{benchmark} {division} base: official {theirs}"
    assert bases >= (7 if corpus_dir() is not None else 2)
    assert not disagreements, "\n".join(disagreements)
    assert {"pass", "fail"} <= set(verdicts)


@pytest.mark.parametrize(
    ("ruleset", "benchmark", "rounds", "theirs"),
    [
        # the official checker has no rules file for a benchmark its round lacks: it crashes
        ("6.0.0", "dlrmv4", "6.1.0", "crash: FileNotFoundError: closed_dlrmv4.yaml"),
        (
            "6.1.0",
            "dlrm_dcnv2",
            "3.0.0, 3.1.0, 4.0.0, 4.1.0, 5.0.0, 5.1.0, 6.0.0",
            "crash: FileNotFoundError: closed_dlrm_dcnv2.yaml",
        ),
        # 5.1.0 still ships closed BERT rules, which fail the dlrmv4 log
        (
            "5.1.0",
            "bert",
            "0.7.0, 1.0.0, 1.1.0, 2.0.0, 2.1.0, 3.0.0, 3.1.0, 4.0.0, 4.1.0, 5.0.0",
            "fail",
        ),
    ],
)
def test_a_benchmark_the_round_lacks_is_one_error(
    ruleset: str, benchmark: str, rounds: str, theirs: str, tmp_path: Path
) -> None:
    """MLC050 alone, naming the rounds that have it; the official checker has no pass for
    it either (it fails it, or crashes without rules for the benchmark)."""
    lines = _base("dlrmv4", ruleset, "closed")
    assert lines is not None
    text = "\n".join(lines).replace('"dlrmv4"', f'"{benchmark}"', 1) + "\n"
    path = tmp_path / "result_0.txt"
    path.write_text(text, encoding="utf-8")
    verdict = check_log(parse_text(text, str(path)), ruleset)
    errors = [p for p in verdict.problems if p.is_error]
    assert [p.rule for p in errors] == ["MLC050"]
    # a later round (scripts/new_round.py) may follow in the list
    assert errors[0].message.split("rounds that have it: ")[1].startswith(rounds)
    assert official(path, ruleset) == theirs


PUBLISHED = ["v2.1", "v3.0", "v3.1", "v4.0", "v4.1", "v5.0", "v5.1"]


def _published_bases(round_dir: Path, ruleset: str) -> Iterator[tuple[str, str, list[str]]]:
    """The smallest corpus log of each benchmark, as published and as an open log."""
    by_benchmark: dict[str, list[Path]] = {}
    for path in round_dir.glob("*/results/*/*/result_*.txt"):
        by_benchmark.setdefault(path.parent.name, []).append(path)
    for benchmark, paths in sorted(by_benchmark.items()):
        smallest = min(paths, key=lambda p: (p.stat().st_size, str(p)))
        text = smallest.read_text(encoding="utf-8", errors="replace").splitlines()
        for division in ("closed", "open"):
            lines = []
            for _, payload in _payloads(text):
                if payload["key"] == "submission_division":
                    payload["value"] = division
                lines.append(_line(payload))
            yield benchmark, division, _trim(lines, ruleset)


@pytest.mark.corpus
@pytest.mark.parametrize("round_name", PUBLISHED)
def test_published_rounds_mutants_agree_with_official(
    corpus: Path, round_name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v2.1-v5.1 corpus logs (closed, and made open: the corpus has no open v3.0+ log),
    mutated key by key. v2.1 is compared as the era tool reads it: ours passes without
    MLC110 where today's 4.1.68 passes (docs/differences.md)."""
    ruleset = round_name.removeprefix("v") + ".0"
    monkeypatch.setattr(sys.modules[__name__], "COMMON_MUTANTS", 2)
    rng = random.Random(f"published-{round_name}")
    disagreements: list[str] = []
    verdicts = []
    for benchmark, division, base in _published_bases(corpus / round_name, ruleset):
        for n, (edit, lines) in enumerate([("base", base), *_mutants(base, ruleset, rng)]):
            path = tmp_path / f"{benchmark}_{division}_{n}.txt"
            path.write_text("\n".join(lines) + "\n", encoding="utf-8")
            case = f"{benchmark} {division} {edit}"
            verdicts.append(_compare(path, ruleset, case, disagreements))
    assert not disagreements, "\n".join(disagreements)
    assert {"pass", "fail"} <= set(verdicts)


@pytest.mark.corpus
@pytest.mark.parametrize("round_name", ["v1.1", "v2.1", "v3.0", "v3.1"])  # closed RNN-T here
def test_rnnt_buckets_must_be_a_python_int(corpus: Path, round_name: str, tmp_path: Path) -> None:
    """The official closed RNN-T check is ``isinstance(v['value'], int)`` on every record:
    the logged bucket count repeated as a float (equal, so EXACTLY_ONE alone would only
    warn) fails there and here."""
    ruleset = round_name.removeprefix("v") + ".0"
    source = min((corpus / round_name).glob("*/results/*/rnnt/result_*.txt"))
    lines = source.read_text(encoding="utf-8", errors="replace").splitlines()
    at, payload = next((i, p) for i, p in _payloads(lines) if p["key"] == "data_train_num_buckets")
    assert isinstance(payload["value"], int)
    repeated = _line({**payload, "value": float(payload["value"])})
    planted = [*lines[: at + 1], repeated, *lines[at + 1 :]]
    for edit, text in (("published", lines), ("planted", planted)):
        path = tmp_path / f"{edit}.txt"
        path.write_text("\n".join(text) + "\n", encoding="utf-8")
        verdict = check_log(parse_text(path.read_text(encoding="utf-8"), str(path)), ruleset)
        bad = [p for p in verdict.problems if p.is_error and "data_train_num_buckets" in p.message]
        if edit == "published":
            assert not bad
            continue
        assert [(p.rule, p.line) for p in bad] == [("MLC020", at + 2)]
        if round_name != "v1.1":  # 4.1.68 fails every v1.1 log (docs/differences.md)
            assert official(path, ruleset) == "fail"
