"""What the formats write for the package and the audit beyond their problems (the
org's verdict, scores, per-org lines), and their checked paths, one per path that has
problems (``Report.files``). The format writers (``text.py``, ``machine.py``) call these;
this module imports neither (docs/design.md: no import circle)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from ..problems import Problem, write_problems
from ..safety import human, json_text


@dataclass
class PathResult:
    """A checked path as the shared writers take it (the shape in ``mllog_check.reporters``)."""

    path: str
    passed: bool
    division: str | None
    benchmark: str | None
    ruleset: str
    problems: list[Problem]
    classname: str = ""  # JUnit: where the path sits (package: org, system, benchmark)


def _by_path(problems: list[Problem], ruleset: str) -> list[PathResult]:
    found: dict[str, list[Problem]] = {}
    for problem in problems:
        found.setdefault(problem.path, []).append(problem)
    return [
        PathResult(path, not any(p.is_error for p in mine), None, _benchmark(mine), ruleset, mine)
        for path, mine in sorted(found.items())
    ]


def _benchmark(problems: list[Problem]) -> str | None:
    """The benchmark an audit placed a path's problems in (their context), if one."""
    named = {p.context.benchmark for p in problems if p.context.benchmark}
    return named.pop() if len(named) == 1 else None


def package_files(report: Any) -> list[PathResult]:
    files = _by_path(report.problems, report.ruleset)
    for f in files:
        f.classname = _package_class(report, f.path)
    return files


def _package_class(report: Any, path: str) -> str:
    """``package.<org>.<folders below the org>`` (dots between names, JUnit's classname
    convention): where the path sits in the submission."""
    from pathlib import PurePath

    parts = PurePath(path).parts
    root = PurePath(report.root).parts
    inner = parts[len(root) : -1] if parts[: len(root)] == root else parts[-2:-1]
    return ".".join(("package", report.org, *inner))


def package_verdict(report: Any) -> str:
    """The package's verdict in one line (JUnit's first test case, machine.junit_report)."""
    counts = report.counts()
    official = "PASS" if report.official_passed else "FAIL"
    stops = _official_stops(report.problems)
    return (
        f"{report.org} ({report.ruleset}): {counts['error']} errors, {counts['warning']} "
        f"warnings; official package checker verdict: {official}" + (f" ({stops})" if stops else "")
    )


def audit_files(result: Any) -> list[PathResult]:
    """Every org's problems and every anomaly, by path (paths relative to the round)."""
    return _by_path(sorted([*result.problems, *result.anomalies]), result.ruleset)


def package_notice(report: Any) -> str | None:
    """The GitHub notice of an org that passed (a CI log then says what was checked, not
    nothing; text.github), None when it failed."""
    if not report.passed:
        return None
    counts = report.counts()
    official = "PASS" if report.official_passed else "FAIL"
    return (
        f"PASS {report.org} ({report.ruleset}): {counts['error']} errors, "
        f"{counts['warning']} warnings; official package checker verdict: {official}"
    )


def package_text(report: Any, out: TextIO, quiet: bool = False) -> None:
    shown = [p for p in report.problems if p.is_error or not quiet]
    write_problems(shown, out)
    if not quiet:
        _scores_text(report.scores, out)
    counts = report.counts()
    verdict = "PASS" if report.passed else "FAIL"
    # Every value through safety.human: an org folder named "x\nPASS ..." forges no line.
    out.write(
        human(
            "{} {} ({}): {} errors, {} warnings\n",
            verdict,
            report.org,
            report.ruleset,
            counts["error"],
            counts["warning"],
        )
    )
    from ..submission.codes import KEPT_BEYOND_OFFICIAL

    official = "PASS" if report.official_passed else "FAIL"
    stops = _official_stops(report.problems)
    if getattr(report, "not_checked", ""):
        official, stops = f"none for this round (not checked: {report.not_checked})", ""
    out.write(
        human("official package checker verdict: {}{}\n", official, f" ({stops})" if stops else "")
    )
    repo = getattr(report, "repo_passed", None)
    if repo is not None:
        out.write(human("official repo checker verdict: {}\n", "PASS" if repo else "FAIL"))
    kind = "errors (--strict)" if report.strict else "warnings (errors with --strict)"
    out.write(human("beyond the official checker: {} {}\n", report.beyond, kind))
    if getattr(report, "empty", False):  # never a PASS for nothing checked
        out.write("nothing checked: results/ holds no result log of the round's benchmarks\n")
    found = [p.rule for p in report.problems if p.is_error and p.rule in KEPT_BEYOND_OFFICIAL]
    if found:
        kept, count = sorted(set(found)), len(found)
        out.write(
            human(
                "errors kept beyond the official tools: {} ({}: not in its verdict)\n",
                count,
                ", ".join(kept),
            )
        )


