"""Typed rows (the audit's runs, scores and copies, submission/audit_rows.py; its orgs,
audit.py; its ranked results, ranking.py; score's scores and runs, results/scores.py)
follow their tables' columns and the dataclasses they show."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import NotRequired, get_origin, get_type_hints

import pytest

from mllog_check.submission.audit_rows import AuditRun
from mllog_check.submission.package import AUDIT_RUN_COLUMNS


def test_the_typed_row_has_the_tables_columns_in_order() -> None:
    assert tuple(get_type_hints(AuditRun)) == AUDIT_RUN_COLUMNS


def test_the_score_run_row_is_typed_with_the_tables_columns() -> None:
    from mllog_check.results.scores import SCORE_RUN_COLUMNS, ScoreRun

    assert tuple(get_type_hints(ScoreRun)) == SCORE_RUN_COLUMNS


def required(kind: type) -> set[str]:
    """The keys a TypedDict requires (``__required_keys__`` misses NotRequired written
    as text, as under ``from __future__ import annotations``)."""
    hints = get_type_hints(kind, include_extras=True)
    return {key for key, hint in hints.items() if get_origin(hint) is not NotRequired}


def conforms(row: Mapping[str, object], kind: type) -> bool:
    """A row holds every key its TypedDict requires and no key it lacks."""
    return required(kind) <= set(row) <= set(get_type_hints(kind))


def test_the_score_row_is_the_scores_fields() -> None:
    """ScoreRow's keys and types are Score's and WeakScore's fields (keys of one kind
    only are not required); the audit's adds MLPerf HPC's scaling and the copies
    columns, and the scores table's Parquet schema names the same columns."""
    from mllog_check.results.scores import Score, ScoreRow
    from mllog_check.results.weak import WeakScore
    from mllog_check.submission.audit_rows import AuditScore
    from mllog_check.submission.table_types import SCORE_TYPES

    hints = get_type_hints(ScoreRow)
    kinds = [get_type_hints(Score), get_type_hints(WeakScore)]
    for fields in kinds:
        for name, hint in fields.items():
            assert hints[name] == hint, name
    assert set(hints) == set(kinds[0]) | set(kinds[1])
    assert required(ScoreRow) == set(kinds[0]) & set(kinds[1])
    audit = get_type_hints(AuditScore)
    assert set(audit) - set(hints) == {"scaling", "copies", "minutes_without_copies"}
    assert required(AuditScore) == required(ScoreRow)
    assert set(audit) == set(SCORE_TYPES)


def test_the_org_and_result_rows_are_their_tables_columns() -> None:
    from mllog_check.submission.audit import ORG_COLUMNS, OrgSummary
    from mllog_check.submission.impact import IMPACTS
    from mllog_check.submission.ranking import COUNT_COLUMNS, RESULT_COLUMNS, ResultRow

    assert tuple(get_type_hints(OrgSummary)) == ORG_COLUMNS
    assert tuple(get_type_hints(ResultRow)) == RESULT_COLUMNS
    assert list(COUNT_COLUMNS) == list(IMPACTS)
    assert list(COUNT_COLUMNS.values()) == [f"anomalies_{name}" for name in IMPACTS]
    assert [c for c in RESULT_COLUMNS if c.startswith("anomalies_")] == list(COUNT_COLUMNS.values())


def test_the_anomaly_row_is_a_problems_row_of_its_columns() -> None:
    """AnomalyRow's keys are the anomaly table's columns, in order, and each cell of an
    anomaly's row has its key's type."""
    from mllog_check.problems import Context
    from mllog_check.submission import codes
    from mllog_check.submission.package import ANOMALY_COLUMNS
    from mllog_check.submission.ranking import AnomalyRow, anomaly_row

    hints = get_type_hints(AnomalyRow)
    assert tuple(hints) == ANOMALY_COLUMNS
    where = Context("Acme", "acme-8x", "resnet")
    found = codes.TIME_ZERO.problem("Acme/results/r.txt", "2 timed records", 7, context=where)
    row = anomaly_row(found.replace(impact="rules"))
    assert tuple(row) == ANOMALY_COLUMNS
    assert all(isinstance(row[k], hints[k]) for k in ANOMALY_COLUMNS)


