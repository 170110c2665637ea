"""The round registry (schemas/rounds.yaml, mllog_check.rounds): one table, one parser.

The central test adds a round as data only (a temporary registry entry and its files,
installed with $MLLOG_CHECK_ROUNDS) and sees check, score, package and --ruleset auto
use it; a round whose data files are missing is never a pass (exit 2).
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from conftest import FIXTURES, PENDING_USAGES, ROOT, pending_folders, shared_rounds

import mllog_check
from mllog_check import rounds
from mllog_check.cli import cli
from mllog_check.results.scoring import scoring_for
from mllog_check.rules import check_log

NEW_ROUND = """
  - version: 9.0.0
    generation: mllog
    run_count: minimum
    benchmarks:
      resnet: 5
      newbench: 10
    files: {rcp: null}
  - version: 8.5.0
    generation: mllog
    run_count: minimum
    benchmarks: {resnet: 5}
"""


@pytest.fixture
def new_round(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A registry with rounds 9.0.0 (its files beside it) and 8.5.0 (files missing)."""
    data = tmp_path / "data"
    (data / "rules").mkdir(parents=True)
    (data / "scoring").mkdir()
    (data / "system_description").mkdir()
    shipped = (ROOT / "schemas" / "rounds.yaml").read_text(encoding="utf-8")
    (data / "rounds.yaml").write_text(shipped + NEW_ROUND, encoding="utf-8")
    (data / "rules" / "training-9.0.0.yaml").write_text(
        "ruleset: training-9.0.0\nextends: training-1.0.0\n", encoding="utf-8"
    )
    (data / "scoring" / "v9.0.yaml").write_text(
        "extends: v1.0\nround: v9.0\nruleset: 9.0.0\n", encoding="utf-8"
    )
    (data / "system_description" / "v9.0.json").write_text(
        '{"title": "v9.0", "extends": "v1.0"}', encoding="utf-8"
    )
    monkeypatch.setenv(rounds.ENV_REGISTRY, str(data / "rounds.yaml"))
    rounds.reload()
    yield tmp_path
    monkeypatch.delenv(rounds.ENV_REGISTRY)
    rounds.reload()


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_a_round_added_as_data_is_used_everywhere(new_round: Path) -> None:
    assert rounds.parse_round("training_results_v9.0").version == "9.0.0"
    assert "training-9.0.0" in mllog_check.rules.available_rulesets()
    # check: the round folder names it; the rules (extending 1.0.0) apply
    folder = new_round / "v9.0" / "Acme" / "results" / "sys" / "resnet"
    folder.mkdir(parents=True)
    log = folder / "result_0.txt"
    shutil.copy(FIXTURES / "check" / "sample_closed_resnet_lars.pass.txt", log)
    code, out = _cli("check", "-v", str(log))
    assert code == 0 and "ruleset 9.0.0 (from folder: folder 'v9.0'" in out
    # --ruleset auto from content: a benchmark only the new round has
    text = log.read_text().replace('"value": "resnet"', '"value": "newbench"')
    elsewhere = new_round / "elsewhere.txt"
    elsewhere.write_text(text)
    code, out = _cli("check", "--ruleset", "auto", "-v", str(elsewhere))
    assert "ruleset 9.0.0 (from content: :::MLLOG syntax and benchmark 'newbench'" in out
    # score: the new round's scoring file (base v1.0), runs from the registry
    org = new_round / "v9.0" / "Example"
    shutil.copytree(FIXTURES / "score" / "olympic" / "Example", org)
    done = CliRunner().invoke(cli, ["score", "--format", "csv", str(org)])
    (row,) = list(csv.DictReader(done.stdout.splitlines()))
    assert row["ruleset"] == "9.0.0" and row["valid"] == "True", done.output
    assert scoring_for("v9.0").benchmarks["resnet"].runs == 5
    # package: layout, system description schema (inherits v1.0), logs, scores
    acme = new_round / "v9.0" / "Acme2"
    shutil.copytree(FIXTURES / "package" / "clean" / "Acme", acme)
    code, out = _cli("package", str(acme))
    assert code == 0 and "PASS Acme2 (9.0.0): 0 errors, 0 warnings" in out, out