def _verdict_word(passed: bool | None) -> str | None:
    """ "pass" or "fail"; None where the tool does not run for the round."""
    return None if passed is None else "pass" if passed else "fail"


def _official_stops(problems: list[Problem]) -> str | None:
    """Why the official package checker stops (its first crash, MLP044), None if it finishes."""
    from ..submission.codes import OFFICIAL_CRASH

    return next((p.message for p in problems if p.rule == OFFICIAL_CRASH.code), None)


def _scores_text(scores: Sequence[Mapping[str, Any]], out: TextIO) -> None:
    """One line per result: what the published table would show, and why not when invalid."""
    for row in sorted(scores, key=lambda r: (r["system"], r["benchmark"])):
        where = f"{row['system']}/{row['benchmark']} ({row['division']})"
        if row["minutes"] is None:
            out.write(human("score {}: invalid: {}\n", where, row["reason"]))
            continue
        if "models" in row:  # MLPerf HPC weak scaling (docs/hpc.md)
            out.write(
                human(
                    "weak-scaling score {}: {} models of {} accelerators in {:.2f} min "
                    "({:.3f} models/min)\n",
                    where,
                    row["models"],
                    row["instance_scale"],
                    row["minutes"],
                    row["models_per_minute"],
                )
            )
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
            human(
                "score {}: {:.2f} min, olympic mean over {} runs{}\n",
                where,
                row["minutes"],
                row["runs_counted"],
                rcp,
            )
        )
        _energy_text(row, where, out)


def _energy_text(row: Mapping[str, Any], where: str, out: TextIO) -> None:
    """The energy score of a result with power logs (docs/power.md)."""
    method = row.get("energy_method")
    if not method:
        return
    joules = row.get("energy_j")
    if joules is None:
        out.write(human("energy {}: {}\n", where, method))
        return
    watts = row.get("avg_power_w")
    power = "" if watts is None else f", mean {watts / 1000:.2f} kW over the timed runs"
    out.write(
        human(
            "energy {}: {:.2f} kWh per run ({:.6g} J), {}{}\n",
            where,
            joules / 3.6e6,
            joules,
            method,
            power,
        )
    )


def package_json(report: Any, out: TextIO) -> None:
    import orjson

    doc = {
        "org": report.org,
        "root": report.root,
        "ruleset": report.ruleset,
        "ruleset_source": report.ruleset_source,
        "passed": report.passed,
        "strict": report.strict,
        "official_verdict": "pass" if report.official_passed else "fail",
        "repo_checker_verdict": _verdict_word(getattr(report, "repo_passed", None)),
        "official_stops": _official_stops(report.problems),
        "beyond_official": report.beyond,
        "counts": report.counts(),
        "problems": [p.to_dict() for p in report.problems],
        "scores": report.scores,
    }
    text = orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
    out.write(json_text(text))  # orjson writes U+2028 and the like raw
    out.write("\n")


# More orgs than this: the passing ones on one line (orgs.csv lists each), as the
# report folds them (docs/audit.md, "Stdout").
ORG_LINES = 12


