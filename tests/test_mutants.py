"""Mutants of real logs from the official rule files (tests/mutants.py): our verdict must
be the official checker's (mlperf-logging, an oracle run in-process) on every one.

CI runs a deterministic sample: every rule of the two newest Training rounds and the
newest HPC round (each rule's mutants on the first base it applies to) and a stable share
of the older rounds' mutants (the same mutants on every run). ``MLLOG_PARITY_ALL=1`` runs
every mutant; the full sweep's table is in docs/differences.md ("Mutant parity").
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import mutants as M
import pytest
from conftest import corpus_dir, has_module, needs

pytestmark = [
    pytest.mark.corpus,
    needs(has_module("mlperf_logging"), "mlperf-logging not installed (test extras)"),
]

ALL = os.environ.get("MLLOG_PARITY_ALL") == "1"
OLDER_SHARE = 0.03  # of an older round's mutants, chosen by a hash of their names


def _reference() -> Path | None:
    corpus = corpus_dir()
    folder = corpus.parent / "reference" / "official-rules" if corpus else None
    return folder if folder is not None and folder.is_dir() else None


def _folders() -> list[str]:
    reference = _reference()
    return [p.name for p in M.folders(reference)] if reference else []


def _newest() -> set[str]:
    names = _folders()
    training = [n for n in names if n.startswith("training_")]
    hpc = [n for n in names if n.startswith("hpc_")]
    return {*training[-2:], *hpc[-1:]}


@pytest.mark.parametrize("folder", _folders())
def test_mutants_get_the_official_verdict(
    corpus: Path, folder: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the official checker writes its log in the cwd
    reference = _reference()
    assert reference is not None
    newest = folder in _newest()
    covered: set[str] = set()
    differing: list[str] = []
    verdicts: set[str] = set()
    applied = 0
    for base in M.bases(corpus, reference, only=folder):
        if (folder, base.benchmark) in M.DOCUMENTED:
            continue

        def keep(rule: M.Rule, edit: str, base: M.Base = base, done: set[str] = covered) -> bool:
            if ALL or (newest and rule.name not in done):
                return True
            name = f"{base.benchmark} {base.division} {rule.name} {edit}"
            return M.stable_share(name, OLDER_SHARE)

        chosen = list(M.mutants(base.records, base.rules, keep))
        covered |= {m.rule.name for m in chosen}
        for row in M.run(base, M.cases(base, chosen), tmp_path):
            applied += 1
            verdicts.add("pass" if row["official"] == "pass" else "fail")
            if row["differs"]:
                differing.append(f"{row['case']}: {row['differs']}")
    assert not differing, "\n".join(differing)
    assert applied and verdicts == {"pass", "fail"}, (applied, verdicts)
    if newest:
        # every rule of the round that changes some base was applied
        every = {
            m.rule.name
            for base in M.bases(corpus, reference, only=folder)
            for m in M.mutants(base.records, base.rules)
        }
        # (a mutant equal to an earlier rule's is that rule's: the sample may name more)
        assert every <= covered, sorted(every - covered)


def test_edits_read_the_expressions_as_data() -> None:
    """Bounds and members come from the expression's literals; state makes order mutants."""
    rule = M.Rule("training_0.0.0", "common", "k", "check", " v['value'] == 0.9 ")
    assert [(e.label, e.value) for e in M.edits(rule)] == [
        ("at 0.9", 0.9),
        ("past 0.9009", 0.9009),
        ("below 0.8991", 0.8991),
    ]
    rule = M.Rule("training_0.0.0", "common", "k", "check", "v['value'] in ['a', 'b', 'c']")
    assert [e.value for e in M.edits(rule)] == ["a", "b", M.WRONG]
    rule = M.Rule("training_0.0.0", "common", "k", "check", "0 < v['value']['BBOX'] <= 1")
    assert {(e.field, e.value) for e in M.edits(rule)} >= {
        (("value", "BBOX"), 0),
        (("value", "BBOX"), 2),  # an integer bound: the next integer
    }
    rule = M.Rule("training_0.0.0", "common", "k", "check", "'samples_count' in v['metadata']")
    assert [(e.field, e.remove) for e in M.edits(rule)] == [(("metadata", "samples_count"), True)]
    rule = M.Rule("training_0.0.0", "common", "k", "check", "s['run_started'] and __import__('os')")
    assert [e.label for e in M.edits(rule)] == ["first", "last"]  # parsed, never run
    assert ast.parse("v['value'] > 0", mode="eval")


