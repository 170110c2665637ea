"""The docs' generated tables (scripts/docs_tables.py) are the registries': codes, anomaly
kinds, beyond-official firings, output formats and rounds. A code, format or round added
to its registry shows in its table with no hand edit of the docs."""

from __future__ import annotations

import docs_tables
import pytest
from conftest import ROOT

from mllog_check import catalog, reporters, rounds
from mllog_check.problems import Severity
from mllog_check.reporters import tables


def _doc(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def _region(name: str, table: str) -> str:
    """The lines of every region of ``table`` in the doc ``name``."""
    text = _doc(name)
    found = [text[b:e] for b, e, named, _ in docs_tables.regions(text) if named == table]
    assert found, (name, table)
    return "".join(found)


def test_the_committed_tables_are_current() -> None:
    assert docs_tables.stale() == [], "python scripts/docs_tables.py"


def test_every_region_names_a_table() -> None:
    named = {n for doc in docs_tables.files() for *_, n, _ in docs_tables.regions(_doc(doc))}
    assert named == set(docs_tables.TABLES)
    with pytest.raises(LookupError, match="no generated table"):
        docs_tables.rewrite("x.md", "<!-- generated: nothing -->\n<!-- end generated -->\n")
    with pytest.raises(LookupError, match="end generated"):
        docs_tables.rewrite("x.md", "<!-- generated: formats -->\n| a |\n")


def test_a_stale_region_is_filled_and_the_rest_kept() -> None:
    text = "before\n<!-- generated: formats -->\n| stale |\n<!-- end generated -->\nafter\n"
    done = docs_tables.rewrite("docs/x.md", text)
    assert done.startswith("before\n<!-- generated: formats -->\n| format |")
    assert done.endswith("<!-- end generated -->\nafter\n") and "stale" not in done
    assert docs_tables.rewrite("docs/x.md", done) == done


def _toy_rule(code: str, name: str, **kw: object) -> catalog.RuleInfo:
    return catalog.RuleInfo(code, name, Severity.WARNING, "A toy check.", "", "", "package", **kw)  # type: ignore[arg-type]


def test_a_new_code_shows_in_its_family_table_and_the_firings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A beyond-official package code and an anomaly kind, registered: both listed,
    linked to their section of docs/codes.md; the firing table names the new code as not
    counted yet (the data file is regenerated from the corpus)."""
    catalog.load_all()
    toy = _toy_rule("MLP998", "toy-package-check", beyond=True, lifecycle=catalog.PREVIEW)
    kind = _toy_rule("MLA998", "toy-anomaly", audits=("MLP998",))
    monkeypatch.setitem(catalog._RULES, toy.code, toy)
    monkeypatch.setitem(catalog._RULES, kind.code, kind)
    package = docs_tables.rewrite("docs/package.md", _doc("docs/package.md"))
    assert (
        "| [MLP998](codes.md#mlp998-toy-package-check) | `toy-package-check` | warning*, preview |"
        in package
    )
    audit = docs_tables.rewrite("docs/audit.md", _doc("docs/audit.md"))
    assert "| `toy-anomaly` | [MLA998](codes.md#mla998-toy-anomaly) |" in audit
    assert "| `MLP998` |" in audit  # shown from the package code
    differences = docs_tables.rewrite("docs/differences.md", _doc("docs/differences.md"))
    (row,) = [line for line in differences.splitlines() if line.startswith("| [MLP998]")]
    assert "preview" in row and "not counted yet" in row


def test_every_code_is_in_one_generated_table() -> None:
    """MLP in docs/package.md, MLA in docs/audit.md, MLR in docs/scores.md, MLE in
    docs/power.md, every beyond-official one in docs/differences.md: the tables, not
    prose, list them."""
    tables = {
        "MLP": _region("docs/package.md", "codes"),
        "MLR": _region("docs/scores.md", "codes"),
        "MLE": _region("docs/power.md", "codes"),
        "MLA": _region("docs/audit.md", "anomalies"),
    }
    beyond = _region("docs/differences.md", "beyond-firings")
    for info in catalog.all_rules():
        if info.family in tables:
            assert f"[{info.code}](" in tables[info.family], info.code
        if info.beyond:
            assert f"[{info.code}](" in beyond, info.code


def test_a_new_format_shows_in_the_formats_table(monkeypatch: pytest.MonkeyPatch) -> None:
    extra = reporters.ProblemFormat("toyfmt", "x:y", (reporters.CHECK,), label="Toy")
    monkeypatch.setattr(reporters, "FORMATS", {**reporters.FORMATS, "toyfmt": extra})
    toy_table = tables.TableFormat(tables.write_csv, "toy", (tables.SCORE,), label="ToyTable")
    monkeypatch.setattr(tables, "FORMATS", {**tables.FORMATS, "toy": toy_table})
    design = docs_tables.rewrite("docs/design.md", _doc("docs/design.md"))
    assert "| Toy | `toyfmt` | problems (`reporters.FORMATS`) | `check` |" in design
    assert "| ToyTable | `toy` | tables (`reporters.tables.FORMATS`) | `score` |" in design
    for name, fmt in reporters.FORMATS.items():
        assert f"| `{name}` |" in design and all(f"`{c}`" in design for c in fmt.commands)


def test_a_new_round_shows_in_the_rounds_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """A round after the newest, with one benchmark retired and one added: its row says
    so; the rows of the others stay."""
    everyone = rounds.all_rounds()
    newest = [r for r in everyone if not r.is_hpc][-1]
    gone = sorted(newest.benchmarks or {})[0]
    kept = {k: v for k, v in (newest.benchmarks or {}).items() if k != gone}
    toy = rounds.Benchmark("zzbench", 7, 1, (), True, ("closed", "open"))
    version = f"{int(newest.version.split('.')[0]) + 90}.0.0"
    grown = newest.replace(version=version, benchmarks={**kept, "zzbench": toy}, published=None)
    monkeypatch.setattr(rounds, "all_rounds", lambda: (*everyone, grown))
    before = _region("docs/rounds.md", "rounds")
    after = docs_tables.rewrite("docs/rounds.md", _doc("docs/rounds.md"))
    (row,) = [line for line in after.splitlines() if line.startswith(f"| {grown.folder} |")]
    assert f"− {gone}; + zzbench 7" in row and "no date" in row
    assert all(line in after for line in before.splitlines())


def test_the_rounds_table_does_not_depend_on_the_registrys_read_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The registry read from YAML keeps the file's order, its prepared copy sorts the
    names: the table is the same either way (scripts/new_round.py reads both)."""
    text = _doc("docs/rounds.md")
    flipped = tuple(
        r.replace(benchmarks=dict(reversed(list(r.benchmarks.items())))) if r.benchmarks else r
        for r in rounds.all_rounds()
    )
    monkeypatch.setattr(rounds, "all_rounds", lambda: flipped)
    assert docs_tables.rewrite("docs/rounds.md", text) == text
