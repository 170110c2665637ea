"""The audit's Parquet tables have one schema per table for every round and usage, so
that every corpus round's tables read together as one pyarrow dataset (docs/audit.md,
"Parquet schemas")."""

from __future__ import annotations

from pathlib import Path

import pytest

from mllog_check.submission.audit import AuditError, run_audit, write_outputs
from mllog_check.submission.table_types import RESULT_TYPES, RUN_TYPES, SCORE_COLUMNS

TABLES = ("runs", "scores", "results")


@pytest.fixture(scope="module")
def written(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every corpus round audited alone, its tables written to a folder of its own."""
    out = tmp_path_factory.mktemp("audit-tables")
    rounds = sorted(p for p in corpus.iterdir() if p.is_dir())
    assert len(rounds) >= 16
    folders = {}
    unaudited = []
    for round_dir in rounds:
        try:
            result = run_audit(round_dir, jobs=2)
        except AuditError:
            unaudited.append(round_dir.name)
            continue
        for row in result.scores:  # no column the schema lacks (it would be lost)
            assert set(row) <= set(SCORE_COLUMNS), (round_dir.name, set(row) - set(SCORE_COLUMNS))
        write_outputs(result, out / round_dir.name)
        folders[round_dir.name] = out / round_dir.name
    # v0.5's tree nests its submissions (v0.5.0/<org>/<submission>/results/): audited too.
    assert unaudited == []
    return folders


@pytest.mark.corpus
@pytest.mark.parametrize("table", TABLES)
def test_every_rounds_table_reads_as_one_dataset(written: dict[str, Path], table: str) -> None:
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    files = [str(folder / f"{table}.parquet") for folder in written.values()]
    schemas = {pq.read_schema(f) for f in files}
    assert len(schemas) == 1, table  # one schema in every round's file
    data = ds.dataset(files, format="parquet").to_table()
    assert data.num_rows == sum(pq.read_metadata(f).num_rows for f in files) > 0
    frame = data.to_pandas()
    assert len(frame) == data.num_rows


@pytest.mark.corpus
def test_hpc_columns_are_null_in_training_and_types_are_the_documented(
    written: dict[str, Path],
) -> None:
    import pyarrow.parquet as pq

    training = pq.read_table(written["v5.1"] / "scores.parquet")
    hpc = pq.read_table(written["hpc-v1.0"] / "scores.parquet")
    assert training.schema == hpc.schema
    for column in ("models", "instance_scale", "models_per_minute", "scaling"):
        assert training.column(column).null_count == training.num_rows, column
    assert hpc.column("scaling").null_count == 0
    assert {str(t) for t in hpc.schema.types} <= {"string", "int64", "double", "bool"}
    # energy_j, score_if_normalized and minutes_without_copies are numbers everywhere,
    # also in a round that has none of them.
    v06 = pq.read_table(written["v0.6"] / "scores.parquet")
    for column in ("energy_j", "score_if_normalized", "minutes_without_copies"):
        assert str(v06.schema.field(column).type) == "double", column
    runs = pq.read_table(written["v1.0"] / "runs.parquet")
    assert [str(runs.schema.field(c).type) for c in RUN_TYPES] == [
        {"float64": "double"}.get(kind, kind) for kind in RUN_TYPES.values()
    ]
    results = pq.read_table(written["hpc-v3.0"] / "results.parquet")
    assert [str(results.schema.field(c).type) for c in RESULT_TYPES] == [
        {"float64": "double"}.get(kind, kind) for kind in RESULT_TYPES.values()
    ]


def test_the_documented_schemas_are_the_code() -> None:
    from conftest import ROOT

    from mllog_check.submission.table_types import SCORE_TYPES

    text = (ROOT / "docs" / "audit.md").read_text(encoding="utf-8")
    section = text.split("## Parquet schemas", 1)[1].split("\n## ", 1)[0]
    for table, types in (("runs", RUN_TYPES), ("scores", SCORE_TYPES), ("results", RESULT_TYPES)):
        documented = {}
        part = section.split(f"### `{table}.parquet`", 1)[1].split("\n### ", 1)[0]
        for line in part.splitlines():
            cells = [c.strip(" `") for c in line.strip().strip("|").split("|")]
            if len(cells) >= 3 and cells[1] in ("string", "int64", "float64", "bool"):
                documented[cells[0]] = cells[1]
        assert documented == types, table


def test_every_column_is_typed() -> None:
    from mllog_check.submission.package import AUDIT_RUN_COLUMNS
    from mllog_check.submission.ranking import RESULT_COLUMNS

    assert list(RUN_TYPES) == list(AUDIT_RUN_COLUMNS)  # a new column needs its type here
    assert list(RESULT_TYPES) == list(RESULT_COLUMNS)


def _previous_published_ms(version: str) -> float | None:
    """The publication (ms) of the last published round of the same usage before it."""
    from mllog_check.rounds import all_rounds, registry

    rnd = registry().get(version)
    earlier = [
        r for r in all_rounds() if r.usage == rnd.usage and r.number < rnd.number and r.published
    ]
    return max(earlier, key=lambda r: r.number).published_ms if earlier else None


@pytest.mark.corpus
def test_every_table_says_its_round_as_the_registry_does(written: dict[str, Path]) -> None:
    # Was: one round audited alone, no table said which round it was (the org
    # column carries it only when several are audited together).
    import pandas as pd

    from mllog_check.results.columns import models
    from mllog_check.rounds import current_benchmark_name, registry

    republished = 0
    for name, folder in written.items():
        rnd = registry().get(name)
        frames = {t: pd.read_parquet(folder / f"{t}.parquet") for t in TABLES}
        for table in ("anomalies", "orgs", "problems", *TABLES):
            csv = pd.read_csv(folder / f"{table}.csv", dtype=str, keep_default_na=False)
            assert {"round", "published"} <= set(csv.columns), (name, table)
            organised = csv[csv["org"].isin(frames["scores"]["org"])] if "org" in csv else csv
            assert set(organised["round"]) <= {rnd.folder}, (name, table)
            assert set(organised["published"]) <= {rnd.published or ""}, (name, table)
        for table, frame in frames.items():
            assert frame["round"].eq(rnd.folder).all(), (name, table)
            if rnd.published is None:
                assert frame["published"].isna().all(), (name, table)
            else:
                assert frame["published"].eq(rnd.published).all(), (name, table)
            for bench, model in frame.groupby("benchmark", dropna=False)["benchmark_model"]:
                known = rnd.benchmark(bench) is not None
                want = models()[current_benchmark_name(rnd.version, bench)] if known else None
                assert set(model.dropna()) == ({want} if want else set()), (name, bench)
                assert model.notna().all() == known, (name, bench)
        runs = frames["runs"]
        before = _previous_published_ms(rnd.version)
        dated = runs["run_start_ms"].notna() & runs["run_start_ms"].gt(1.5e12)
        if before is None:
            assert not runs["republished"].any(), name
        else:
            early = dated & runs["run_start_ms"].lt(before)
            assert runs["republished"].eq(early).all(), name
        republished += int(runs["republished"].sum())
        # A score (a result) is re-published when one of its runs is.
        scores = frames["scores"].set_index("folder")
        for folder_name, flags in runs.groupby(runs["path"].str.rsplit("/", n=1).str[0]):
            match = scores.index.str.endswith(folder_name)
            if match.sum() == 1:
                assert scores.loc[match, "republished"].iloc[0] == flags["republished"].any()
    assert republished  # the corpus holds re-published runs (docs/scores.md)
