"""Adding a round is a data change: scripts/new_round.py on a copy of the repository.

The copy gets a fictional round (the next free version after the newest Training round
of the registry, which it inherits) that retires one of the newest round's benchmarks and
adds a new one (a copy of another, both chosen by property: no benchmark is named here),
with its run count, results-table column, rules, quality target and reference
convergence points; then ``check``, ``score`` and ``summarize`` run on logs of the new
benchmark and the tests that read the registry and the data files run there unchanged.
``git status`` must show data and docs only: the round's own files, the registry and the
generated docs, counted."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import FIXTURES, ROOT, corpus_dir

from mllog_check import rounds
from mllog_check.results.rcp import load_rcp

pytestmark = pytest.mark.slow

# Tests that read the registry, the data files or the generated docs (not the corpus:
# their figures do not depend on a round without published logs).
SUITE = [
    "tests/test_registry.py",
    "tests/test_rule_files.py",
    "tests/test_rules_docs.py",
    "tests/test_prepared.py",
    "tests/test_sysdesc.py",
    "tests/test_data_files.py",
    "tests/test_rounds_scoring.py",
    "tests/test_scores.py",
    "tests/test_rounds.py",
    "tests/test_docs_tables.py",
]
# The run disclosure v6.1 made mandatory (schemas/rules/training-6.1.0.yaml, common).
DISCLOSURE = {
    "config_filename": "toy.yaml",
    "tensor_parallelism": 1,
    "pipeline_parallelism": 1,
    "context_parallelism": 1,
    "expert_parallelism": 1,
    "micro_batch_size": 1,
    "lowest_numerical_precision_in_linear": "bfloat16",
    "lowest_numerical_precision_in_attn": "bfloat16",
    "lowest_numerical_precision_in_comm": "bfloat16",
}
# The new benchmark copies one of the newest round's (chosen by ``_source``: never a name
# written here, so the test survives a round that retires it). Its rules take that
# benchmark's closed keys (its quality target included), its scoring entry and RCP
# references are copies; the allowed submission_benchmark values come from the registry.
RULES = """sections:
  closed_toybench:
    label: closed toybench
    parent: closed
    when: {{key: submission_benchmark, equals: toybench}}
    keys_from: closed_{source}
"""


def _newest() -> rounds.Round:
    """The newest Training round of the registry: the one a new round inherits."""
    return [r for r in rounds.all_rounds() if r.usage == rounds.TRAINING][-1]


def next_free(major: bool = False) -> str:
    """The next version no round of the registry has: 6.2.0 after 6.1.0 (7.0.0 with
    ``major``), whatever the registry holds today."""
    number = _newest().number
    version = f"{number[0] + 1}.0.0" if major else f"{number[0]}.{number[1] + 1}.0"
    while rounds.registry().find(version) is not None:  # never reached: the newest is last
        version = f"{number[0]}.{int(version.split('.')[1]) + 1}.0"
    return version


def _copy(destination: Path) -> None:
    """The repository's working tree (tracked files as they are, and new files git does not
    ignore: a round's data not yet committed is part of it), committed in a fresh git
    repository; the package finds its data through links, as the wheel has it inside
    (pyproject.toml)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in listed)):
        source = ROOT / name
        if source.is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    (destination / "mllog_check" / "schemas").symlink_to("../schemas")
    (destination / "mllog_check" / "grammars").symlink_to("../grammars")
    git = ["git", "-c", "user.email=t@example.org", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=destination, check=True)
    exclude = destination / ".git" / "info" / "exclude"
    exclude.write_text("mllog_check/schemas\nmllog_check/grammars\n", encoding="utf-8")
    subprocess.run([*git, "add", "-A"], cwd=destination, check=True)
    subprocess.run([*git, "commit", "-qm", "copy"], cwd=destination, check=True)


def _env(repo: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "MLLOG_CHECK_ROUNDS"}
    env["PYTHONPATH"] = str(repo)  # the copy's package, before the installed one
    corpus = corpus_dir()
    if corpus is not None:
        env["MLLOG_CORPUS"] = str(corpus)
    return env