@pytest.mark.corpus
def test_an_audits_rows_are_their_types(corpus: Path) -> None:
    """Every row of a real round's audit (its runs, scores, copies of nested folders,
    orgs and ranked results) has the keys of its type: v1.0, whose Habana folder holds
    copies of its bert logs below resnet/."""
    from mllog_check.submission.audit import OrgSummary, run_audit
    from mllog_check.submission.audit_rows import AuditScore, CopyRow
    from mllog_check.submission.ranking import AnomalyRow, ResultRow, anomaly_row

    result = run_audit(corpus / "v1.0", jobs=2)
    tables = [
        ([anomaly_row(a) for a in result.anomalies], AnomalyRow),
        (result.runs, AuditRun),
        (result.scores, AuditScore),
        (result.copies, CopyRow),
        (result.orgs, OrgSummary),
        (result.results, ResultRow),
    ]
    for rows, kind in tables:
        assert rows, kind.__name__
        bad = [row for row in rows if not conforms(row, kind)]
        assert not bad, (kind.__name__, bad[:1])
    assert all(list(row) == list(get_type_hints(ResultRow)) for row in result.results)


FOLDERS = ("v5.0/Lenovo", "hpc-v3.0")  # power logs; MLPerf HPC weak scaling


@pytest.mark.corpus
def test_the_score_json_document_is_its_types(corpus: Path) -> None:
    """score's JSON document of v5.0/Lenovo (power logs: energy keys, efficiency) and
    hpc-v3.0 (weak scaling): its scores, their rcp and its runs have their types' keys,
    in order (the energy and note keys where given); the types are Score's and ScoreRun's."""
    from mllog_check.cli import score
    from mllog_check.results import Score, compute_scores
    from mllog_check.results.scores import ScoreRun
    from mllog_check.results.weak import WeakRow

    def keyed(row: Mapping[str, object], kind: type, *required: type) -> bool:
        """The keys of ``kind`` in order, those of ``required`` all there."""
        needed = {k for base in required for k in get_type_hints(base)}
        return list(row) == [k for k in get_type_hints(kind) if k in row] and needed <= set(row)

    fields, runs = get_type_hints(Score), get_type_hints(ScoreRun)
    hints = get_type_hints(score.ScoreJson)
    assert {k: v for k, v in hints.items() if k != "rcp"} == {
        k: fields[k] for k in hints if k != "rcp"
    }
    assert get_type_hints(score.Rcp) == {k: fields[f"rcp_{k}"] for k in get_type_hints(score.Rcp)}
    assert get_type_hints(score.RunJson) == {k: runs[k] for k in get_type_hints(score.RunJson)}
    names = {"WeakRow": WeakRow}
    assert set(get_type_hints(score.JsonDocument, localns=names)) == {
        "scores", "runs", "weak_scaling", "efficiency"
    }  # fmt: skip
    documents = [score.json_document(compute_scores([str(corpus / f)])) for f in FOLDERS]
    for document in documents:
        rows = document["scores"]
        assert rows and document["runs"] and list(document)[:2] == ["scores", "runs"]
        assert all(keyed(s, score.ScoreJson, score.ScoreFacts, score.Hardware) for s in rows)
        assert all(list(s["rcp"]) == list(get_type_hints(score.Rcp)) for s in rows)
        assert all(keyed(r, score.RunJson, score.RunFacts) for r in document["runs"])
    assert {k for d in documents for k in d} == {"scores", "runs", "weak_scaling", "efficiency"}
    lenovo = documents[0]
    assert any(list(s) == list(hints) for s in lenovo["scores"])  # every energy key
    powered = [*get_type_hints(score.RunFacts), "energy_j", "avg_power_w"]
    assert any(list(r) == powered for r in lenovo["runs"])
