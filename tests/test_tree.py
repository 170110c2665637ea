"""Result-tree discovery and the lenient system-description loader."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES

from mllog_check.results.tree import discover, load_system
from mllog_check.rounds import from_path

SCORE = FIXTURES / "score"


def _keys(paths: list[Path]) -> list[tuple[str, str, str, int]]:
    sets, _ = discover([str(p) for p in paths])
    return [(s.org, s.system, s.benchmark, len(s.files)) for s in sets]


@pytest.mark.parametrize(
    "entry",
    [
        "olympic",
        "olympic/Example",
        "olympic/Example/results",
        "olympic/Example/results/sys8",
        "olympic/Example/results/sys8/resnet",
    ],
)
def test_every_entry_level_finds_the_same_result_set(entry: str) -> None:
    assert _keys([SCORE / entry]) == [("Example", "sys8", "resnet", 5)]


def test_system_json_and_natural_file_order(tmp_path: Path) -> None:
    folder = tmp_path / "Org" / "results" / "sysA" / "bert"
    folder.mkdir(parents=True)
    for i in (10, 2, 1):
        (folder / f"result_{i}.txt").write_text("")
    (folder / "notes.txt").write_text("")
    (tmp_path / "Org" / "systems").mkdir()
    (tmp_path / "Org" / "systems" / "sysA.json").write_text("{}")
    (result_set,) = discover([str(tmp_path)])[0]
    assert [Path(f).name for f in result_set.files] == [
        "result_1.txt",
        "result_2.txt",
        "result_10.txt",
    ]
    assert result_set.system_json == str(tmp_path / "Org" / "systems" / "sysA.json")


def test_stray_nested_folder_is_reported_not_scored() -> None:
    sets, problems = discover([str(SCORE / "stray")])
    assert [(s.system, s.benchmark) for s in sets] == [("sys8", "resnet")]
    assert [p.rule for p in problems] == ["MLR031"]


def test_symlinks_leaving_the_tree_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    shutil.copytree(SCORE / "olympic" / "Example" / "results" / "sys8" / "resnet", outside)
    tree = tmp_path / "tree" / "Org" / "results" / "sys" / "resnet"
    tree.mkdir(parents=True)
    os.symlink(outside / "result_0.txt", tree / "result_0.txt")
    os.symlink(outside, tmp_path / "tree" / "Org" / "results" / "linked")
    sets, problems = discover([str(tmp_path / "tree")])
    assert sets == []
    assert {p.rule for p in problems} == {"MLS010"} and len(problems) == 2


def test_missing_path_is_an_input_error() -> None:
    sets, problems = discover([str(SCORE / "nope")])
    assert sets == [] and problems[0].rule == "MLS010" and problems[0].is_error


def test_round_from_folder_names(tmp_path: Path) -> None:
    # One folder parser for the project: the round registry's (mllog_check.rounds).
    def folder(path: Path) -> str | None:
        found = from_path(path, is_folder=True)
        return found.round.folder if found else None

    assert folder(tmp_path / "training_results_v1.1" / "Org" / "results") == "v1.1"
    assert folder(tmp_path / "v2.0" / "Org") == "v2.0"
    assert folder(tmp_path / "v0.5.0" / "Org") == "v0.5"
    assert folder(tmp_path / "training_results_v5.1" / "Org") == "v5.1"
    assert folder(tmp_path / "elsewhere") is None


def test_system_loader_is_lenient(tmp_path: Path) -> None:
    good = tmp_path / "a.json"
    good.write_text(
        json.dumps(
            {
                "system_name": " IPU-POD16 ",
                "status": "Available",
                "divison": "close",
                "number_of_nodes": "2",
                "accelerators_per_node": "8",
            }
        )
    )
    desc, problems = load_system(str(good))
    assert problems == []
    assert (desc.system_name, desc.status, desc.division, desc.accelerators) == (
        "IPU-POD16",
        "available",
        "closed",
        16,
    )
    todo = tmp_path / "b.json"
    todo.write_text(
        '{"number_of_nodes": "TODO", "accelerators_per_node": "", "division": "Closed"}'
    )
    desc, _ = load_system(str(todo))
    assert desc.accelerators is None and desc.division == "closed" and desc.system_name is None
    broken = tmp_path / "c.json"
    broken.write_text('{"system_name": "x",')
    desc, problems = load_system(str(broken))
    assert desc.system_name is None and [p.rule for p in problems] == ["MLR030"]
    listed = tmp_path / "d.json"
    listed.write_text("[1, 2]")
    assert [p.rule for p in load_system(str(listed))[1]] == ["MLR030"]


@pytest.mark.corpus
def test_corpus_round_and_real_system_descriptions(corpus: Path) -> None:
    sets, problems = discover([str(corpus / "v1.0")])
    assert len(sets) == 31
    assert all(getattr(from_path(s.files[0]), "ruleset", None) == "1.0.0" for s in sets)
    assert [p.rule for p in problems] == ["MLR031"]  # Habana's results/.../resnet/bert copy
    pod16 = next(s for s in sets if s.system == "ipu-pod16-TF1")
    desc, issues = load_system(pod16.system_json)
    assert issues == [] and desc.system_name == "IPU-POD16" and desc.accelerators == 16
    # v0.7 descriptions include invalid JSON and misspelt keys: loading never raises
    paths = sorted((corpus / "v0.7").glob("*/systems/*.json"))
    assert len(paths) >= 15  # today's figure: a walk that loads nothing must not pass
    for path in paths:
        load_system(str(path))


@pytest.mark.corpus
def test_the_package_and_score_find_the_same_result_sets(corpus: Path) -> None:
    """One model of the tree: in every corpus org, the package checker's layout pass and
    `score`'s discover make the same result sets (names, folder, tree, description,
    files; the layout alone keeps folders without logs, which it reports)."""
    orgs = sorted(p for p in corpus.glob("*/*") if (p / "results").is_dir())
    assert len(orgs) >= 35  # every round's orgs: a walk that finds nothing must not pass
    found = sum(_same_sets(org) for org in orgs)
    assert found >= 200


@pytest.mark.corpus
def test_a_tree_reached_through_a_link_gives_both_the_same_rows(
    corpus: Path, tmp_path: Path
) -> None:
    """A corpus reached through a symbolic link (a CI checkout beside a linked shared
    folder): the description's path is spelt as the tree was given, by both passes."""
    rounds = sorted(p for p in corpus.iterdir() if p.is_dir())
    linked = tmp_path / "linked"
    found = 0
    for rnd in (rounds[0], rounds[-1]):  # the oldest and the newest folder, HPC or not
        linked.unlink(missing_ok=True)
        linked.symlink_to(rnd.resolve(), target_is_directory=True)
        for org in sorted(p for p in linked.iterdir() if (p / "results").is_dir())[:3]:
            found += _same_sets(org)
            scored, _ = discover([str(org)])
            described = [s.system_json for s in scored if s.system_json]
            assert described and all(d.startswith(str(linked)) for d in described), org
    assert found >= 2


def _same_sets(org: Path) -> int:
    """The result sets of the package checker's layout pass and of `score`'s discover,
    compared; how many there are."""
    from mllog_check.results.tree import ResultSet
    from mllog_check.submission.layout import check_layout
    from mllog_check.submission.package import choose_round

    def facts(sets: list[ResultSet]) -> set[tuple[object, ...]]:
        return {
            (s.org, s.system, s.scaling, s.benchmark, s.folder, s.root, s.system_json, *files)
            for s in sets
            if (files := sorted(str(f) for f in s.files))
        }

    layout = check_layout(org, choose_round(org).round)
    scored, _ = discover([str(org)])
    assert facts(layout.result_sets) == facts(scored), org
    return len(facts(scored))