def test_a_round_whose_data_is_missing_is_never_a_pass(new_round: Path) -> None:
    log = FIXTURES / "check" / "sample_closed_resnet_lars.pass.txt"
    code, out = _cli("check", "--ruleset", "8.5.0", str(log))
    assert code == 2 and "round 8.5.0 has no rules data in this build" in out
    org = new_round / "v8.5" / "Acme"
    shutil.copytree(FIXTURES / "package" / "clean" / "Acme", org)
    for args in (["package", str(org)], ["package", str(org), "--ruleset", "8.5"]):
        code, out = _cli(*args)
        assert code == 2 and "no rules data" in out and "PASS" not in out
    code, out = _cli("audit", str(new_round / "v8.5"), "--out", str(new_round / "out"))
    assert code == 2 and "cannot be audited" in out
    code, out = _cli("score", str(org))
    assert code == 2 and "no scoring data in this build" in out


def test_every_spelling_everywhere(tmp_path: Path) -> None:
    result = mllog_check.parse_file(str(FIXTURES / "rounds" / "v2.0" / "closed_unet3d.pass.txt"))
    for spelling in ("2.0.0", "2.0", "v2.0", "training-2.0.0", "training_2.0.0", "V2.0"):
        assert check_log(result, spelling).ruleset == "training-2.0.0", spelling
    org = FIXTURES / "package" / "clean" / "Acme"
    for spelling in ("1.1", "training-1.1.0", "v1.1"):
        _, out = _cli("package", str(org), "--ruleset", spelling)
        assert "(1.1.0)" in out, (spelling, out)
        _, out = _cli("score", str(org), "--ruleset", spelling, "--format", "csv")
        assert ",1.1.0," in out, (spelling, out)


def test_package_v2_0_spelling_is_checked_not_passed_unchecked() -> None:
    # `package --ruleset v2.0` once printed "not checked" then PASS (docs/rounds.md).
    org = FIXTURES / "package" / "clean" / "Acme"
    results = {s: _cli("package", str(org), "--ruleset", s) for s in ("v2.0", "2.0.0")}
    assert results["v2.0"] == results["2.0.0"]
    assert "not checked" not in results["v2.0"][1]


def test_project_setting_beats_folder_and_flag_beats_setting(tmp_path: Path) -> None:
    project = tmp_path / "project"
    folder = project / "v1.1" / "Org" / "results" / "sys" / "resnet"
    folder.mkdir(parents=True)
    log = folder / "result_0.txt"
    shutil.copy(FIXTURES / "check" / "sample_closed_resnet_lars.pass.txt", log)
    (project / "pyproject.toml").write_text('[tool.mllog-check]\nruleset = "1.0.0"\n')
    probe = "from mllog_check.cli import main; main()"

    def run(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", probe, "check", "-v", *args, str(log)],
            cwd=folder,
            capture_output=True,
            text=True,
        )
        return done.stdout + done.stderr

    assert "ruleset 1.0.0 (from config:" in run()
    assert "ruleset 2.0.0 (from flag: --ruleset v2.0)" in run("--ruleset", "v2.0")
    (project / "pyproject.toml").write_text("[tool.other]\nx = 1\n")
    assert "ruleset 1.1.0 (from folder:" in run()
    (project / "pyproject.toml").write_text('[tool.mllog-check]\nruleset = "7.7"\n')
    out = run()
    assert "pyproject.toml: [tool.mllog-check] ruleset: unknown ruleset '7.7'" in out


