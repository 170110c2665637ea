"""Every registered rule's passing and failing example, run through the stage that owns it.

To add a stage, add a runner to RUNNERS: it takes the example text and returns the
rule codes it reports. A rule whose example cannot be written as text is listed in
EMPTY_EXAMPLE_REASONS with the reason; nothing else is skipped silently.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import pytest
from conftest import ROOT

from mllog_check import catalog, parse_bytes, parse_text
from mllog_check.catalog import RuleInfo
from mllog_check.problems import Severity


def _parse(text: str) -> set[str]:
    # Examples are byte strings written as text: latin-1 keeps a byte such as \xe9 a
    # single (non-UTF-8) byte, as in the bad-encoding example.
    try:
        data = text.encode("latin-1")
    except UnicodeEncodeError:
        data = text.encode("utf-8")
    return {p.rule for p in parse_bytes(data, "example.txt").problems}


def _parse_utf16(text: str) -> set[str]:
    # An example starting with a byte-order mark is the file written as UTF-16.
    data = text.encode("utf-16-le") if text.startswith("\ufeff") else text.encode("utf-8")
    return {p.rule for p in parse_bytes(data, "example.txt").problems}


def _parse_path(path: str) -> set[str]:
    # Inputs that are not text (a truncated gzip stream) are named by their fixture path.
    from mllog_check import parse_paths

    return {p.rule for result in parse_paths([str(ROOT / path)]) for p in result.problems}


def _check_path(path: str) -> set[str]:
    # A log too long to show as text (a fixture file), checked with the v1.0 rules.
    from mllog_check.checking import check_paths

    run = check_paths([str(ROOT / path)], "1.0.0")
    return {p.rule for verdict in run.verdicts for p in verdict.problems}


def _check(text: str) -> set[str]:
    from mllog_check.rules import check_log

    return {p.rule for p in check_log(parse_text(text, "example.txt"), "1.0.0").problems}


def _check_with(ruleset: str) -> Callable[[str], set[str]]:
    # "check@5.1.0": rules of a later round, checked with that round's rules.
    from mllog_check.rules import check_log

    return lambda text: {
        p.rule for p in check_log(parse_text(text, "example.txt"), ruleset).problems
    }


def _score(folder: str) -> set[str]:
    # "score" examples name a fixture folder (fixtures/score/<case>), not log text.
    from catalog_examples import score_example

    return {p.rule for p in score_example(folder)}


def _package(example: str) -> set[str]:
    # "package"/"audit" examples name a fixture folder (fixtures/package/..., fixtures/audit/...).
    from catalog_examples import run_example

    return run_example("package", example)


def _power(folder: str) -> set[str]:
    # "power" examples name a benchmark folder with power/ (fixtures/power/<case>).
    from catalog_examples import power_example

    return {p.rule for p in power_example(folder)}


def _hparams(example: str) -> set[str]:
    # "hparams" examples name a folder of result sets with its borrowings.yaml.
    from catalog_examples import hparams_example

    return {p.rule for p in hparams_example(example)}


def _run_example(stage: str, example: str) -> set[str]:
    from catalog_examples import run_example

    return run_example(stage, example)


def _audit(example: str) -> set[str]:
    from catalog_examples import run_example

    return run_example("audit", example)


def _audit_rounds(example: str) -> set[str]:
    # "audit-rounds" examples are a results repository of several round folders.
    from catalog_examples import run_example

    return run_example("audit-rounds", example)


# stage -> runner; other stages ("score", "package", "audit") add theirs here.
RUNNERS: dict[str, Callable[[str], set[str]]] = {
    "parse": _parse,
    "parse-utf16": _parse_utf16,
    "parse-path": _parse_path,
    "check": _check,
    "check-path": _check_path,
    "score": _score,
    "package": _package,
    "audit": _audit,
    "audit-rounds": _audit_rounds,
    "power": _power,
    "hparams": _hparams,
}

# Rules whose example is empty on purpose, with the reason (tested elsewhere).
EMPTY_EXAMPLE_REASONS = {
    "MLP031": "a stage that raises: tests/test_package_catalog.py makes check_log raise",
    "MLS020": "a log rewritten while check --follow reads it: tests/test_hostile_bounds.py",
}

catalog.load_all()
RULES = list(catalog.all_rules())


def test_registry_is_not_empty_and_check_stage_is_present() -> None:
    stages = {r.stage.split("@")[0] for r in RULES}
    assert {"parse", "check"} <= stages
    assert all(r.code[:3] in {"MLS", "MLC", "MLR", "MLP", "MLA", "MLE"} for r in RULES)


@pytest.mark.parametrize("info", RULES, ids=lambda r: r.code)
def test_examples(info: RuleInfo) -> None:
    assert info.name and info.summary, info.code
    runner = RUNNERS.get(info.stage)
    if runner is None and info.stage.startswith("check@"):
        runner = _check_with(info.stage.removeprefix("check@"))
    if runner is None and info.stage.startswith("package@"):
        runner = functools.partial(_run_example, info.stage)
    if not info.good_example or not info.bad_example:
        assert info.code in EMPTY_EXAMPLE_REASONS, f"{info.code} lacks an example"
        pytest.skip(EMPTY_EXAMPLE_REASONS[info.code])
    if runner is None:
        pytest.skip(f"no runner for stage {info.stage!r} yet: add one to RUNNERS")
    assert info.code not in runner(info.good_example), "the passing example reports the rule"
    assert info.code in runner(info.bad_example), "the failing example does not report the rule"


def test_advisory_codes_in_rule_data_are_registered() -> None:
    from mllog_check.rules import load_ruleset

    rules = load_ruleset("1.0.0")
    used = {a.code for s in rules.sections.values() for k in s.keys.values() for a in k.advisories}
    assert used and all(code in {r.code for r in RULES} for code in used)


def test_one_table_through_one_helper() -> None:
    """Codes enter the table only through catalog.rule (no module builds a RuleInfo);
    the engine's MLC table is every registered compliance code, each with its examples;
    "beyond the official tools" is a field, never told from the code's digits."""
    import re

    import mllog_check
    from mllog_check.rules import codes, examples

    package = ROOT / "mllog_check"
    assert package == type(ROOT)(mllog_check.__file__).parent
    built = re.compile(r"\bRuleInfo\(|\bregister\(")
    found = [
        str(path.relative_to(package))
        for path in sorted(package.rglob("*.py"))
        if path.name != "catalog.py" and built.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []
    assert set(codes.TABLE) == {r.code for r in RULES if r.family == "MLC"}
    assert set(examples.EXAMPLES) == set(codes.TABLE)
    beyond = {r.code for r in RULES if r.beyond}
    assert beyond and all(r.severity == "warning" for r in RULES if r.beyond)
    assert {c for c in beyond if c.startswith("MLC")} == {
        r.code for r in RULES if r.family == "MLC" and r.severity == "warning"
    }
    # Every check beyond the official tools is listed in docs/differences.md.
    differences = (ROOT / "docs" / "differences.md").read_text(encoding="utf-8")
    assert sorted(c for c in beyond if c not in differences) == []


def test_every_code_says_why() -> None:
    assert [r.code for r in RULES if len(r.rationale.split()) < 5] == []
    # Rationales cite the rules, the official tools or the project's docs/, nothing local.
    assert [r.code for r in RULES if "shared/" in r.rationale or "/work" in r.rationale] == []


def test_every_code_has_its_own_examples() -> None:
    """No two codes share a failing example (so no two share a pair): each example shows
    its own rule, not a fixture where many rules fire at once."""
    first: dict[str, str] = {}
    shared = []
    for info in RULES:
        if info.bad_example:
            other = first.setdefault(info.bad_example, info.code)
            if other != info.code:
                shared.append((other, info.code))
    assert shared == []


@functools.cache
def _doc_sections() -> dict[str, str]:
    from codes_doc import render_markdown

    return {s.split()[0]: s for s in render_markdown().split("\n## ")[1:]}


@pytest.mark.parametrize("info", RULES, ids=lambda r: r.code)
def test_codes_doc_shows_why_and_the_lines_that_differ(info: RuleInfo) -> None:
    section = _doc_sections()[info.code]
    assert "Why: " + " ".join(info.rationale.split()) in section
    if not info.bad_example:
        return
    diff = section.split("```diff\n", 1)[1].split("```", 1)[0].splitlines()
    assert diff[0].startswith("--- ") and any(line.startswith("@@ ") for line in diff[:3]), diff
    body = [line for line in diff if not line.startswith(("---", "+++", "@@"))]
    if info.stage.split("@")[0] in ("parse", "parse-utf16", "check"):
        longest = max(len(info.good_example.splitlines()), len(info.bad_example.splitlines()))
        # Not the whole log: a change in a long log shows a few lines around it.
        assert longest <= 3 or len(body) < longest / 2, body
    else:
        assert len(body) < 60, "a folder example shows the files that differ, not the folder"


def test_codes_doc_is_current() -> None:
    current = (ROOT / "docs" / "codes.md").read_text(encoding="utf-8")
    from codes_doc import render_markdown

    assert current == render_markdown(), (
        "docs/codes.md is stale: python scripts/codes_doc.py > docs/codes.md"
    )


def test_audit_kinds_name_the_codes_they_show_once() -> None:
    """An anomaly kind's ``audits`` are codes of other stages, each shown by one kind."""
    seen: dict[str, str] = {}
    for info in catalog.all_rules():
        if info.audits:
            assert info.family == "MLA", info.code
        for code in info.audits:
            assert catalog.get(code).family != "MLA", (info.code, code)
            assert seen.setdefault(code, info.code) == info.code, code
    assert catalog.audited_as("MLP004") is catalog.get("MLA011")  # stray file
    assert catalog.audited_as("MLE001") is catalog.get("MLA044")  # power logs incomplete
    assert catalog.audited_as("MLC020") is None
    assert len(seen) >= 20


def test_retired_codes_are_never_given_out_again() -> None:
    """A retired code (and its name) is neither in the table nor accepted by ``rule``,
    nor retired twice; docs/codes.md lists it (test_codes_doc_is_current keeps the page
    current) and gives it no section."""
    retired = catalog.retired()
    registered = {r.code for r in RULES} | {r.name for r in RULES}
    assert retired and all(r.code not in registered and r.name not in registered for r in retired)
    old = retired[0]
    for code, name in ((old.code, "a-new-name"), ("MLP999", old.name)):
        with pytest.raises(ValueError, match=f"{old.code} {old.name} was retired in"):
            catalog.rule(code, name, Severity.INFO, "x", stage="package", why="x")
    with pytest.raises(ValueError, match="retired twice"):
        catalog.retire(old.code, old.name, why="x", version="0.0.0")
    live = RULES[0]
    with pytest.raises(ValueError, match="is registered: remove its entry to retire it"):
        catalog.retire(live.code, live.name, why="x", version="0.0.0")
    assert catalog.family("MLP999") == {} and catalog.retired() == retired  # nothing added
    doc = (ROOT / "docs" / "codes.md").read_text(encoding="utf-8")
    assert all(f"| {r.code} | `{r.name}` | {r.version} |" in doc for r in retired)
    assert all(f"## {r.code} " not in doc for r in retired)