def test_a_wrong_rule_of_ours_shows(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The comparison can fail: a mutant our verdict gets wrong is reported. A base's
    required key removed, checked as if we passed it, differs from the official fail."""
    monkeypatch.chdir(tmp_path)
    reference = _reference()
    assert reference is not None
    folder = _folders()[-1]
    base = next(M.bases(corpus, reference, only=folder))
    req = next(m for m in M.mutants(base.records, base.rules) if m.edit == "remove")
    row = next(M.run(base, [("removed", req, req.lines)], tmp_path))
    assert row["official"] != "pass" and row["differs"] is None
    assert M.disagreement(True, row["official"], None) is not None


def _loads_cases() -> list[tuple[str, str, str]]:
    """(round folder, benchmark, key) for every rule file an official file loads by a
    logged value (the rounds' ``params.loads``), on each corpus benchmark it applies to."""
    from mllog_check.rules import load_ruleset

    corpus, reference = corpus_dir(), _reference()
    if corpus is None or reference is None:
        return []
    cases = set()
    for folder in _folders():
        loads = load_ruleset(M.ruleset_of(folder)).params.get("loads") or []
        for base in M.bases(corpus, reference, only=folder) if loads else []:
            for load in loads:
                reached = any(r.file == load["section"] for r in base.rules)
                logged = any(r.payload["key"] == load["key"] for r in base.records)
                if (
                    base.division == "closed"
                    and reached
                    and logged
                    and (folder, base.benchmark) not in M.DOCUMENTED
                ):
                    cases.add((folder, base.benchmark, load["key"]))
    # one benchmark per round and key
    return sorted({(f, k): (f, b, k) for f, b, k in sorted(cases, reverse=True)}.values())


@pytest.mark.parametrize(("folder", "benchmark", "key"), _loads_cases())
def test_a_value_naming_no_rule_file_is_a_predicted_crash(
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    folder: str,
    benchmark: str,
    key: str,
) -> None:
    """The official checker loads a rule file named by the value (v0.6 benchmark, closed
    ResNet optimizer, HPC DeepCAM scheduler) and raises without one: the real log with
    the value changed fails here and the crash is predicted (MLP044)."""
    monkeypatch.chdir(tmp_path)
    reference = _reference()
    assert reference is not None
    base = next(b for b in M.bases(corpus, reference, only=folder) if b.benchmark == benchmark)
    # a number has no lower(): HPC's POST raises inside the checker's guard (a failure)
    lower = M.ruleset_of(folder).startswith("hpc")
    for value, crashes in ((None, False), ("unknown", True), (7, not lower)):
        lines = [r.line() for r in base.records]
        if value is not None:
            at = next(i for i, r in enumerate(base.records) if r.payload["key"] == key)
            lines[at] = M.Record(
                {**base.records[at].payload, "value": value}, base.records[at].stamp
            ).line()
        path = tmp_path / "result_0.txt"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        ours, theirs, predicted = M.verdicts(path, folder)
        assert theirs.startswith("crash") == crashes == (predicted is not None), (
            value,
            theirs,
            predicted,
        )
        assert M.disagreement(ours, theirs, predicted) is None


def _state_cases() -> list[tuple[str, str, str, str]]:
    """(round folder, benchmark, key, needs): each quality check reading another key's
    value from the official checker's state (``params.state_reads``), and each
    aggregated evaluation (a section's ``aggregate``: key, its source, its group field),
    on the first corpus base it applies to."""
    from mllog_check.rules import load_ruleset

    corpus, reference = corpus_dir(), _reference()
    if corpus is None or reference is None:
        return []
    found: dict[tuple[str, str], tuple[str, str, str, str]] = {}
    for folder in _folders():
        ruleset = load_ruleset(M.ruleset_of(folder))
        wanted = [
            (r["section"], r["key"], r["needs"]) for r in ruleset.params.get("state_reads") or []
        ]
        wanted += [
            (s.name, s.aggregate.source, "group:" + s.aggregate.group)
            for s in ruleset.sections.values()
            if s.aggregate
        ]
        for base in M.bases(corpus, reference, only=folder) if wanted else []:
            for section, key, reads in wanted:
                reached = any(r.file == section for r in base.rules)
                logged = any(r.payload["key"] == key for r in base.records)
                if base.division == "closed" and reached and logged:
                    found.setdefault((folder, section), (folder, base.benchmark, key, reads))
    return sorted(found.values())


@pytest.mark.parametrize(("folder", "benchmark", "key", "reads"), _state_cases())
def test_a_record_the_official_state_cannot_read_is_a_predicted_crash(
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    folder: str,
    benchmark: str,
    key: str,
    reads: str,
) -> None:
    """A real log with the key's first record moved to the start (before the record its
    check reads: v0.7 closed BERT's batch size) or, for an aggregated evaluation, without
    the field it is grouped by (Stable Diffusion's step_num or samples_count): the
    official checker raises, our verdict fails and the crash is predicted (MLP044)."""
    monkeypatch.chdir(tmp_path)
    reference = _reference()
    assert reference is not None
    base = next(
        b
        for b in M.bases(corpus, reference, only=folder)
        if b.benchmark == benchmark and b.division == "closed"
    )
    records = list(base.records)
    if reads.startswith("group:"):
        field = reads.removeprefix("group:")
        at = next(
            i
            for i, r in enumerate(records)
            if r.payload["key"] == key and field in r.payload.get("metadata", {})
        )
        metadata = {k: v for k, v in records[at].payload["metadata"].items() if k != field}
        records[at] = M.Record({**records[at].payload, "metadata": metadata}, records[at].stamp)
    else:
        at = next(i for i, r in enumerate(records) if r.payload["key"] == key)
        records = [records[at], *records[:at], *records[at + 1 :]]
    for edit, lines in (("published", base.records), ("planted", records)):
        path = tmp_path / "result_0.txt"
        path.write_text("\n".join(r.line() for r in lines) + "\n", encoding="utf-8")
        ours, theirs, predicted = M.verdicts(path, folder)
        assert M.disagreement(ours, theirs, predicted) is None, (edit, theirs, predicted)
        assert theirs.startswith("crash") == (edit == "planted"), (edit, theirs)