def test_registry_matches_the_official_lists_and_scoring_data() -> None:
    registry = rounds.registry()
    # The published rounds, oldest first; a round added later (scripts/new_round.py) follows.
    assert registry.versions()[:19] == [
        "0.5.0", "0.6.0", "0.7.0", "1.0.0", "1.1.0", "2.0.0", "2.1.0", "3.0.0", "3.1.0",
        "4.0.0", "4.1.0", "5.0.0", "5.1.0", "6.0.0", "6.1.0",
        "hpc-0.7.0", "hpc-1.0.0", "hpc-2.0.0", "hpc-3.0.0",
    ]  # fmt: skip
    for usage in {r.usage for r in registry.rounds}:  # HPC numbers repeat Training's
        numbers = [r.number for r in registry.rounds if r.usage == usage]
        assert numbers == sorted(set(numbers)), usage
    v06 = rounds.parse_round("0.6")
    assert v06.benchmarks is not None and "ncf" not in v06.benchmarks
    assert v06.benchmark("mask") is v06.benchmark("maskrcnn")  # Google's v0.6 folder
    assert rounds.parse_round("2.0").benchmark("retinanet") is not None  # lives in ssd
    assert rounds.parse_round("5.0").benchmark("ssd") is None
    assert rounds.parse_round("1.0").exact_runs and not rounds.parse_round("1.1").exact_runs
    assert rounds.parse_round("4.0").benchmarks["unet3d"].drop == 4  # type: ignore[index]
    assert rounds.parse_round("6.1").benchmarks["qwen35_397b_grpo"].runs == 3  # type: ignore[index]
    # The scoring files' run counts and drops agree with the registry (no second truth).
    for rnd in registry.rounds:
        if rnd.path("scoring") is None:
            continue
        for name, bench in scoring_for(rnd.version).benchmarks.items():
            known = rnd.benchmark(name)
            assert known is not None, (rnd.version, name)
            assert (bench.runs, bench.drop) == (known.runs, known.drop), (rnd.version, name)


def test_registry_benchmarks_equal_each_rule_files_allowed_list() -> None:
    """The rules' submission_benchmark list is the registry's (value_from: benchmarks), in
    every section that states one."""
    from mllog_check.rules import load_ruleset

    def allowed(ruleset: str) -> set[str]:
        names: set[str] = set()
        for section in load_ruleset(ruleset).sections.values():
            spec = section.keys.get("submission_benchmark")
            if spec is not None and spec.value is not None:
                schema = spec.value.schema
                names.update(schema.get("enum", [schema["const"]] if "const" in schema else []))
        return names

    checked = 0
    for rnd in rounds.all_rounds():
        if rnd.has_rules() and rnd.benchmarks is not None:
            assert set(rnd.benchmarks) == allowed(rnd.ruleset), rnd.version
            checked += 1
    assert checked >= 5


@pytest.mark.corpus
def test_registry_benchmarks_equal_the_official_allowed_lists(corpus: Path) -> None:
    """Each round's benchmark folders in the corpus are benchmarks of that round."""
    checked = 0
    for round_dir, rnd in shared_rounds(corpus, at_least=13 + 4):
        if rnd.benchmarks is None:
            continue
        # HPC: <org>/results/<system>/<strong|weak>/<benchmark>/ (v0.7: no scaling level)
        layout = "*/results/*/*/*/result_*.txt" if rnd.is_hpc else "*/results/*/*/result_*.txt"
        folders = {p.parent.name for p in round_dir.glob(layout)}
        if rnd.is_hpc and not folders:
            folders = {p.parent.name for p in round_dir.glob("*/results/*/*/result_*.txt")}
        unknown = {f for f in folders if rnd.benchmark(f) is None}
        assert not unknown, (round_dir.name, unknown)
        checked += len(folders)
    # today: 70 Training benchmark folder names and 10 HPC ones over the rounds with a list
    assert checked >= 70 + 10, checked


@pytest.mark.corpus
def test_every_shared_folder_names_a_round_of_its_usage(corpus: Path) -> None:
    """Training and HPC folders of the shared data (corpus, RCP data, official rules) each
    name a round of the registry, of their own usage; none is set aside any more."""
    assert PENDING_USAGES == ()
    shared = corpus.parent
    seen: dict[str, int] = {}
    for base in (corpus, shared / "reference" / "rcp", shared / "reference" / "official-rules"):
        assert pending_folders(base) == []
        for sub in sorted(p for p in base.iterdir() if p.is_dir()):
            rnd = rounds.parse_round(sub.name)
            expected = "hpc" if sub.name.lower().startswith("hpc") else "training"
            assert rnd.usage == expected, sub
            seen[rnd.usage] = seen.get(rnd.usage, 0) + 1
    # today: corpus hpc-v0.7..v3.0, RCP and official rules hpc_1.0.0..3.0.0
    assert seen["hpc"] >= 4 + 3 + 3 and seen["training"] >= 13 + 12 + 14, seen


