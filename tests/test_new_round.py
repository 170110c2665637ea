"""Adding a round is a data change: scripts/new_round.py on a copy of the repository.

The copy gets a fictional round (the next free version after the newest Training round
of the registry, which it inherits) with a new benchmark (its run count, rules, quality
target and reference convergence points), then ``check`` and ``score`` run on logs of the
new benchmark and the tests that read the registry and the data files run there
unchanged. ``git status`` must show data and docs only: the round's own files, the
registry and the generated docs, counted.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
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
    "tests/test_round_mentions.py",
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
# The new benchmark is named in the registry (its run count) and gets rules, scoring and
# RCP data; the allowed submission_benchmark values come from the registry.
RULES = """sections:
  closed_toybench:
    label: closed toybench
    parent: closed
    when: {key: submission_benchmark, equals: toybench}
    keys_from: closed_gpt_oss_20b
"""
# The target's bounds are the rules' (keys_from gpt_oss_20b: log perplexity <= 3.34):
# stated once, the scoring file drops only the default upper bound 1.0.
SCORING = """benchmarks:
  toybench:
    {metric: log perplexity, direction: down, converged_at: samples_count,
     target: {below: null}}
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


def _log(run: int) -> str:
    """A closed toybench log: the v6 gpt_oss_20b fixture with the v6.1 run disclosure."""
    lines = (FIXTURES / "rounds" / "v6" / "closed_gpt_oss_20b.pass.txt").read_text().splitlines()
    first = json.loads(lines[0].removeprefix(":::MLLOG "))
    extra = [
        ":::MLLOG " + json.dumps({**first, "key": key, "value": value, "metadata": {}})
        for key, value in DISCLOSURE.items()
    ]
    text = "\n".join([*lines[:4], *extra, *lines[4:]]) + "\n"
    text = text.replace('"value": "gpt_oss_20b"', '"value": "toybench"')
    # distinct runs: run N starts about N days later (every time_ms starts 16211)
    return text.replace('"time_ms": 16211', f'"time_ms": {16211 + run}')


def _add_toybench(repo: Path, new: str, old: rounds.Round) -> None:
    schemas = repo / "schemas"
    short = new.removesuffix(".0")
    with open(schemas / "rounds.yaml", "a", encoding="utf-8") as registry:
        registry.write("      toybench: 10\n")  # the new entry's benchmarks come last
    with open(schemas / "rules" / f"training-{new}.yaml", "a", encoding="utf-8") as rules:
        rules.write(RULES)
    with open(schemas / "scoring" / f"v{short}.yaml", "a", encoding="utf-8") as scoring:
        scoring.write(SCORING)
    rcp_path = schemas / "rcp" / f"training_{new}.json"
    rcp = json.loads(rcp_path.read_text(encoding="utf-8"))
    # A round's RCP file states its changes only: its gpt_oss_20b may come from a parent
    source = load_rcp(f"training_{old.version}")["benchmarks"]["gpt_oss_20b"]
    rcp["benchmarks"] = {"toybench": {k: source[k] for k in ("unit", "references")}}
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
    """The docs the generators rewrite (scripts/round_mentions.py, scripts/rules_docs.py)."""
    import round_mentions

    return {*round_mentions.files(), "docs/rules.md"}


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


def test_a_new_round_with_a_new_benchmark_is_data_only(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    _copy(repo)
    old, new = _newest(), next_free()
    short = new.removesuffix(".0")
    made = _run(repo, "scripts/new_round.py", new, "--from", old.version)
    assert made.returncode == 0, made.stderr
    # The round's own data files, the registry (and its prepared copy) and generated docs:
    # no other round's prepared file, no code.
    data = {
        "schemas/rounds.yaml",
        "schemas/prepared/rounds.json",
        f"schemas/prepared/training-{new}.json",
        f"schemas/rules/training-{new}.yaml",
        f"schemas/scoring/v{short}.yaml",
        f"schemas/rcp/training_{new}.json",
        f"schemas/system_description/v{short}.json",
    }
    changed = _changed(repo)
    assert data <= set(changed) and set(changed) - data <= _generated_docs(), changed
    assert len(changed) <= len(data) + len(_generated_docs()), changed
    # Before any change the new round is its parent's copy in effect: the data tests pass.
    _add_toybench(repo, new, old)
    for script in ("scripts/prepare_data.py", "scripts/rules_docs.py", "scripts/round_mentions.py"):
        done = _run(repo, script)
        assert done.returncode == 0, done.stderr
    assert set(_changed(repo)) == set(changed)  # the same files, nothing else

    results = repo / "work" / f"v{short}" / "Example" / "results" / "toy_system" / "toybench"
    results.mkdir(parents=True)
    for run in range(10):
        (results / f"result_{run}.txt").write_text(_log(run), encoding="utf-8")
    systems = results.parents[2] / "systems"
    systems.mkdir()
    description = json.loads((FIXTURES / "package/clean/Acme/systems/acme-8x.json").read_text())
    (systems / "toy_system.json").write_text(json.dumps({**description, "division": "closed"}))

    check = _cli(repo, "check", "-v", str(results / "result_0.txt"))
    assert check.returncode == 0, check.stdout + check.stderr
    assert f"training-{new}" in check.stdout + check.stderr
    score = _cli(repo, "score", "--format", "json", str(results.parents[2]))
    assert score.returncode in (0, 1), score.stderr
    rows = json.loads(score.stdout)["scores"]
    (row,) = [r for r in rows if r["benchmark"] == "toybench"]
    assert row["ruleset"] == new and row["valid"] and row["minutes"] > 0, row
    scores_doc = (repo / "docs" / "scores.md").read_text(encoding="utf-8")
    # the table of rounds says what the round's benchmarks change (the registry's runs)
    assert f"| v{short} | + toybench 10 | minimum | training_{new} |" in scores_doc
    assert row["rcp"]["verdict"] is not None, row  # the new benchmark's RCP data was used
    shutil.rmtree(repo / "work")

    suite = _run(repo, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-m", "not corpus",
                 *SUITE)  # fmt: skip
    assert suite.returncode == 0, suite.stdout[-3000:]
    changed = _changed(repo)
    assert f"schemas/rules/training-{new}.yaml" in changed and "docs/rules.md" in changed
    code = [p for p in changed if p.endswith(".py") or p.startswith(("mllog_check/", "tests/"))]
    assert code == [], code
