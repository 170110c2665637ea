"""``mllog-check package ORG_DIR``: check one submitter's folder before upload."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, TextIO, cast

import click

from ..reporters import PACKAGE, offered
from ..safety import human
from . import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    cache_options,
    cache_or_none,
    chosen_round,
    ruleset_option,
    selection_options,
    selection_or_exit,
    usage_option,
    with_usage,
)

# From the one registry of problem formats (text and json are the package's own, with
# the org's verdict; the others write one "file" per path that has problems).
FORMATS = offered(PACKAGE)


@click.command()
@click.argument("org_dirs", nargs=-1, metavar="ORG_DIR")
@click.option(
    "--staged",
    is_flag=True,
    help="Check every org a path git has staged lies in (added, changed or deleted; "
    "results/, systems/, benchmarks/), as the pre-commit hook mllog-check-package does; "
    "with nothing staged, every org below the working folder.",
)
@ruleset_option()
@usage_option()
@click.option("-v", "--verbose", is_flag=True, help="Say which round was chosen, and why.")
@click.option(
    "--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True, help="Output."
)
@click.option("--quiet", "-q", is_flag=True, help="Errors only (text format).")
@click.option(
    "--junit-dir",
    type=click.Path(file_okay=False),
    help="Also write each org's JUnit report to DIR/<Org>.xml (made when missing), from "
    "the same run as --format: a CI gate checks each org once.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Stable checks beyond the round's official package checker (consistency, advice) "
    "fail too.",
)
@selection_options
@click.option(
    "--write-scaling",
    is_flag=True,
    help="Write the scaling.json files the official package checker writes (RCP "
    "normalization), byte for byte, one stderr line per file; a differing one already "
    "there is kept and named (docs/package.md).",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes for the org's result sets (default: CPUs); used only where the "
    "logs are large enough to gain, and the report is the same.",
)
@cache_options
def package(
    org_dirs: tuple[str, ...],
    staged: bool,
    ruleset: str,
    fmt: str,
    quiet: bool,
    strict: bool,
    verbose: bool,
    usage: str | None = None,
    junit_dir: str | None = None,
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    preview: bool = False,
    write_scaling: bool = False,
    cache_dir: str | None = None,
    no_cache: bool = False,
    jobs: int | None = None,
) -> None:
    """Check ORG_DIR (<Org>/results, systems, benchmarks): layout, system descriptions,
    every log, scores/RCP/seeds and consistency between logs, descriptions and folders.

    Errors are what the round's official package checker rejects; the checks beyond it
    are warnings (errors with --strict). Nothing is written inside ORG_DIR, except
    with --write-scaling the official package checker's scaling.json files.
    Exit 0 clean, 1 problems, 2 usage or input error.
    """
    orgs, skipped = _orgs(org_dirs, staged)
    ruleset = with_usage("package", ruleset, usage)
    setting = chosen_round("package", ruleset)
    junit = _junit_folder(junit_dir)
    shown = selection_or_exit("package", select, ignore, preview)
    worst = EXIT_PROBLEMS if skipped else EXIT_OK  # a linked org is not checked
    cache = cache_or_none("package", no_cache, cache_dir) if orgs else None
    for org_dir in orgs:
        code = _package(
            org_dir,
            ruleset,
            setting,
            fmt,
            quiet,
            strict,
            verbose,
            junit,
            shown,
            write_scaling,
            cache,
            jobs or os.cpu_count() or 1,
        )
        worst = max(worst, code)
    sys.exit(worst)


def _orgs(org_dirs: tuple[str, ...], staged: bool) -> tuple[list[str], bool]:
    """The org folders to check: the one named, or (--staged) those git's staged paths
    lie in (docs/package.md, "Hooks and CI"); and whether a linked org was skipped."""
    if not staged:
        if len(org_dirs) != 1:
            click.echo("mllog-check package: give one ORG_DIR (or --staged)", err=True)
            sys.exit(EXIT_USAGE)
        return list(org_dirs), False
    import os

    from ..submission.staged import GitUnavailable, touched_orgs

    cwd = Path.cwd()
    try:
        touched = touched_orgs(cwd)
    except GitUnavailable as err:
        click.echo(human("mllog-check package: --staged: {}", err), err=True)
        sys.exit(EXIT_USAGE)
    # relpath: an org above the working folder (the hook run inside an org) is ../..
    orgs = sorted({*org_dirs, *(os.path.relpath(o, cwd) for o in touched.orgs)})
    for link in touched.links:  # never followed, never in silence (docs/security.md)
        shown = os.path.relpath(link, cwd)
        click.echo(
            human("mllog-check package: {}: an org folder that is a link: not checked", shown),
            err=True,
        )
    if not orgs and not touched.links:
        click.echo("mllog-check package: no org folder touched by the staged changes", err=True)
    return orgs, bool(touched.links)


def _junit_folder(path: str | None) -> Path | None:
    """The --junit-dir folder, made before any org is checked; exit 2 when it cannot be."""
    if path is None:
        return None
    from ..outputs import OutputError, output_folder

    try:
        return output_folder(path)
    except OutputError as err:
        click.echo(human("mllog-check package: --junit-dir: {}", err), err=True)
        sys.exit(EXIT_USAGE)


def _package(
    org_dir: str,
    ruleset: str,
    setting: Any,
    fmt: str,
    quiet: bool,
    strict: bool,
    verbose: bool,
    junit: Path | None = None,
    shown: Any = None,
    write_scaling: bool = False,
    cache: Any = None,
    jobs: int = 1,
) -> int:
    """Check one org and write its report; its exit code (``cache``: the result cache,
    None for none)."""
    from ..rounds import RoundError
    from ..selection import DEFAULT
    from ..submission.layout import NotASubmission
    from ..submission.package import cached_check_package, selected

    try:
        report = cached_check_package(
            org_dir, ruleset, strict=strict, setting=setting, cache=cache, jobs=jobs
        )
        # The one point where the selection applies: the exit code follows what is shown.
        report = selected(report, shown or DEFAULT)
    except (NotASubmission, RoundError) as err:
        click.echo(human("mllog-check package: {}", err), err=True)
        return EXIT_USAGE
    if verbose:
        click.echo(
            human(
                "{}: ruleset {} (from {}: {})",
                org_dir,
                report.ruleset,
                report.ruleset_source,
                report.ruleset_reason,
            ),
            err=True,
        )
    if report.ruleset_source == "newest":
        click.echo(human("{}: note: {}", org_dir, report.ruleset_reason), err=True)
    from .. import reporters

    options = {"quiet": quiet} if fmt == "text" else {}
    reporters.write(fmt, PACKAGE, report, sys.stdout, **options)
    if junit is not None:
        from ..outputs import OutputError, open_output

        target = junit / f"{Path(org_dir).resolve().name or 'org'}.xml"
        try:
            with open_output(target) as out:
                reporters.write("junit", PACKAGE, report, cast(TextIO, out))
        except OutputError as err:
            click.echo(human("mllog-check package: --junit-dir: {}", err), err=True)
            return EXIT_USAGE
    if write_scaling and not _write_scaling(org_dir, report):
        return EXIT_USAGE
    return EXIT_OK if report.passed else EXIT_PROBLEMS


def _write_scaling(org_dir: str, report: Any) -> bool:
    """--write-scaling: the official package checker's scaling.json files, one stderr
    line each (submission/scaling_files.py); False when one could not be written."""
    from ..submission.scaling_files import normalizes, official_stops, write_scaling

    outcomes = write_scaling(report)
    for outcome in outcomes:
        click.echo(human("mllog-check package: --write-scaling: {}", outcome.line), err=True)
    if not outcomes:
        why = "no closed result passes its RCP check faster than the reference mean"
        if official_stops(report) is None:
            why = "the official package checker stops outside the result folders (MLP044)"
        elif not normalizes(report.ruleset):
            why = f"the RCP check of round {report.ruleset} normalizes no score"
        click.echo(
            human(
                "mllog-check package: --write-scaling: {}: no scaling.json to write ({})",
                org_dir,
                why,
            ),
            err=True,
        )
    return not any(o.refused for o in outcomes)
