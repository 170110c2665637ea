"""Price catalogs: formats, schema, merge rules, and every bad catalog refused with file:row."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from conftest import FIXTURES, ROOT, require

from mllog_check.cli import cli
from mllog_check.cost.prices import PriceCatalogError, load_catalog, load_catalogs

PRICES = FIXTURES / "prices"
BAD = PRICES / "bad"


def test_sample_csv_and_yaml_are_twins() -> None:
    csv_entries = load_catalog(PRICES / "sample.csv")
    yaml_entries = load_catalog(PRICES / "sample.yaml")
    assert [e.facts() for e in csv_entries] == [e.facts() for e in yaml_entries]
    pod, dgx, h100, b200 = csv_entries
    assert (h100.system, h100.price, h100.kind) == ("BM.GPU.H100.8", 80.0, "cloud-hourly")
    assert (b200.system, b200.price, b200.date) == ("BM.GPU.B200.8", 128.0, "2026-04-14")
    assert "approximate" in b200.source and "approximate" in b200.includes
    assert (pod.system, pod.price, pod.kind, pod.currency) == ("IPU-POD16", 149995, "list", "USD")
    assert (dgx.system, dgx.price, dgx.kind) == ("DGX A100 640GB", 300000, "estimated")
    assert pod.source and dgx.source and pod.date == "2021-07-01"
    assert (pod.row, dgx.row) == (2, 3)


def test_sample_matches_reference_prices() -> None:
    reference = ROOT.parent / "shared" / "reference" / "prices.csv"
    require(reference.is_file(), "shared/reference/prices.csv not beside the project")
    import csv

    with open(reference, newline="", encoding="utf-8") as handle:
        quoted = {row["system"]: float(row["price_usd"]) for row in csv.DictReader(handle)}
    assert {e.system: e.price for e in load_catalog(PRICES / "sample.csv")} == quoted


def test_aliases_match_names_and_patterns_case_insensitively() -> None:
    pod, dgx, *_ = load_catalog(PRICES / "sample.csv")
    assert pod.matches("IPU-POD16") and pod.matches("ipu-pod16")
    assert pod.matches("ipu-pod16-POPART-closed") and pod.matches("ipu-pod16-TF1")
    assert not pod.matches("ipu-pod64-TF1")
    assert dgx.matches("dgxa100_ngc21.05_mxnet") and dgx.matches("DGX A100 640GB")
    # The v0.7 DGX A100 (40GB parts, the 320GB system) is deliberately not an alias.
    assert not dgx.matches("dgxa100_n8_ngc20.06_pytorch")


def test_schema_is_valid_and_accepts_the_yaml_sample() -> None:
    import yaml

    schema = json.loads((ROOT / "schemas" / "prices.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    doc = yaml.safe_load((PRICES / "sample.yaml").read_text())
    for entry in doc["prices"]:
        entry["date"] = entry["date"].isoformat()
    jsonschema.validate(doc, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"prices": [{**doc["prices"][0], "source": ""}]}, schema)


def test_identical_quotes_merge_and_conflicts_are_refused() -> None:
    merged = load_catalogs([PRICES / "sample.csv", PRICES / "sample.yaml"])
    assert [e.system for e in merged] == [
        "IPU-POD16",
        "DGX A100 640GB",
        "BM.GPU.H100.8",
        "BM.GPU.B200.8",
    ]
    with pytest.raises(PriceCatalogError, match=r"conflict\.csv:2: duplicate system"):
        load_catalogs([PRICES / "sample.csv", PRICES / "conflict.csv"])


BAD_CASES = [
    ("missing_column.csv", r"missing_column\.csv:1: missing column\(s\): source"),
    ("negative_price.csv", r"negative_price\.csv:2: price -5\.0 must be greater than 0"),
    ("negative_price.yaml", r"negative_price\.yaml:9: price -300000 must be greater than 0"),
    ("non_numeric_price.csv", r"non_numeric_price\.csv:2: price '149,995' is not a number"),
    ("missing_price.csv", r"missing_price\.csv:2: price is missing"),
    ("unknown_currency.csv", r"unknown_currency\.csv:2: currency 'XYZ' is not a known ISO"),
    ("unknown_currency.yaml", r"unknown_currency\.yaml:2: currency 'usd' is not a known ISO"),
    ("duplicate_system.csv", r"duplicate_system\.csv:4: duplicate system 'ipu-pod16'.*csv:2"),
    ("duplicate_alias.yaml", r"duplicate_alias\.yaml:10: duplicate system 'dgxa100_ngc21"),
    ("missing_source.csv", r"missing_source\.csv:2: source is empty \(every price needs a source"),
    ("unknown_kind.csv", r"unknown_kind\.csv:2: kind 'rental' is not one of list"),
    ("bad_date.csv", r"bad_date\.csv:2: date: 'July 2021' does not match"),
]


@pytest.mark.parametrize(("name", "message"), BAD_CASES, ids=[c[0] for c in BAD_CASES])
def test_bad_catalog_named_with_file_and_row(name: str, message: str) -> None:
    with pytest.raises(PriceCatalogError, match=message):
        load_catalog(BAD / name)


def test_every_bad_fixture_has_a_case() -> None:
    assert sorted(p.name for p in BAD.iterdir()) == sorted(c[0] for c in BAD_CASES)


@pytest.mark.parametrize(("name", "message"), BAD_CASES[:4], ids=[c[0] for c in BAD_CASES[:4]])
def test_cost_command_exits_2_on_bad_catalog(name: str, message: str) -> None:
    # The catalog is read before any log: the path need not hold scores.
    result = CliRunner().invoke(cli, ["cost", str(FIXTURES), "--prices", str(BAD / name)])
    assert result.exit_code == 2
    assert "error:" in result.output
    assert name in result.output


@pytest.mark.parametrize(
    ("text", "suffix", "message"),
    [
        ("", ".csv", r":1: missing column"),
        ("prices: []\n", ".yaml", r"has no rows"),
        ("- a\n- b\n", ".yaml", r":1: a YAML catalog is a mapping"),
        ("prices: [1]\n", ".yaml", r"a price entry is a mapping"),
        ("prices:\n  - {system: A\n", ".yaml", r"not valid YAML"),
        ("system,price\n", ".txt", r"must be \.csv, \.yaml or \.yml"),
        ("system,aliases,price,currency,kind,includes,source,date,vendor\n", ".csv", "unknown col"),
        (
            "system,aliases,price,currency,kind,includes,source,date\n"
            "X,,inf,USD,list,host,src,2021-07-01\n",
            ".csv",
            r":2: price 'inf' is not a number",
        ),
    ],
)
def test_malformed_catalog_files(tmp_path: Path, text: str, suffix: str, message: str) -> None:
    path = tmp_path / f"catalog{suffix}"
    path.write_text(text)
    with pytest.raises(PriceCatalogError, match=message):
        load_catalog(path)


def test_unreadable_catalog(tmp_path: Path) -> None:
    with pytest.raises(PriceCatalogError, match="cannot read price catalog"):
        load_catalog(tmp_path / "absent.csv")


def test_spreadsheet_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "excel.csv"
    path.write_bytes(b"\xef\xbb\xbf" + (PRICES / "sample.csv").read_bytes())
    assert [e.system for e in load_catalog(path)][:2] == ["IPU-POD16", "DGX A100 640GB"]