def audit_text(result: Any, out: TextIO, info: bool = False) -> None:
    """What a reader wants first (docs/audit.md, "Stdout"): a summary line, the results
    with anomalies of severity score or rules, ranked, and those anomalies; ``info``
    ones are counted (listed too with ``info``); then a line per org (its verdict and
    counts), the passing ones condensed to one line over ``ORG_LINES`` orgs. Severity:
    docs/audit.md."""
    shown = ("score", "rules", "info") if info else ("score", "rules")
    ranked = [r for r in getattr(result, "results", []) if r["worst"] in shown]
    out.write(human("{}\n", _audit_summary(result, ranked)))
    if ranked:
        out.write("results, ranked (anomalies by severity: score, rules, info):\n")
    for row in ranked:
        out.write(human("{}\n", _result_line(row)))
    listed = [a for a in result.anomalies if (a.impact or "rules") in shown]
    write_problems(listed, out)
    by_impact: dict[str, dict[str, int]] = {}
    for anomaly in result.anomalies:
        kinds = by_impact.setdefault(anomaly.impact or "rules", {})
        kinds[anomaly.name] = kinds.get(anomaly.name, 0) + 1
    parts = []
    for impact in ("score", "rules", "info"):
        kinds = by_impact.get(impact, {})
        named = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
        hidden = " (not listed: --info lists them)" if kinds and impact not in shown else ""
        parts.append(f"{impact} {sum(kinds.values())}" + (f" ({named}){hidden}" if named else ""))
    out.write(human("anomalies: {}\n", "; ".join(parts)))
    _org_lines(result.orgs, out)
    for folder in getattr(result, "skipped", []):
        out.write(human("not audited: {} (names no round of this build)\n", folder))


def _audit_summary(result: Any, ranked: Sequence[Mapping[str, Any]]) -> str:
    """One line: how much was audited and what it found."""
    orgs = result.orgs
    failing = sum(1 for o in orgs if not o["passed"])
    scores = getattr(result, "scores", [])
    valid = sum(1 for s in scores if s.get("valid"))
    runs = sum(int(o.get("runs") or 0) for o in orgs)
    return (
        f"audited {len(orgs)} orgs ({len(orgs) - failing} pass, {failing} fail), "
        f"{runs} runs, {len(scores)} results ({valid} valid); "
        f"{len(ranked)} results with anomalies to read, ranked below"
    )


def _org_lines(orgs: Sequence[Mapping[str, Any]], out: TextIO) -> None:
    """A line per org; over ORG_LINES orgs the passing ones share one line."""
    condensed = len(orgs) > ORG_LINES
    passing = [o for o in orgs if o["passed"]]
    for org in orgs:
        if condensed and org["passed"]:
            continue
        verdict = "PASS" if org["passed"] else "FAIL"
        extra = f" ({org['failure']})" if org["failure"] else ""
        counts = f"{org['errors']} errors, {org['warnings']} warnings, {org['runs']} runs"
        out.write(human("{} {}: {}{}\n", verdict, org["org"], counts, extra))
    if condensed and passing:
        runs = sum(int(o.get("runs") or 0) for o in passing)
        out.write(human("PASS {} orgs, {} runs (orgs.csv lists each)\n", len(passing), runs))


def _result_line(row: Mapping[str, Any]) -> str:
    minutes = row.get("minutes")
    score = f"{minutes:.2f} min" if minutes is not None else _no_score(row)
    again = row.get("minutes_without_copies")
    if row.get("copies"):
        score += f" (without copies: {'invalid' if again is None else f'{again:.2f} min'})"
    counts = ", ".join(f"{row[f'anomalies_{k}']} {k}" for k in ("score", "rules", "info"))
    where = f"{row['org']} {row['system']}/{row['benchmark']}"
    again = " (re-published)" if row.get("republished") else ""
    return f"{row['rank']:>4}. {where}: {score}{again}; {counts}; worst {row['worst_kind']}"


def _no_score(row: Mapping[str, Any]) -> str:
    """Why a ranked result has no score: invalid, or no result folder scored (only
    anomalies name it: a stray file, an org's own folder)."""
    if row.get("valid") is False:
        return "no score (invalid)"
    return "no score (not a scored result: only anomalies name it)"