def test_one_round_parser_in_the_code() -> None:
    """No second table of rounds: version literals live in the registry only."""
    import re

    pattern = re.compile(r"""["'](?:0\.[5-7]|[1-6]\.[01])\.0["']\s*:""")
    offenders = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "mllog_check").rglob("*.py"))
        if pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
    assert yaml.safe_load((ROOT / "schemas" / "rounds.yaml").read_text())["rounds"]


def test_each_rounds_benchmarks_are_those_its_rules_allow() -> None:
    """The rules' submission_benchmark values (rules/benchmarks.py) are the registry's list."""
    from mllog_check.rounds import all_rounds
    from mllog_check.rules.benchmarks import benchmarks_of

    checked = 0
    for rnd in all_rounds():
        if rnd.has_rules() and rnd.benchmarks:
            assert benchmarks_of(rnd.version) == {b.name for b in rnd.benchmarks.values()}, rnd
            checked += 1
    assert checked >= 14


def test_each_rounds_results_tables_have_a_column_per_benchmark() -> None:
    """``summarize`` tables a result only under a column of its round (summary_columns):
    a round with rules and benchmarks names each benchmark once, so a round added by
    scripts/new_round.py, then given a benchmark, is tabled (docs/rounds.md)."""
    checked = 0
    for rnd in rounds.all_rounds():
        if not (rnd.has_rules() and rnd.benchmarks):
            continue
        columns = rnd.summary_columns
        assert len(columns) == len(set(columns)), rnd.version
        untabled = {b.name for b in rnd.benchmarks.values()} - set(columns)
        assert not untabled, (rnd.version, "summary_columns lacks", untabled)
        checked += 1
    assert checked >= 14


def test_open_division_lists_only_benchmarks_the_registry_allows_in_open() -> None:
    """v3.0-v4.1's official open rules leave out gpt3 and llama2_70b_lora: the registry's
    ``divisions: [closed]`` says so, once, for both the rules and the registry."""
    from mllog_check.rules.benchmarks import benchmarks_of

    assert "gpt3" in benchmarks_of("3.0.0", "closed")
    assert "gpt3" not in benchmarks_of("3.0.0", "open")
    assert "llama2_70b_lora" not in benchmarks_of("4.1.0", "open")
    assert "gpt3" in benchmarks_of("4.1.0", "open")
    assert benchmarks_of("5.0.0", "open") == benchmarks_of("5.0.0", "closed")


def test_no_rule_file_restates_the_benchmark_list() -> None:
    """A benchmark is named once per round: rule files take the list from the registry."""
    rules = ROOT / "schemas" / "rules"
    for path in sorted(rules.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for section, body in (data.get("sections") or {}).items():
            spec = ((body or {}).get("keys") or {}).get("submission_benchmark")
            if spec is not None:
                assert spec.get("value_from") == "benchmarks", (path.name, section)
                assert "value" not in spec, (path.name, section)


def test_a_rule_file_of_ones_own_takes_the_benchmarks_of_the_round_it_extends(
    tmp_path: Path,
) -> None:
    from mllog_check.rules import load_ruleset
    from mllog_check.rules.benchmarks import benchmarks_of
    from mllog_check.rules.loader import RulesetError

    own = tmp_path / "training-9.9.0.yaml"
    own.write_text("ruleset: training-9.9.0\nextends: training-5.1.0\n", encoding="utf-8")
    assert benchmarks_of(str(own)) == benchmarks_of("5.1.0") and "flux1" in benchmarks_of("5.1.0")
    alone = tmp_path / "training-9.8.0.yaml"
    alone.write_text(
        "ruleset: training-9.8.0\nsections:\n  closed:\n    keys:\n"
        "      submission_benchmark: {occurs: exactly_one, value_from: benchmarks}\n",
        encoding="utf-8",
    )
    with pytest.raises(RulesetError, match="value_from: benchmarks needs a round"):
        load_ruleset(str(alone))
