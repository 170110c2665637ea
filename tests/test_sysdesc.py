"""System descriptions: per-round schemas (inheritance), positions, real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import FIXTURES

from mllog_check.submission import sysdesc

V10_REQUIRED = 33


def _check(tmp_path: Path, text: str, round_name: str = "v1.0") -> list[tuple[str, int, str]]:
    path = tmp_path / "sys.json"
    path.write_text(text, encoding="utf-8")
    desc = sysdesc.load(path)
    problems = desc.problems + sysdesc.validate(desc, round_name)
    return [(p.rule, p.line, p.message) for p in problems]


def _good() -> dict[str, object]:
    return json.loads((FIXTURES / "package/clean/Acme/systems/acme-8x.json").read_text())


def test_round_files_inherit_and_state_changes_only() -> None:
    v06, v07, v10 = (sysdesc.round_schema(r) for r in ("v0.6", "v0.7", "v1.0"))
    assert "cooling" not in v06["required"] and "other_software_stack" not in v06["required"]
    assert len(v07["required"]) == V10_REQUIRED == len(v10["required"])
    assert v10["title"].endswith("v1.0") and "extends" not in v10
    assert sysdesc.known_rounds()[:5] == ["v0.6", "v0.7", "v1.0", "v1.1", "v2.0"]
    assert "v6.1" in sysdesc.known_rounds()


def test_clean_description_passes(tmp_path: Path) -> None:
    assert _check(tmp_path, json.dumps(_good())) == []


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"division": "close"}, "'division' is 'close'; allowed values: closed, open"),
        ({"division": "Closed"}, "allowed values: closed, open"),
        ({"status": "on-prem"}, "'status' is 'on-prem'"),
        ({"number_of_nodes": "two"}, "'number_of_nodes' is 'two': expected a whole number"),
        ({"number_of_nodes": 0}, "'number_of_nodes' is 0"),
        ({"other_software_stack": ["cuda"]}, "'other_software_stack' is ['cuda']"),
        ({"submitter": ""}, "'submitter' is ''"),
    ],
)
def test_bad_values_have_clear_messages(
    tmp_path: Path, change: dict[str, object], needle: str
) -> None:
    data = {**_good(), **change}
    found = _check(tmp_path, json.dumps(data, indent=2))
    # The official v1.0 check reads key presence only: bad values are advice (MLP100).
    assert [rule for rule, _, _ in found] == ["MLP100"]
    assert needle in found[0][2]
    key = next(iter(change))
    lines = json.dumps(data, indent=2).splitlines()
    expected_line = 1 + next(
        i for i, text in enumerate(lines) if text.strip().startswith(f'"{key}"')
    )
    assert found[0][1] == expected_line


@pytest.mark.parametrize(
    "change",
    [
        {"number_of_nodes": 1.0},  # MosaicML v2.0
        {"number_of_nodes": "16"},
        {"other_software_stack": "synapseai 0.14.0"},
        {"other_software_stack": {"cuda": "11.3", "nccl": 2.9}},
        {"host_processor_core_count": "core_count"},  # real v0.7 Google text
        {"accelerator_frequency": 1400},
    ],
)
def test_values_as_they_really_occur_are_accepted(
    tmp_path: Path, change: dict[str, object]
) -> None:
    assert _check(tmp_path, json.dumps({**_good(), **change})) == []


def test_missing_field_and_misspelt_division(tmp_path: Path) -> None:
    data = _good()
    data["divison"] = data.pop("division")  # v0.7 Alibaba's spelling
    text = json.dumps(data, indent=2)
    found = _check(tmp_path, text)
    misspelt = (
        "missing required field 'division': the file has 'divison' (did you mean 'division'?)"
    )
    assert [(r, m) for r, _, m in found] == [("MLP011", misspelt)]
    # at the misspelt key's line, not the file's first
    assert found[0][1] == 1 + text.splitlines().index(
        next(line for line in text.splitlines() if '"divison"' in line)
    )
    assert (
        _check(tmp_path, json.dumps({k: v for k, v in _good().items() if k != "cooling"}), "v0.6")
        == []
    )


def test_invalid_json_reports_line_and_column(tmp_path: Path) -> None:
    text = '{\n  "submitter": "Acme",\n  "division": "open",\n}\n'
    assert _check(tmp_path, text) == [
        ("MLP010", 4, "invalid JSON: Expecting property name enclosed in double quotes")
    ]
    path = tmp_path / "sys.json"
    desc = sysdesc.load(path)
    assert desc.problems[0].column == 1
    assert _check(tmp_path, "[1, 2]")[0][:2] == ("MLP011", 1)


def test_placeholders_are_one_warning_per_file(tmp_path: Path) -> None:
    found = _check(tmp_path, json.dumps({**_good(), "cooling": "TODO", "hw_notes": "tbd"}))
    assert [r for r, _, _ in found] == ["MLP012"]
    assert "2 fields hold a placeholder such as TODO: cooling, hw_notes" in found[0][2]


def test_unreadable_description(tmp_path: Path) -> None:
    folder = tmp_path / "sys.json"
    folder.mkdir()
    assert [p.rule for p in sysdesc.load(folder).problems] == ["MLP008"]


@pytest.mark.corpus
def test_corpus_descriptions(corpus: Path) -> None:
    """Every v1.0-v2.0 description is valid JSON meeting its round's schema (TODOs warn);
    v0.7 Alibaba's invalid files are reported with the decoder's position."""
    schema_errors = {}
    for round_name in ("v1.0", "v1.1", "v2.0"):
        for path in sorted(corpus.glob(f"{round_name}/*/systems/*.json")):
            desc = sysdesc.load(path)
            found = desc.problems + sysdesc.validate(desc, round_name)
            errors = [p for p in found if p.is_error]
            if errors:
                schema_errors[str(path)] = errors
    assert schema_errors == {}
    broken = sysdesc.load(corpus / "v0.7/Alibaba/systems/n128_pai_eflops.json")
    assert [(p.rule, p.line, p.column) for p in broken.problems] == [("MLP010", 36, 5)]
    misspelt = sysdesc.load(corpus / "v0.7/Alibaba/systems/n1_A100.json")
    messages = [p.message for p in sysdesc.validate(misspelt, "v0.7")]
    assert any(m.startswith("missing required field 'division'") for m in messages)


@pytest.mark.corpus
def test_keyed_lines_descriptions_in_a_package(corpus: Path, tmp_path: Path) -> None:
    """NVIDIA's v0.6 `key: {json}` lines: read and advice (MLP100) in their round, whose
    descriptions the official package checker does not read; the same file in a v1.0
    org, where it loads each description as JSON, is invalid JSON (MLP010)."""
    import shutil

    from mllog_check.submission.package import check_package

    org = tmp_path / "v0.6" / "NVIDIA"
    shutil.copytree(corpus / "v0.6" / "NVIDIA", org)
    keyed = sorted((org / "systems").glob("*.json"))
    assert keyed
    report = check_package(org)
    by_path = {str(p): [q.rule for q in report.problems if q.path == str(p)] for p in keyed}
    assert all(rules == ["MLP100"] for rules in by_path.values()), by_path
    assert not [p for p in report.problems if p.rule in ("MLP010", "MLP011")]

    v10 = tmp_path / "v1.0" / "Habana"
    shutil.copytree(corpus / "v1.0" / "Habana", v10)
    (target,) = sorted((v10 / "systems").glob("*.json"))
    target.write_text(keyed[0].read_text(encoding="utf-8"), encoding="utf-8")
    found = [p for p in check_package(v10).problems if p.path == str(target)]
    assert "MLP010" in [p.rule for p in found] and all(p.rule != "MLP100" for p in found)


@pytest.mark.corpus
def test_a_key_stated_twice_with_two_values_is_named_at_both_lines(
    corpus: Path, tmp_path: Path
) -> None:
    """A published v5.1 description with "cooling" stated again with another value: both
    tools read the last silently; MLP013 names both lines and the value kept. The same
    value twice (v1.0 Graphcore's host_storage_type, as published) says nothing."""
    from mllog_check.results.tree import read_system

    published = sorted((corpus / "v5.1").glob("*/systems/*.json"))[0]
    text = published.read_text(encoding="utf-8")
    data = json.loads(text)
    assert not sysdesc.repeated_keys(read_system(published))
    first = text.index('"cooling"')
    end = text.index("\n", first)
    other = "Liquid" if str(data["cooling"]).lower() != "liquid" else "Air"
    planted = text[: end + 1] + f'  "cooling": "{other}",\n' + text[end + 1 :]
    copy = tmp_path / published.name
    copy.write_text(planted, encoding="utf-8")
    (found,) = sysdesc.repeated_keys(read_system(copy))
    line = text.count("\n", 0, first) + 1
    assert found.rule == "MLP013" and not found.is_error and found.line == line + 1
    assert f"(lines {line} and {line + 1})" in found.message and f'"{other}"' in found.message
    same = text[: end + 1] + text[first : end + 1] + "\n" + text[end + 1 :]
    copy.write_text(same, encoding="utf-8")
    assert not sysdesc.repeated_keys(read_system(copy))