def _run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=repo, env=_env(repo), capture_output=True, text=True
    )


def _cli(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The copy's mllog-check command."""
    return _run(repo, "-c", "import sys; from mllog_check.cli import main; sys.exit(main())", *args)


def _fixture(benchmark: str) -> Path | None:
    """The newest hand-written passing closed log of a benchmark (fixtures/rounds/)."""
    found = sorted(FIXTURES.glob(f"rounds/*/closed_{benchmark}.pass.txt"))
    return found[-1] if found else None


def _log(source: Path, benchmark: str, run: int) -> str:
    """A closed log of ``benchmark`` made from a passing fixture of another one, with the
    run disclosure v6.1 made mandatory where the fixture lacks it; run N starts N days
    later (distinct runs)."""
    lines = source.read_text(encoding="utf-8").splitlines()
    payloads = [json.loads(line.removeprefix(":::MLLOG ")) for line in lines]
    logged = {p["key"] for p in payloads}
    extra = [
        {**payloads[0], "key": key, "value": value, "metadata": {}}
        for key, value in DISCLOSURE.items()
        if key not in logged
    ]
    out = []
    for payload in [*payloads[:4], *extra, *payloads[4:]]:
        if payload["key"] == "submission_benchmark":
            payload = {**payload, "value": benchmark}
        payload = {**payload, "time_ms": payload["time_ms"] + run * 86_400_000}
        out.append(":::MLLOG " + json.dumps(payload))
    return "\n".join(out) + "\n"


def _source(newest: rounds.Round) -> tuple[str, Path]:
    """The benchmark of the newest round the toy benchmark copies, chosen by what the test
    needs of it: a closed rules section, a scoring entry, RCP references and a passing
    fixture that still passes the newest round's rules; the first such in name order."""
    from mllog_check import parse_text
    from mllog_check.results.scoring import scoring_for
    from mllog_check.rules import check_log, load_ruleset

    sections = load_ruleset(newest.version).sections
    scored = scoring_for(newest).benchmarks
    references = load_rcp(f"training_{newest.version}")["benchmarks"]
    for name in sorted(newest.benchmarks or ()):
        fixture = _fixture(name)
        if fixture is None or f"closed_{name}" not in sections:
            continue
        if name not in scored or name not in references:
            continue
        if check_log(parse_text(_log(fixture, name, 0)), newest.version).passed:
            return name, fixture
    pytest.fail(f"no benchmark of round {newest.version} has a closed fixture passing its rules")


def _yaml(path: Path) -> dict:  # type: ignore[type-arg]
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def _retired(newest: rounds.Round, source: str) -> str:
    """A benchmark of the newest round the new round retires: the last in name order
    other than the copied one whose registry entry is a run count alone (one line) and
    whose rule sections no other section takes keys from (they are removed with it)."""
    raw = rounds.read_registry_file(ROOT / "schemas" / "rounds.yaml")
    (entry,) = [e for e in raw["rounds"] if str(e.get("version")) == newest.version]
    taken = {
        (name, str(body["keys_from"]))
        for path in sorted((ROOT / "schemas" / "rules").glob("*.yaml"))
        for name, body in (_yaml(path).get("sections") or {}).items()
        if isinstance(body, dict) and body.get("keys_from")
    }
    for name in sorted(newest.benchmarks or (), reverse=True):
        own = {f"closed_{name}", f"open_{name}"}
        if name == source or not isinstance(entry["benchmarks"].get(name), int):
            continue
        if not any(used in own and section not in own for section, used in taken):
            return name
    pytest.fail(f"no benchmark of round {newest.version} can be retired by the test")


def _edit_round(repo: Path, new: str, old: rounds.Round, source: str, retired: str) -> None:
    """State the new round's changes as docs/rounds.md says: toybench added (a copy of
    ``source``) and ``retired`` retired, in the registry (benchmarks and summary_columns)
    and in each data file."""
    from mllog_check.results.scoring import _merged
    from mllog_check.rules import load_ruleset

    schemas = repo / "schemas"
    short = new.removesuffix(".0")
    registry = schemas / "rounds.yaml"
    head, marker, entry = registry.read_text(encoding="utf-8").rpartition(
        "# Added by scripts/new_round.py"
    )
    (columns,) = re.findall(r"summary_columns: \[(.*)\]", entry)
    kept = [c.strip() for c in columns.split(",") if c.strip() != retired]
    entry = entry.replace(f"[{columns}]", "[" + ", ".join([*kept, "toybench"]) + "]")
    entry, dropped = re.subn(rf"\n +{retired}: \d+\n", "\n", entry)
    assert dropped == 1, entry
    runs = old.benchmark(source).runs  # type: ignore[union-attr]
    registry.write_text(head + marker + entry.rstrip("\n") + f"\n      toybench: {runs}\n")

    sections = load_ruleset(old.version).sections
    removed = [s for s in (f"closed_{retired}", f"open_{retired}") if s in sections]
    with open(schemas / "rules" / f"training-{new}.yaml", "a", encoding="utf-8") as rules:
        rules.write(f"remove_sections: [{', '.join(removed)}]\n" if removed else "")
        rules.write(RULES.format(source=source))

    scoring = _merged(old.version)["benchmarks"]
    with open(schemas / "scoring" / f"v{short}.yaml", "a", encoding="utf-8") as out:
        out.write(f"remove: [{retired}]\n" if retired in scoring else "")
        out.write(f"benchmarks:\n  toybench: {json.dumps(scoring[source])}\n")

    rcp_path = schemas / "rcp" / f"training_{new}.json"
    rcp = json.loads(rcp_path.read_text(encoding="utf-8"))
    # A round's RCP file states its changes only: the source's entry may be a parent's
    inherited = load_rcp(f"training_{old.version}")["benchmarks"]
    if retired in inherited:
        rcp["remove"] = [retired]
    rcp["benchmarks"] = {"toybench": {k: inherited[source][k] for k in ("unit", "references")}}
    rcp_path.write_text(json.dumps(rcp, indent=1) + "\n", encoding="utf-8")


def _changed(repo: Path) -> list[str]:
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    return sorted(line[3:] for line in status)


def _generated_docs() -> set[str]:
    """The docs the generators rewrite (scripts/docs_tables.py, scripts/rules_docs.py)."""
    import docs_tables

    return {*docs_tables.files(), "docs/rules.md"}


def test_the_next_free_version_follows_the_newest_round() -> None:
    newest = _newest()
    for major in (False, True):
        version = next_free(major)
        assert rounds.registry().find(version) is None
        assert tuple(int(n) for n in version.split(".")) > newest.number


def test_new_round_refuses_another_checkouts_package(tmp_path: Path) -> None:
    """The script belongs to a repository whose package Python does not import (here: a
    copy of scripts/ beside no package): it refuses and writes nothing anywhere."""
    repo = tmp_path / "clone"
    shutil.copytree(ROOT / "scripts", repo / "scripts", ignore=shutil.ignore_patterns("__*"))
    (repo / "schemas").mkdir()
    registry = (ROOT / "schemas" / "rounds.yaml").read_bytes()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MLLOG_CHECK_ROUNDS")}
    made = subprocess.run(
        [sys.executable, "scripts/new_round.py", next_free(), "--from", _newest().version],
        cwd=repo, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert made.returncode == 2, made.stdout + made.stderr
    assert "not this repository's" in made.stderr and str(repo) in made.stderr
    assert (ROOT / "schemas" / "rounds.yaml").read_bytes() == registry
    assert list((repo / "schemas").iterdir()) == []
    # so does the prepared data's script (it would write the other checkout's files)
    prepared = subprocess.run(
        [sys.executable, "scripts/prepare_data.py"], cwd=repo, env=env, capture_output=True,
        text=True,
    )  # fmt: skip
    assert prepared.returncode == 2 and "not this repository's" in prepared.stderr


def test_a_new_round_retiring_and_adding_a_benchmark_is_data_only(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    _copy(repo)
    old, new = _newest(), next_free()
    source, fixture = _source(old)
    retired = _retired(old, source)
    short = new.removesuffix(".0")
    made = _run(repo, "scripts/new_round.py", new, "--from", old.version)
    assert made.returncode == 0, made.stderr
    # The round's own data files, the registry (and its prepared copy), the list of
    # validated data files (which gains the round's) and generated docs: no other
    # round's prepared file, no code.
    data = {
        "schemas/rounds.yaml",
        "schemas/prepared/rounds.json",
        "schemas/prepared/validated.json",
        f"schemas/prepared/training-{new}.json",
        f"schemas/rules/training-{new}.yaml",
        f"schemas/scoring/v{short}.yaml",
        f"schemas/rcp/training_{new}.json",
        f"schemas/system_description/v{short}.json",
    }
    changed = _changed(repo)
    assert data <= set(changed) and set(changed) - data <= _generated_docs(), changed
    assert len(changed) <= len(data) + len(_generated_docs()), changed
    # The new entry tables what its source round tables (summarize: docs/scores.md).
    read = f"from mllog_check import rounds; print(rounds.parse_round({new!r}).summary_columns)"
    columns = _run(repo, "-c", read)
    assert columns.stdout.strip() == str(old.summary_columns), columns.stdout + columns.stderr
    # Before any change the new round is its parent's copy in effect: the data tests pass.
    _edit_round(repo, new, old, source, retired)
    for script in ("scripts/prepare_data.py", "scripts/rules_docs.py", "scripts/docs_tables.py"):
        done = _run(repo, script)
        assert done.returncode == 0, done.stderr
    assert set(_changed(repo)) == set(changed)  # the same files, nothing else

    org = repo / "work" / f"v{short}" / "Example"
    results = org / "results" / "toy_system" / "toybench"
    results.mkdir(parents=True)
    runs = old.benchmark(source).runs  # type: ignore[union-attr]
    for run in range(runs):
        (results / f"result_{run}.txt").write_text(_log(fixture, "toybench", run), encoding="utf-8")
    systems = org / "systems"
    systems.mkdir()
    description = json.loads((FIXTURES / "package/clean/Acme/systems/acme-8x.json").read_text())
    (systems / "toy_system.json").write_text(json.dumps({**description, "division": "closed"}))

    check = _cli(repo, "check", "-v", str(results / "result_0.txt"))
    assert check.returncode == 0, check.stdout + check.stderr
    assert f"training-{new}" in check.stdout + check.stderr
    score = _cli(repo, "score", "--format", "json", str(org))
    assert score.returncode in (0, 1), score.stderr
    rows = json.loads(score.stdout)["scores"]
    (row,) = [r for r in rows if r["benchmark"] == "toybench"]
    assert row["ruleset"] == new and row["valid"] and row["minutes"] > 0, row
    assert row["rcp"]["verdict"] is not None, row  # the new benchmark's RCP data was used
    # The official results tables have the new benchmark's column and this result in it.
    tables = repo / "work" / "tables.csv"
    summary = _cli(repo, "summarize", str(org), "--csv", str(tables))
    assert summary.returncode in (0, 1), summary.stdout + summary.stderr  # 1: an RCP verdict
    assert "not a benchmark column" not in summary.stdout + summary.stderr
    (strong,) = json.loads(tables.with_suffix(".json").read_text(encoding="utf-8"))
    assert retired not in strong and strong["toybench"] == pytest.approx(row["minutes"]), strong
    rounds_doc = (repo / "docs" / "rounds.md").read_text(encoding="utf-8")
    # the table of rounds says what the round's benchmarks change (the registry's runs)
    (line,) = [x for x in rounds_doc.splitlines() if x.startswith(f"| v{short} |")]
    assert f"| training_{new} | minimum | − {retired}; + toybench {runs} |" in line, line
    shutil.rmtree(repo / "work")

    suite = _run(repo, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-m", "not corpus",
                 *SUITE)  # fmt: skip
    assert suite.returncode == 0, suite.stdout[-3000:]
    changed = _changed(repo)
    assert f"schemas/rules/training-{new}.yaml" in changed and "docs/rules.md" in changed
    code = [p for p in changed if p.endswith(".py") or p.startswith(("mllog_check/", "tests/"))]
    assert code == [], code
