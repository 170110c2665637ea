"""``mllog-check package ORG_DIR``: check one submitter's folder before upload."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, TextIO

import click

from . import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, RULESET_HELP, check_round_name, round_setting

# text, json and csv are the package's own (with the org's verdict); junit, sarif and
# github come from the reporters registry, one "file" per path that has problems.
OWN_FORMATS = ("text", "json", "csv")
SHARED_FORMATS = ("junit", "sarif", "github")
FORMATS = OWN_FORMATS + SHARED_FORMATS


@dataclass
class _PathResult:
    """What the reporters need of a checked file (see mllog_check.reporters)."""

    path: str
    passed: bool
    division: str | None
    benchmark: str | None
    ruleset: str
    problems: list[Any]


@click.command()
@click.argument("org_dir")
@click.option("--ruleset", default="auto", show_default=True, help=RULESET_HELP)
@click.option("-v", "--verbose", is_flag=True, help="Say which round was chosen, and why.")
@click.option(
    "--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True, help="Output."
)
@click.option("--quiet", "-q", is_flag=True, help="Errors only (text format).")
@click.option(
    "--strict",
    is_flag=True,
    help="Checks beyond the round's official package checker (consistency, advice) fail too.",
)
def package(org_dir: str, ruleset: str, fmt: str, quiet: bool, strict: bool, verbose: bool) -> None:
    """Check ORG_DIR (<Org>/results, systems, benchmarks): layout, system descriptions,
    every log, scores/RCP/seeds and consistency between logs, descriptions and folders.

    Errors are what the round's official package checker rejects; the checks beyond it
    are warnings (errors with --strict). Nothing is written inside ORG_DIR.
    Exit 0 clean, 1 problems, 2 usage or input error.
    """
    from ..rounds import RoundError
    from ..submission.layout import NotASubmission
    from ..submission.package import check_package

    check_round_name("package", ruleset)
    setting = round_setting("package", ruleset)
    try:
        report = check_package(org_dir, ruleset, strict=strict, setting=setting)
    except (NotASubmission, RoundError) as err:
        click.echo(f"mllog-check package: {err}", err=True)
        sys.exit(EXIT_USAGE)
    if verbose:
        click.echo(
            f"{org_dir}: ruleset {report.ruleset} (from {report.ruleset_source}: "
            f"{report.ruleset_reason})",
            err=True,
        )
    if report.ruleset_source == "newest":
        click.echo(f"{org_dir}: note: {report.ruleset_reason}", err=True)
    if fmt == "json":
        _json(report, sys.stdout)
    elif fmt == "csv":
        _csv(report, sys.stdout)
    elif fmt in SHARED_FORMATS:
        _shared(report, fmt, sys.stdout)
    else:
        _text(report, sys.stdout, quiet)
    if report.missing_stages:  # a stage that could not run: never a pass
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_OK if report.passed else EXIT_PROBLEMS)


def _text(report: Any, out: TextIO, quiet: bool) -> None:
    from .output import write_problems_text

    shown = [p for p in report.problems if p.is_error or not quiet]
    write_problems_text(shown, out)
    if not quiet:
        _scores_text(report.scores, out)
    counts = report.counts()
    verdict = "NOT CHECKED" if report.missing_stages else "PASS" if report.passed else "FAIL"
    out.write(
        f"{verdict} {report.org} ({report.ruleset}): {counts['error']} errors, "
        f"{counts['warning']} warnings\n"
    )
    for stage in report.missing_stages:
        out.write(f"note: {stage} not available: not checked\n")
    official = "PASS" if report.official_passed else "FAIL"
    if report.missing_stages and report.official_passed:
        official = "not evaluated (stages missing, see the notes above)"
    out.write(f"official package checker verdict: {official}\n")
    kind = "errors (--strict)" if report.strict else "warnings (errors with --strict)"
    out.write(f"beyond the official checker: {report.beyond} {kind}\n")


def _scores_text(scores: list[dict[str, Any]], out: TextIO) -> None:
    """One line per result: what the published table would show, and why not when invalid."""
    for row in sorted(scores, key=lambda r: (r["system"], r["benchmark"])):
        where = f"{row['system']}/{row['benchmark']} ({row['division']})"
        if row["minutes"] is None:
            out.write(f"score {where}: invalid: {row['reason']}\n")
            continue
        rcp = f", RCP {row['rcp_verdict']}" if row.get("rcp_verdict") else ""
        if row.get("rcp_verdict") and row.get("rcp_message"):
            rcp += f" ({row['rcp_message']})"
        factor = row.get("scaling_factor") or 1.0
        if factor != 1.0 and row.get("raw_minutes") is not None:
            rcp += (
                f"; normalized by the committee's scaling.json: x{factor:g} "
                f"(raw {row['raw_minutes']:.2f} min)"
            )
        out.write(
            f"score {where}: {row['minutes']:.2f} min, olympic mean over "
            f"{row['runs_counted']} runs{rcp}\n"
        )
        _energy_text(row, where, out)


def _energy_text(row: dict[str, Any], where: str, out: TextIO) -> None:
    """The energy score of a result with power logs (docs/power.md)."""
    method = row.get("energy_method")
    if not method:
        return
    joules = row.get("energy_j")
    if joules is None:
        out.write(f"energy {where}: {method}\n")
        return
    out.write(f"energy {where}: {joules / 3.6e6:.2f} kWh per run ({joules:.6g} J), {method}\n")


def _json(report: Any, out: TextIO) -> None:
    import orjson

    doc = {
        "org": report.org,
        "root": report.root,
        "ruleset": report.ruleset,
        "ruleset_source": report.ruleset_source,
        "passed": report.passed,
        "strict": report.strict,
        "official_verdict": _official(report),
        "beyond_official": report.beyond,
        "counts": report.counts(),
        "missing_stages": report.missing_stages,
        "problems": [p.to_dict() for p in report.problems],
        "scores": report.scores,
    }
    out.write(orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode())
    out.write("\n")


def _official(report: Any) -> str:
    if not report.official_passed:
        return "fail"
    return "not evaluated" if report.missing_stages else "pass"


def _csv(report: Any, out: TextIO) -> None:
    import csv

    writer = csv.writer(out, lineterminator="\n")
    columns = ["path", "line", "column", "rule", "name", "severity", "message"]
    writer.writerow(columns)
    for p in report.problems:
        row = p.to_dict()
        writer.writerow([row[c] for c in columns])


def _shared(report: Any, fmt: str, out: TextIO) -> None:
    from .. import reporters

    by_path: dict[str, list[Any]] = {}
    for problem in report.problems:
        by_path.setdefault(problem.path, []).append(problem)
    files = [
        _PathResult(path, not any(p.is_error for p in found), None, None, report.ruleset, found)
        for path, found in sorted(by_path.items())
    ]
    reporters.get(fmt)(files, out)
